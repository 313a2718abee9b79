import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('KeyedMutex', () => {
  it('runs holders of overlapping key sets one after the other, disjoint sets together', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const job = (name: string, keys: string[]) =>
      mutex.run(keys, async () => {
        log.push(`${name}+`);
        await tick();
        log.push(`${name}-`);
      });
    await Promise.all([job('a', ['x', 'y']), job('b', ['y', 'z']), job('c', ['q'])]);
    const [first, second] = log.indexOf('a+') < log.indexOf('b+') ? ['a', 'b'] : ['b', 'a'];
    expect(log.indexOf(`${second}+`)).toBeGreaterThan(log.indexOf(`${first}-`));
    expect(log.indexOf('c+')).toBeLessThan(log.indexOf(`${first}-`));
    expect(mutex.size).toBe(0);
  });

  it('never deadlocks on sets taken in opposite orders', async () => {
    const mutex = new KeyedMutex();
    let done = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        mutex.run(i % 2 === 0 ? ['k1', 'k2', 'k3'] : ['k3', 'k2', 'k1'], async () => {
          await tick();
          done += 1;
        }),
      ),
    );
    expect(done).toBe(20);
  });

  it('releases on failure, and a release is idempotent', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run(['k'], async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const release = await mutex.acquire(['k']);
    release();
    release();
    expect(await mutex.run(['k'], async () => 'free')).toBe('free');
  });
});
