import { describe, expect, it } from 'vitest';
import { coalescedReads } from './coalesced-reads.js';

/** A store of squares that records every batch it is asked for. */
function squares(options: { fail?: Error; maxBatch?: number } = {}) {
  const batches: string[][] = [];
  const read = coalescedReads<number>(async (keys) => {
    batches.push([...keys]);
    if (options.fail) throw options.fail;
    return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, Number(k) ** 2]));
  }, options.maxBatch);
  return { read, batches };
}

describe('coalescedReads', () => {
  it('reads the keys of every caller in one turn once, and answers each caller its own keys', async () => {
    const { read, batches } = squares();
    const [a, b, c] = await Promise.all([read(['1', '2']), read(['2']), read(['missing', '1'])]);
    expect(batches).toEqual([['1', '2', 'missing']]);
    expect([...a]).toEqual([['1', 1], ['2', 4]]);
    expect([...b]).toEqual([['2', 4]]);
    expect([...c]).toEqual([['1', 1]]);
  });

  it('starts a new batch in the next turn and splits a batch at its size', async () => {
    const { read, batches } = squares({ maxBatch: 3 });
    await read(['1']);
    await read(['2']);
    await Promise.all([read(['3', '4', '5']), read(['6'])]);
    expect(batches).toEqual([['1'], ['2'], ['3', '4', '5'], ['6']]);
  });

  it('fails every caller of a failed batch, and the next batch reads again', async () => {
    const down = new Error('database down');
    const { read } = squares({ fail: down });
    const answers = await Promise.allSettled([read(['1']), read(['2'])]);
    expect(answers).toEqual([{ status: 'rejected', reason: down }, { status: 'rejected', reason: down }]);
    await expect(read(['1'])).rejects.toBe(down);
  });

  it('gives each caller a map of its own', async () => {
    const { read } = squares();
    const [a, b] = await Promise.all([read(['1']), read(['1'])]);
    a.delete('1');
    expect(b.get('1')).toBe(1);
  });
});
