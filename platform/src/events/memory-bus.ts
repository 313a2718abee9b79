import type { EventBus, EventHandler } from './bus.js';
import { deliverSafely } from './bus.js';
import type { EventEnvelope } from './envelope.js';

/** The embedded bus: one process, no broker. */
export class MemoryEventBus implements EventBus {
  private readonly handlers = new Set<EventHandler>();
  constructor(private readonly onError: (err: unknown) => void = () => {}) {}

  async publish(event: EventEnvelope): Promise<void> {
    // A copy per handler: no subscriber can change what another one sees.
    await Promise.all([...this.handlers].map((h) => deliverSafely(h, structuredClone(event), this.onError)));
  }

  subscribe(handler: EventHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}
