import { describe, expect, it } from 'vitest';
import { RELEASE_HISTORY, latestRelease } from './release-history.js';

describe('release history', () => {
  it('lists the eleven releases of the spec, latest first, with ordered dates', () => {
    expect(RELEASE_HISTORY.map((release) => release.title)).toEqual([
      'v2.2.0', 'v2.1.0', 'v2.0.0', 'v1.9.0', 'v1.8.0', 'v1.7.1', 'v1.7.0', 'v1.6.0', 'v1.5.0', 'v1.4.x', 'v1.3.0 and earlier',
    ]);
    const dates = RELEASE_HISTORY.map((release) => release.released_at);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(new Set(dates).size).toBe(dates.length);
    expect(RELEASE_HISTORY.find((release) => release.version === 'v2.0.0')?.released_at).toBe('2026-06-12');
    expect(latestRelease().version).toBe('v2.2.0');
    expect(latestRelease().content).toContain('BAA e-sign');
    expect(latestRelease().highlights).toContain('Changelog RSS');
  });
});
