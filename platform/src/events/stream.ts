import { eventLoopSlices } from '../event-loop-slices.js';
import type { EventEnvelope } from './envelope.js';
import type { Logger } from '../logging.js';
import { consumeSpan } from './event-spans.js';

/** A durable consumer's work for one event. It must be idempotent by `event.id` (at-least-once). */
export type StreamHandler = (event: EventEnvelope) => Promise<void> | void;

/**
 * Where an event is in the stream, as text whose order is the stream's order (fixed-width
 * numbers): two positions compare with `<` as their events were appended. The live tail hands
 * each event's position to its handlers, and `readAfter` continues from one, so a reader that
 * switches between them (a resuming subscription) knows exactly which events it has had.
 */
export type StreamPosition = string;

/** A tail's work for one event, with the event's position in the stream. */
export type TailHandler = (event: EventEnvelope, position: StreamPosition) => Promise<void> | void;

/** An event read back from the stream, with its position. */
export interface PositionedEvent {
  event: EventEnvelope;
  position: StreamPosition;
}

/**
 * What `readAfter` hands back: the events past the position that match the filter, in stream
 * order, and where to continue (null once the read reached the end of the stream).
 */
export interface StreamPage {
  events: PositionedEvent[];
  next: StreamPosition | null;
}

/** Which events `readAfter` returns: of one partner (null: every partner's), of some types (null: all). */
export interface ReadFilter {
  partnerGpid: string | null;
  types: ReadonlySet<string> | null;
}

/**
 * A durable consumer's work for consecutive events at once, in stream order (one multi-row write
 * instead of one per event). The whole batch is retried when it throws, and every event of it may
 * come again after a crash, so it too must be idempotent by `event.id`.
 */
export type StreamBatchHandler = (events: EventEnvelope[]) => Promise<void>;

/** What `consume` runs: a handler per event, or `{ batch }` for a handler of consecutive events. */
export type StreamConsumer = StreamHandler | { batch: StreamBatchHandler };

/**
 * How a durable consumer reads: `types` names the event types it handles. The others are
 * acknowledged without being read (no parse, no handler call): cheap passes over a busy stream
 * for consumers of a few types.
 */
export interface ConsumeOptions {
  types?: (type: string) => boolean;
}

/** Stops a consumer or a tail; resolves once its in-flight handler has finished. */
export type StopConsuming = () => Promise<void>;

/**
 * The durable event stream every consumer reads (see README.md in this folder).
 *
 * - `consume(name, handler)`: a durable named consumer. Each name has its own position; an event is
 *   acknowledged only after `handler` resolved; a handler that throws is retried with backoff (the
 *   consumer stays on that event, so order per source is kept). `{ batch }` gets the events of one
 *   read together (up to a few hundred) and is retried as a whole. A consumer that was down catches up
 *   from its position. Several processes consuming the same name share the work (each event goes to
 *   one of them; an event held by a process that died is taken over).
 * - `tail(handler)`: every event appended from now on, in every process that tails: plain fan-out
 *   with no stored position, for live work such as the subscription hub and the revocation caches.
 *   A tail survives a broker outage by resuming from the last event it saw. Handlers are called one
 *   after the other with the same event object: they must be quick and must not change it.
 */
export interface EventStream {
  consume(name: string, handler: StreamConsumer, options?: ConsumeOptions): StopConsuming;
  tail(handler: TailHandler): () => void;
  /**
   * How far the durable consumer `name` is behind: events appended that it has not acknowledged
   * yet. Rejects when the stream cannot be read (the broker is unreachable).
   */
  lag(name: string): Promise<ConsumerLag>;
}

/** A durable consumer's distance behind the stream (for health reports). */
export interface ConsumerLag {
  consumer: string;
  /** Events appended and not yet acknowledged by the consumer (read or not); null when the broker cannot tell. */
  unacknowledged: number | null;
  /** Age in milliseconds of the oldest of them; null when there is none (or it is unknown). */
  oldestAgeMs: number | null;
}

/**
 * Marks a relay's rows published at `at` (and ends the relay's exclusive claim on them). The stream
 * calls it once it holds the events, before they reach its live tail: a reader that sees an event
 * on the tail can read it back from the stream (`locate`, `readAfter`).
 */
export type MarkPublished = (at: Date) => Promise<void>;

/** What the outbox relay hands committed events to. */
export interface StreamAppender {
  /**
   * Resolves only once the stream holds every event and `markPublished` (when given) resolved.
   * `source` names the owner whose outbox they come from (the embedded stream then wakes its
   * consumers for that source only). Resolves with how many of the events the stream already held
   * (appended by a relay that died, or lost its claim, before marking them published): those are
   * not appended a second time.
   */
  append(events: readonly EventEnvelope[], source?: string, markPublished?: MarkPublished): Promise<number>;
}

