import type { DeprecationWarning } from './deprecation.js';

/** A request the SDK sends again, and why. */
export interface RetryNotice {
  method: string;
  url: string;
  /** 1 for the first retry. */
  attempt: number;
  /** What failed: an HTTP status (429, 503 …) or `network`. */
  reason: number | 'network';
  /** How long the SDK waits before sending it again. */
  delayMs: number;
}

/** What a client reports while it works (`client.on(name, listener)`). */
export interface ClientEvents {
  /** A deprecated route was called (once per method and URL per client). */
  deprecation: DeprecationWarning;
  /** A request is sent again after a 429, a 503 or a network failure. */
  retry: RetryNotice;
}

export type Listener<K extends keyof ClientEvents> = (event: ClientEvents[K]) => void;

/** A small typed event emitter: no console output, listeners decide what to do with each event. */
export class ClientEventEmitter {
  private readonly listeners: { [K in keyof ClientEvents]: Set<Listener<K>> } = { deprecation: new Set(), retry: new Set() };

  /** Listen to `name`; the answer stops listening. */
  on<K extends keyof ClientEvents>(name: K, listener: Listener<K>): () => void {
    this.listeners[name].add(listener);
    return () => this.listeners[name].delete(listener);
  }

  emit<K extends keyof ClientEvents>(name: K, event: ClientEvents[K]): void {
    for (const listener of this.listeners[name]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own; the request goes on.
      }
    }
  }
}
