import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { DependencyHealth, isConnectionFailure } from './dependency-health.js';

function recorder() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { lines, logger };
}

describe('DependencyHealth', () => {
  it('logs one structured line per change of state, however often the same state is reported', async () => {
    const { lines, logger } = recorder();
    const health = new DependencyHealth(logger);
    let reachable = true;
    health.watch('redis', async () => reachable);
    expect(await health.checkAll(['redis'])).toEqual({ redis: true });
    reachable = false;
    for (let i = 0; i < 50; i++) health.down('redis', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
    expect(await health.checkAll(['redis'])).toEqual({ redis: false });
    reachable = true;
    expect(await health.check('redis')).toBe(true);
    health.up('redis');
    health.close();
    expect(lines.map((l) => [l['dependency'], l['state'], l['msg']])).toEqual([
      ['redis', 'down', 'dependency unavailable'],
      ['redis', 'up', 'dependency recovered'],
    ]);
    expect(lines[0]!['reason']).toBe('connect ECONNREFUSED 127.0.0.1:6379');
  });

  it('notices a recovery by itself while a dependency is down, without being asked', async () => {
    const { lines, logger } = recorder();
    const health = new DependencyHealth(logger);
    let reachable = false;
    health.watch('subgraph:fhir', async () => reachable);
    health.down('subgraph:fhir', new Error('fetch failed'));
    reachable = true;
    // The re-probe runs every second; a busy machine may delay it a good deal longer.
    const deadline = Date.now() + 30_000;
    while (lines.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    health.close();
    expect(lines.map((l) => l['state'])).toEqual(['down', 'up']);
  });

  it('lets the probe decide a recovery, so one connection back before the others does not log the outage twice', async () => {
    const { lines, logger } = recorder();
    const health = new DependencyHealth(logger);
    const connections = { limiter: true, bus: true };
    health.watch('redis', async () => connections.limiter && connections.bus);
    connections.limiter = connections.bus = false;
    health.down('redis', new Error('connect ECONNREFUSED'));
    connections.bus = true;
    health.up('redis'); // the bus's connection is back; the limiter's still waits out its back-off
    expect(await health.checkAll(['redis'])).toEqual({ redis: false });
    connections.limiter = true;
    health.up('redis');
    const deadline = Date.now() + 30_000;
    while (lines.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await health.checkAll(['redis'])).toEqual({ redis: true });
    health.close();
    expect(lines.map((l) => l['state'])).toEqual(['down', 'up']);
  });

  it('tells an unreachable service from a bug, through cause chains, and keeps credentials out of the reason', () => {
    expect(isConnectionFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionFailure(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '57P01' }) }))).toBe(true);
    expect(isConnectionFailure(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isConnectionFailure(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    const { lines, logger } = recorder();
    const health = new DependencyHealth(logger);
    health.down('database:partner', new Error('could not connect to postgres://svc:hunter2@db:5432/svc'));
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});
