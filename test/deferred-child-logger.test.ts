import { describe, expect, it } from 'vitest';
import { deferredChild } from '@svc/platform';
import { memoryLogger } from './support/logs.js';

describe('deferredChild (the per-request logger of every server)', () => {
  it('writes what a pino child writes: its bindings, redaction, nested children and the parent level', async () => {
    const { lines, logger } = memoryLogger();
    const child = deferredChild(logger, { reqId: 'req-7' });
    child.debug('below the level');
    child.error({ headers: { authorization: 'Bearer s3cret' }, token: 'abc' }, 'boom');
    child.child({ step: 'parse' }).warn('nested');
    expect(child.level).toBe('info');
    expect(child.isLevelEnabled('debug')).toBe(false);
    expect(child.bindings()).toMatchObject({ reqId: 'req-7' });
    await new Promise((resolve) => setImmediate(resolve));
    const written = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(written).toHaveLength(2);
    expect(written[0]).toMatchObject({ level: 50, reqId: 'req-7', msg: 'boom', token: '[redacted]', headers: { authorization: '[redacted]' } });
    expect(written[1]).toMatchObject({ level: 40, reqId: 'req-7', step: 'parse', msg: 'nested' });
    expect(lines.join('\n')).not.toContain('s3cret');
  });

  it('makes no child for a line the level drops', () => {
    const { logger } = memoryLogger();
    let made = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof child>) => {
      made++;
      return child(...args);
    }) as typeof logger.child;
    const request = deferredChild(logger, { reqId: 'quiet' });
    request.debug('dropped');
    request.trace('dropped too');
    expect(made).toBe(0);
    request.info('kept');
    expect(made).toBe(1);
  });

  it('keeps each child its own bindings', async () => {
    const { lines, logger } = memoryLogger();
    const a = deferredChild(logger, { reqId: 'a' });
    const b = deferredChild(logger, { reqId: 'b' });
    b.info('second');
    a.info('first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((l) => (JSON.parse(l) as { reqId: string }).reqId)).toEqual(['b', 'a']);
  });

  it('gives a deferred child of a deferred child both bindings, whether the parent was made or not', async () => {
    const { lines, logger } = memoryLogger();
    const request = deferredChild(logger, { requestId: 'r1' });
    deferredChild(request, { partner: 'p1' }).warn('before the parent logged');
    request.info('the parent logs');
    deferredChild(request, { partner: 'p2', requestId: 'r2' }).warn('after the parent logged');
    await new Promise((resolve) => setImmediate(resolve));
    const written = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(written.map(({ requestId, partner, msg }) => ({ requestId, partner, msg }))).toEqual([
      { requestId: 'r1', partner: 'p1', msg: 'before the parent logged' },
      { requestId: 'r1', partner: undefined, msg: 'the parent logs' },
      { requestId: 'r2', partner: 'p2', msg: 'after the parent logged' },
    ]);
  });
});
