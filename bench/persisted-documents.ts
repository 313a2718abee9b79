/**
 * What trusted documents and APQ cost per request (gateway/README.md, "Trusted documents and
 * persisted queries"). Short by design: about half a minute.
 *
 *   npx tsx bench/persisted-documents.ts            (in-process APQ store)
 *   SVC_REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/persisted-documents.ts   (adds the Redis store)
 *
 * 1. The lookups alone, in a loop: the policy's check of a request (SHA-256 of the text and a map
 *    lookup, or the id's lookup), and one APQ store read (Apollo's in-process LRU; Redis when set).
 * 2. One listed query (`Changelog`, anonymous) over loopback HTTP with autocannon, 3 s per row after a
 *    1 s warm-up, sent as text, by documentId and by APQ hash: the difference between rows is what
 *    the lookup costs end to end. Autocannon runs in this process beside the server, so read the rows
 *    against each other, not as the gateway's capacity (that is bench/run.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createLogger, DEFAULT_APQ_SETTINGS, loadConfig } from '@svc/platform';
import { loadTrustedDocuments, persistedQueryStore, PORTAL_TRUSTED_DOCUMENTS, TrustedDocumentPolicy } from '@svc/gateway';
import { startSystem } from '../system.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function perOp(label: string, iterations: number, op: () => unknown): Promise<void> {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) await op();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await op();
  const ns = Number(process.hrtime.bigint() - start) / iterations;
  console.log(`| ${label} | ${ns < 10_000 ? `${(ns / 1000).toFixed(2)} µs` : `${(ns / 1000).toFixed(0)} µs`} |`);
}

const documents = loadTrustedDocuments([PORTAL_TRUSTED_DOCUMENTS]);
const manifest = JSON.parse(readFileSync(PORTAL_TRUSTED_DOCUMENTS, 'utf8')) as Record<string, string>;
const [changelogId, changelog] = Object.entries(manifest).find(([, text]) => text.startsWith('query Changelog'))!;
const dashboard = Object.values(manifest).find((text) => text.startsWith('query Dashboard'))!;
const policy = new TrustedDocumentPolicy(documents, { anonymous: 'require', portal: 'require', partner: 'allow', service: 'off' });
const anonymous = { kind: 'anonymous' } as const;

console.log('| lookup | per request |\n|---|---|');
await perOp(`policy, listed text (${changelog.length} characters)`, 200_000, () => policy.resolve({ query: changelog, documentId: undefined, persistedQuery: undefined }, anonymous));
await perOp(`policy, listed text (${dashboard.length} characters)`, 200_000, () => policy.resolve({ query: dashboard, documentId: undefined, persistedQuery: undefined }, anonymous));
await perOp('policy, documentId', 200_000, () => policy.resolve({ query: undefined, documentId: changelogId, persistedQuery: undefined }, anonymous));
await perOp('policy, APQ hash of a listed document', 200_000, () => policy.resolve({ query: undefined, documentId: undefined, persistedQuery: { version: 1, sha256Hash: changelogId } }, anonymous));
const memory = persistedQueryStore({ bounds: DEFAULT_APQ_SETTINGS, redisPrefix: 'bench', logger: createLogger({ logLevel: 'silent', role: 'gateway' }) });
const dashboardHash = sha256(dashboard);
await memory.set(dashboardHash, dashboard);
await perOp('APQ store read, in-process LRU', 200_000, () => memory.get(dashboardHash));
const redisUrl = process.env['SVC_REDIS_URL'];
if (redisUrl) {
  const redis = new Redis(redisUrl);
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const shared = persistedQueryStore({ bounds: DEFAULT_APQ_SETTINGS, redis, redisPrefix: prefix, logger: createLogger({ logLevel: 'silent', role: 'gateway' }) });
  await shared.set(dashboardHash, dashboard);
  await perOp('APQ store read, Redis (loopback round trip)', 5_000, () => shared.get(dashboardHash));
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-pd-'));
const system = await startSystem(loadConfig({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent', SVC_RATE_LIMITS: 'off', SVC_PORT: '0', SVC_INTERNAL_PORT: 'off', SVC_GRAPHQL_TRUSTED_DOCUMENTS: 'anonymous=require' }), {});
await system.app.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(system.app.server.address() as AddressInfo).port}/graphql`;
const rows: [string, unknown][] = [
  ['text (listed, hashed and checked)', { query: changelog }],
  ['documentId', { documentId: changelogId }],
  ['APQ hash (answered from the manifest)', { extensions: { persistedQuery: { version: 1, sha256Hash: changelogId } } }],
];
const run = (body: unknown, duration: number) =>
  autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), connections: 8, duration });
console.log('\n| Changelog over HTTP, 8 connections | requests/s | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|');
for (const [label, body] of rows) {
  await run(body, 1);
  const r = await run(body, 3);
  console.log(`| ${label} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} |`);
}
await system.stop();
rmSync(dir, { recursive: true, force: true });
