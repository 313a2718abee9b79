import { describe, expect, it } from 'vitest';
import { SingleFlightCache } from './single-flight-cache.js';

describe('SingleFlightCache', () => {
  it('builds a key once, even for concurrent first uses, and keeps one value per key', async () => {
    const cache = new SingleFlightCache<string, number>();
    let builds = 0;
    const build = async () => {
      builds += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return builds;
    };
    const values = await Promise.all([cache.get('all', build), cache.get('all', build), cache.get('all', build)]);
    expect(values).toEqual([1, 1, 1]);
    expect(await cache.get('all', build)).toBe(1);
    expect(await cache.get('identity', build)).toBe(2);
    expect(builds).toBe(2);
    expect(cache.size).toBe(2);
  });

  it('forgets a failed build, so the next use tries again', async () => {
    const cache = new SingleFlightCache<string, string>();
    await expect(cache.get('all', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(cache.size).toBe(0);
    expect(await cache.get('all', async () => 'ok')).toBe('ok');
  });
});
