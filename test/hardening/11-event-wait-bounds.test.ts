import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/** Waits the whole pipeline process allows at once in this file's system. */
const MAX_WAITERS = 4;

function eventAliases(count: number, waitMs: number): string {
  return `{ ${Array.from({ length: count }, (_, i) => `e${i}: event(id: "evt_missing_${i}", waitMs: ${waitMs}) { id }`).join(' ')} }`;
}

type Result = Awaited<ReturnType<TestSystem['graphql']>>;
const codes = (res: Result) => (res.errors ?? []).map((e) => e.extensions?.['code']);

/**
 * Issue point 11 (event part): event(id, waitMs) let one request hold 200 waiters. Now one request
 * holds at most 3 waits, the process at most SVC_EVENT_MAX_WAITERS, and a wait at most 5000 ms;
 * anything over is a clear error with a code.
 */
describe('hardening 11: event(waitMs) waits are bounded', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_EVENT_MAX_WAITERS: String(MAX_WAITERS) });
  });
  afterAll(() => t?.close());

  it('refuses 200 aliases of event(waitMs) in one request before anything waits', async () => {
    const res = await t.graphql(eventAliases(200, 5000));
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(codes(res)).toEqual(['TOO_MANY_ALIASES']);
  });

  it('lets one request hold at most 3 waits; the others get TOO_MANY_WAITERS at once', async () => {
    const res = await t.graphql<Record<string, unknown>>(eventAliases(30, 300));
    expect(res.status).toBe(200);
    expect(Object.values(res.data!).every((value) => value === null)).toBe(true);
    const refused = res.errors!.filter((e) => e.extensions?.['code'] === 'TOO_MANY_WAITERS');
    expect(refused).toHaveLength(27);
    expect(refused[0]!.message).toMatch(/At most 3 event\(waitMs:\) waits per request/);
    expect(codes(res).every((code) => code === 'TOO_MANY_WAITERS')).toBe(true);

    // Without waitMs, any number of events may be asked for (within the alias limit).
    const plain = await t.graphql(eventAliases(30, 0));
    expect(plain.errors).toBeUndefined();
  });

  it('refuses a wait outside 0 to 5000 ms, naming waitMs', async () => {
    for (const waitMs of [5001, -1]) {
      const res = await t.graphql(`{ event(id: "evt_missing", waitMs: ${waitMs}) { id } }`);
      expect(res.errors![0]!.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'waitMs', message: 'must be from 0 to 5000' }] });
    }
  });

  it('bounds the waits of the whole process: over SVC_EVENT_MAX_WAITERS, a wait is refused with SERVER_BUSY', async () => {
    // Two requests of 3 waits each, for events that never come: together over the limit of 4. The
    // longest waits allowed, so that the second request's waits start while the first's still wait
    // however slowly a busy machine gets from one request to the other.
    const [first, second] = await Promise.all([t.graphql(eventAliases(3, 5000)), t.graphql(eventAliases(3, 5000))]);
    const all = [...codes(first), ...codes(second)];
    expect(all.filter((code) => code === 'SERVER_BUSY').length).toBeGreaterThanOrEqual(6 - MAX_WAITERS);
    expect(all.every((code) => code === 'SERVER_BUSY')).toBe(true);
    const busy = [...(first.errors ?? []), ...(second.errors ?? [])][0]!;
    expect(busy.extensions).toMatchObject({ code: 'SERVER_BUSY', status: 503, limit: MAX_WAITERS });

    // Once they are over, waiting works again.
    const after = await t.graphql(eventAliases(1, 50));
    expect(after.errors).toBeUndefined();
  });
});