/** The process-wide backbone: the stream, how the relay appends, and what a subgraph binds to. */
export interface EventBackbone extends EventStream, StreamAppender {
  /**
   * The stream as one owner (subgraph) consumes it; in the embedded default the owner's database
   * stores its consumers' positions, and the owner's outbox becomes one of the stream's sources.
   */
  forOwner(owner: string, orm: import('../db/database.js').Orm): EventStream & { detach(): void };
  /**
   * The event `eventId` as the stream holds it, with its position; null when the stream does not
   * hold it (unknown, not published yet, or older than the stream can find: at least
   * {@link RESUME_WINDOW_MS}). Rejects when the stream cannot be read.
   */
  locate(eventId: string): Promise<PositionedEvent | null>;
  /**
   * The events appended after `position` that match `filter`, oldest first, at most about `count`
   * entries read per call (fewer events come back when the filter leaves some out); continue from
   * `next` until it is null. Rejects when the stream cannot be read.
   */
  readAfter(position: StreamPosition, filter: ReadFilter, count?: number): Promise<StreamPage>;
  close(): Promise<void>;
}

/**
 * How old an event a subscription resumes after may be (by its `occurred_at`); `locate` finds at
 * least that far back. The stream keeps events longer (7 days) for durable consumers.
 */
export const RESUME_WINDOW_MS = 24 * 3600_000;

/** A number as fixed-width text, so that positions compare as text in numeric order. */
export function fixedWidth(n: number | string, width: number): string {
  return String(n).padStart(width, '0');
}

/** Backoff of a failing handler: 100 ms doubling to 30 s, with jitter. */
export function retryDelay(attempt: number): number {
  const base = Math.min(100 * 2 ** attempt, 30_000);
  return base / 2 + Math.random() * (base / 2);
}

interface RetryState {
  failing: boolean;
  stopped: () => boolean;
  logger: Logger;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Run `work` until it resolves or `stopped()` turns true. A failure is logged once when the
 * consumer starts failing and once when it recovers, not once per attempt or per event.
 * @returns true when the work succeeded.
 */
async function runWithRetry(consumer: string, eventId: string, work: (attempt: number) => Promise<void> | void, state: RetryState): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await work(attempt);
      if (state.failing) {
        state.failing = false;
        state.logger.info({ consumer, eventId }, 'event consumer recovered');
      }
      return true;
    } catch (err) {
      if (!state.failing) {
        state.failing = true;
        state.logger.warn({ consumer, eventId, err }, 'event consumer failing; retrying with backoff (logged once per outage)');
      }
      if (state.stopped()) return false;
      await state.sleep(retryDelay(attempt));
      if (state.stopped()) return false;
    }
  }
}

/**
 * Hand consecutive stream entries to a consumer as events, each retried until it succeeds: one by
 * one to a handler per event, all at once to a batch handler. `read` makes an entry's event, or
 * null for an entry to pass over (unreadable, or of a type the consumer does not handle); it is
 * called again for each retry, so every call gets its own copy of the events (a failed attempt
 * may have changed the one it was given).
 * @returns how many entries are done, from the first (fewer than all when stopped).
 */
export async function handleInOrder<T>(consumer: string, entries: readonly T[], read: (entry: T) => EventEnvelope | null, handler: StreamConsumer, state: RetryState): Promise<number> {
  if (typeof handler !== 'function') {
    const readAll = () => entries.map(read).filter((e): e is EventEnvelope => e !== null);
    const events = readAll();
    if (events.length === 0) return entries.length;
    const batch = (attempt: number) => consumeSpan(consumer, events, () => handler.batch(attempt === 0 ? events : readAll()));
    return (await runWithRetry(consumer, events[0]!.id, batch, state)) ? entries.length : 0;
  }
  // A consumer's handlers await a synchronous database (SQLite) without ever leaving the event loop
  // a turn: a batch of a thousand events would hold every request until its end.
  const slice = eventLoopSlices();
  for (let i = 0; i < entries.length; i++) {
    const event = read(entries[i]!);
    if (event === null) continue;
    await slice();
    if (!(await runWithRetry(consumer, event.id, (attempt) => consumeSpan(consumer, [event], () => handler(attempt === 0 ? event : read(entries[i]!)!)), state))) return i;
  }
  return entries.length;
}

/** A sleep that a stop cuts short. */
export function stoppableSleep(): { sleep: (ms: number) => Promise<void>; wakeAll: () => void } {
  const waiting = new Set<() => void>();
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiting.add(done);
      }),
    wakeAll: () => {
      for (const w of [...waiting]) w();
    },
  };
}

/**
 * The stream's live tail as a subscribe-only bus, for fan-out consumers written against
 * `EventBus.subscribe` (revocation caches, the subscription hub). Publishing goes through an outbox.
 */
export function tailAsBus(stream: Pick<EventStream, 'tail'>): import('./bus.js').EventBus {
  return {
    publish: async () => {
      throw new Error('Events are published through an outbox, not on the stream tail.');
    },
    subscribe: (handler) => stream.tail((event) => handler(event)),
    close: async () => undefined,
  };
}
