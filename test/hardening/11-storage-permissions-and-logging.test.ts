import { chmodSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';
import { memoryLogger } from '../support/logs.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from '../support/databases.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;
/** better-sqlite3 (no type declarations in the project), for reading a file's own settings. */
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options: { readonly: boolean }) => { pragma(name: string, options: { simple: true }): unknown; close(): void };

describe('files on disk are owner-only', () => {
  let base: TestStorage;
  let dataDir: string;
  let storage: TestStorage;
  let previousUmask: number;

  beforeAll(async () => {
    // The usual umask, under which files were created world-readable (0644) before.
    previousUmask = process.umask(0o022);
    base = await freshStorage();
    dataDir = join(base.env['SVC_DATA_DIR']!, 'nested', 'data');
    storage = { env: { ...base.env, SVC_DATA_DIR: dataDir }, dispose: () => base.dispose() };
  });
  afterAll(async () => {
    process.umask(previousUmask);
    await base?.dispose();
  });

  it('creates the data directory 0700, every SQLite file and the fingerprint key 0600, and tightens them on a restart', async () => {
    const first = await bootSystem({}, { storage });
    // Writes make SQLite create its -wal and -shm files.
    await first.graphql('mutation { registerPartner(input: { legalName: "Private Files Health", organizationType: "PAYER" }) { gpid } }');
    const sqlite = readdirSync(dataDir).filter((f) => /\.sqlite(-wal|-shm)?$/.test(f));
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      expect(modeOf(join(dataDir, 'identity-fingerprint.key'))).toBe(0o600);
      if (USE_POSTGRES) {
        expect(sqlite).toEqual([]);
      } else {
        expect(sqlite).toEqual(expect.arrayContaining(['partner.sqlite', 'identity.sqlite', 'fhir.sqlite', 'pipeline.sqlite', 'partner.sqlite-wal', 'partner.sqlite-shm']));
      }
      // Checked while running: a clean shutdown checkpoints and removes the -wal and -shm files.
      for (const file of sqlite) expect(modeOf(join(dataDir, file)), file).toBe(0o600);
    } finally {
      await first.close();
    }

    // Files left world-readable (by an earlier version) are tightened at the next start.
    const left = readdirSync(dataDir).filter((f) => /\.sqlite$|\.key$/.test(f));
    for (const file of left) chmodSync(join(dataDir, file), 0o644);
    const second = await bootSystem({}, { storage });
    try {
      for (const file of readdirSync(dataDir).filter((f) => /\.sqlite(-wal|-shm)?$|\.key$/.test(f))) expect(modeOf(join(dataDir, file)), file).toBe(0o600);
    } finally {
      await second.close();
    }
  });

  it.runIf(!USE_POSTGRES)('creates each SQLite file with 16 KiB pages (fewer, larger WAL frames per commit)', () => {
    for (const file of readdirSync(dataDir).filter((f) => f.endsWith('.sqlite'))) {
      const db = new Database(join(dataDir, file), { readonly: true });
      try {
        expect(db.pragma('page_size', { simple: true }), file).toBe(16384);
      } finally {
        db.close();
      }
    }
  });
});

describe('an expected client error (gone, invalid body) is no server error: no error line, no stack trace', () => {
  const { lines: written, logger } = memoryLogger();
  const lines = () => written.map((l) => JSON.parse(l) as Record<string, unknown>);
  let sys: TestSystem;
  beforeAll(async () => {
    sys = await bootSystem({}, { logger });
  });
  afterAll(() => sys?.close());

  it('logs only the request lines, at info, for every call that the client got wrong', async () => {
    for (const [method, url, status] of [['POST', '/tefca/v1/patient-discovery', 410], ['POST', '/tefca/xca/retrieve', 422], ['POST', '/analytics/v1/query/nl', 422]] as const) {
      const res = await sys.request({ method, url, body: {} });
      expect(res.statusCode).toBe(status);
      const requestId = res.headers['x-request-id'];
      const logged = lines().filter((l) => l['requestId'] === requestId);
      // Fastify's two request lines (besides the audit line an operator credential's use may write).
      const requestLines = logged.filter((l) => l['msg'] !== 'operator credential used');
      expect(requestLines.map((l) => l['msg'])).toEqual(['incoming request', 'request completed']);
      expect(requestLines[1]).toMatchObject({ res: { statusCode: status } });
      for (const line of logged) {
        if (line['msg'] !== 'operator credential used') expect(line['level']).toBe(30);
        expect(JSON.stringify(line)).not.toContain('stack');
      }
    }
    expect(lines().filter((l) => Number(l['level']) >= 50)).toEqual([]);
  });
});
