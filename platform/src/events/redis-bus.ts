import { Redis } from 'ioredis';
import type { EventBus, EventHandler } from './bus.js';
import { deliverSafely } from './bus.js';
import { isEventEnvelope, type EventEnvelope } from './envelope.js';

/** The distributed bus: Redis pub/sub fans every event out to every process. */
export class RedisEventBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Set<EventHandler>();
  private subscribed: Promise<unknown> | undefined;
  private readonly channel: string;

  constructor(url: string, prefix: string, private readonly onError: (err: unknown) => void = () => {}) {
    this.channel = `${prefix}:events`;
    this.pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 3 });
    this.sub = new Redis(url, { lazyConnect: false });
    this.sub.on('message', (_channel: string, message: string) => {
      let event: unknown;
      try {
        event = JSON.parse(message);
      } catch (err) {
        this.onError(err);
        return;
      }
      if (!isEventEnvelope(event)) return;
      for (const h of this.handlers) void deliverSafely(h, structuredClone(event), this.onError);
    });
  }

  /** Resolves once this process receives events; call before relying on delivery. */
  ready(): Promise<unknown> {
    this.subscribed ??= this.sub.subscribe(this.channel);
    return this.subscribed;
  }

  async publish(event: EventEnvelope): Promise<void> {
    await this.pub.publish(this.channel, JSON.stringify(event));
  }

  subscribe(handler: EventHandler): () => void {
    void this.ready();
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}
