import type { Redis } from 'ioredis';
import type { EventBus, EventHandler } from './bus.js';
import { deliverSafely } from './bus.js';
import { isEventEnvelope, type EventEnvelope } from './envelope.js';
import { DependencyUnavailable, type DependencyHealth } from '../dependency-health.js';
import { createRedisClient, redisReachable } from '../redis-client.js';

/** The distributed bus: Redis pub/sub fans every event out to every process. */
export class RedisEventBus implements EventBus {
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Set<EventHandler>();
  private subscribed: Promise<unknown> | undefined;
  private readonly channel: string;

  constructor(url: string, prefix: string, private readonly onError: (err: unknown) => void = () => {}, health?: DependencyHealth) {
    this.channel = `${prefix}:events`;
    // Publishing gives up after one reconnect attempt while Redis is away (the outbox keeps the
    // event and retries); the subscriber queues its SUBSCRIBE and resubscribes after a reconnect.
    this.pub = createRedisClient(url, health, { queueWhileOffline: true, maxRetriesPerRequest: 1 });
    this.sub = createRedisClient(url, health, { queueWhileOffline: true, maxRetriesPerRequest: 20 });
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

  /** Resolves once this process receives events and can publish; call before relying on delivery. */
  ready(): Promise<unknown> {
    this.subscribed ??= Promise.all([
      this.sub.subscribe(this.channel),
      this.pub.status === 'ready' ? undefined : new Promise((resolve) => this.pub.once('ready', resolve)),
    ]);
    return this.subscribed;
  }

  /** Readiness: both connections are up and Redis answers. */
  async reachable(): Promise<boolean> {
    return this.sub.status === 'ready' && (await redisReachable(this.pub));
  }

  async publish(event: EventEnvelope): Promise<void> {
    try {
      await this.pub.publish(this.channel, JSON.stringify(event));
    } catch (err) {
      throw new DependencyUnavailable('redis', err);
    }
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
