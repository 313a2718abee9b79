import { makeEvent, type EventEnvelope } from '../../platform/src/events/envelope.js';
import type { EventStream, StopConsuming } from '../../platform/src/events/stream.js';

/** Nine events, every third of type `test.wanted` (n = 0, 3, 6), the others `test.other`. */
export function typedEvents(): EventEnvelope[] {
  return Array.from({ length: 9 }, (_, i) => makeEvent(i % 3 === 0 ? 'test.wanted' : 'test.other', 'CMS-00000001', { n: i }));
}

/** What a consumer of `test.wanted` sees of {@link typedEvents}: its first attempt fails once, after changing its copy. */
export const WANTED_SEEN = [{ n: 0 }, { n: 0 }, { n: 3 }, { n: 6 }];

/**
 * A durable consumer `typed` of `test.wanted` only, whose first attempt changes its event and
 * fails: `seen` collects each event's data as it was handed over.
 */
export function consumeWanted(stream: Pick<EventStream, 'consume'>): { seen: unknown[]; stop: StopConsuming } {
  const seen: unknown[] = [];
  let failures = 1;
  const stop = stream.consume(
    'typed',
    (e) => {
      seen.push(structuredClone(e.data));
      e.data['n'] = -1;
      if (failures-- > 0) throw new Error('database down');
    },
    { types: (type) => type === 'test.wanted' },
  );
  return { seen, stop };
}
