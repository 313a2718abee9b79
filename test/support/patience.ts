/**
 * Deadlines in tests. A test waits for things that are bound to happen (an event through the
 * outbox, a webhook delivery, a peer's answer, a job's end); how long they take is the machine's
 * business, not the behaviour under test. A 2-core host running another suite beside this one is
 * easily ten times slower than an idle one, and stalls for seconds at a time. So:
 *
 * - a wait for something that will happen uses `PATIENCE_MS`: it ends as soon as the thing happens,
 *   so a generous limit costs nothing when the test passes, and only a real fault reaches it;
 * - a deadline the system under test enforces (an upstream or webhook timeout) is set to
 *   `PATIENCE_MS` too, unless the test is about that deadline; then the slow side never answers (or
 *   blocks until the test releases it), so the deadline is certain to pass first.
 *
 * `PATIENCE_MS` stays well below vitest's testTimeout and hookTimeout (vitest.config.ts) so that a
 * wait that never ends fails with its own message rather than vitest's.
 */
export const PATIENCE_MS = 30_000;

/** Polls `check` until it passes (resolves), and answers what it resolved to; past `timeoutMs` its last error is thrown. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = PATIENCE_MS, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
