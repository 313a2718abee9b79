import { describe, expect, it } from 'vitest';
import { MemoryEventBus } from './memory-bus.js';
import { makeEvent } from './envelope.js';

describe('MemoryEventBus', () => {
  it('fans every event out to every subscriber, each with its own copy', async () => {
    const bus = new MemoryEventBus();
    const seen: unknown[][] = [[], []];
    bus.subscribe((e) => {
      seen[0]!.push(e.data['n']);
      e.data['n'] = 'changed';
    });
    const stop = bus.subscribe((e) => void seen[1]!.push(e.data['n']));
    await bus.publish(makeEvent('test.one', null, { n: 1 }));
    stop();
    await bus.publish(makeEvent('test.two', null, { n: 2 }));
    expect(seen).toEqual([[1, 2], [1]]);
  });

  it('keeps delivering when a handler throws, and reports the failure', async () => {
    const errors: unknown[] = [];
    const bus = new MemoryEventBus((err) => errors.push(err));
    const got: string[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    bus.subscribe((e) => void got.push(e.type));
    await bus.publish(makeEvent('test.ok', 'CMS-00000001', {}));
    expect(got).toEqual(['test.ok']);
    expect(errors).toHaveLength(1);
  });

  it('stamps envelopes with an evt_ id and an ISO time', () => {
    const e = makeEvent('x.y', null, {});
    expect(e.id).toMatch(/^evt_/);
    expect(new Date(e.occurred_at).toISOString()).toBe(e.occurred_at);
  });
});
