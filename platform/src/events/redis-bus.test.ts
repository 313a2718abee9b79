import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RedisEventBus } from './redis-bus.js';
import { makeEvent, type EventEnvelope } from './envelope.js';

const REDIS_URL = process.env['SVC_TEST_DATABASE'] === 'postgres' ? (process.env['SVC_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379') : undefined;

describe.runIf(REDIS_URL)('RedisEventBus', () => {
  it('fans events out across separate connections (processes) within one prefix only', async () => {
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const a = new RedisEventBus(REDIS_URL!, prefix);
    const b = new RedisEventBus(REDIS_URL!, prefix);
    const other = new RedisEventBus(REDIS_URL!, `${prefix}x`);
    const got: EventEnvelope[] = [];
    const elsewhere: EventEnvelope[] = [];
    const arrived = new Promise<void>((resolve) =>
      b.subscribe((e) => {
        got.push(e);
        resolve();
      }),
    );
    other.subscribe((e) => void elsewhere.push(e));
    await Promise.all([b.ready(), other.ready()]);
    const event = makeEvent('test.redis', 'CMS-00000001', { n: 1 });
    await a.publish(event);
    await arrived;
    expect(got).toEqual([event]);
    await new Promise((r) => setTimeout(r, 50));
    expect(elsewhere).toEqual([]);
    await Promise.all([a.close(), b.close(), other.close()]);
  });
});
