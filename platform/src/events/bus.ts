import type { EventEnvelope } from './envelope.js';

export type EventHandler = (event: EventEnvelope) => void | Promise<void>;

/**
 * Fan-out publish/subscribe: every subscriber in every process sees every event. Delivery is at
 * least once, so handlers are idempotent by event id.
 */
export interface EventBus {
  publish(event: EventEnvelope): Promise<void>;
  /** Returns the function that ends the subscription. */
  subscribe(handler: EventHandler): () => void;
  close(): Promise<void>;
}

/** Run a handler without letting its failure reach the publisher. */
export async function deliverSafely(handler: EventHandler, event: EventEnvelope, onError: (err: unknown) => void): Promise<void> {
  try {
    await handler(event);
  } catch (err) {
    onError(err);
  }
}
