/**
 * Event-to-webhook latency on loopback: how long from an event's creation (its `occurred_at`, set
 * in the transaction that commits it) to the moment a local Standard Webhooks receiver has the
 * signed delivery. Part of `npm run bench`; alone: `npm run bench -- --suite webhooks [--events 300] [--producers 1]`.
 *
 * Boots the embedded system (SQLite, in-process bus) with private receivers allowed, registers one
 * partner and one webhook for `pipeline.sync.completed`, and completes sync jobs through the public
 * GraphQL API, one after another by default (latency, not a saturated queue; more producers
 * measure the queue behind one endpoint's concurrency cap). The receiver verifies every delivery with the
 * `standardwebhooks` package and deduplicates by webhook-id. Records a section in RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '@svc/platform';
import { startSystem } from '../system.js';

const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const RESULTS_MARKER = '<!-- Newest results first; bench/run.ts inserts each run below this line. -->';

function argValue(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i === -1 ? fallback : Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1 || v > 100_000) throw new Error(`--${name} must be a positive integer`);
  return v;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function runWebhookLatencySuite(argv: readonly string[]): Promise<void> {
  const events = argValue(argv, 'events', 300);
  const PRODUCERS = argValue(argv, 'producers', 1);
  const loadBefore = os.loadavg();
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-webhooks-`);
  const token = `op_${randomBytes(24).toString('base64url')}`;
  const latencies: number[] = [];
  const seen = new Set<string>();
  let secret = '';
  let refused = 0;
  let done!: () => void;
  const allReceived = new Promise<void>((resolve) => (done = resolve));

  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch {
        refused++;
        res.writeHead(401).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      if (!seen.has(id)) {
        seen.add(id);
        latencies.push(at - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp));
        if (latencies.length === events) done();
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const config = loadConfig({ SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: token, SVC_DATA_DIR: dataDir, SVC_RATE_LIMITS: 'off', SVC_WEBHOOK_ALLOW_PRIVATE: 'true' });
  const system = await startSystem(config);
  await system.app.ready();
  const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await system.app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ query, variables }) });
    const body = res.json() as { data?: Record<string, Record<string, unknown>>; errors?: unknown };
    if (body.errors || !body.data) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  try {
    const gpid = String((await graphql('mutation { registerPartner(input: { legalName: "Bench Receiver", organizationType: "LABORATORY" }) { gpid } }'))['registerPartner']!['gpid']);
    const created = await graphql('mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { secret } }', { i: { partnerGpid: gpid, url: receiverUrl, eventTypes: ['pipeline.sync.completed'] } });
    secret = String(created['createWebhook']!['secret']);

    process.stderr.write(`webhook latency: ${events} events from ${PRODUCERS} producers …\n`);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: PRODUCERS }, async () => {
        while (next < events) {
          next++;
          const job = await graphql('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
          await graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 1) { status } }', { j: job['createSyncJob']!['jobId'] });
        }
      }),
    );
    await Promise.race([allReceived, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${latencies.length} of ${events} deliveries arrived`)), 120_000))]);
    const seconds = (Date.now() - started) / 1000;
    const sorted = [...latencies].sort((a, b) => a - b);
    const cpus = os.cpus();
    const section = [
      `## ${new Date().toISOString()} — event-to-webhook latency`,
      '',
      `- Machine: ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`,
      `- Load average before the run (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > cpus.length / 2 ? ' — the machine was busy with other work: treat these numbers as rough' : ''}`,
      `- ${events} \`pipeline.sync.completed\` events (${PRODUCERS} concurrent producer${PRODUCERS === 1 ? "" : "s"} over GraphQL, ${(events / seconds).toFixed(0)} events/s), one webhook, embedded SQLite, receiver on 127.0.0.1 verifying with \`standardwebhooks\``,
      `- Latency: from the event's \`occurred_at\` (set in the committing transaction) to the receiver holding the verified request: outbox relay → bus → intake (delivery row) → worker claim → signed POST`,
      '',
      '| Measurement | deliveries | p50 ms | p95 ms | p99 ms | max ms | refused signatures |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| Event-to-webhook, loopback | ${sorted.length} | ${percentile(sorted, 50)} | ${percentile(sorted, 95)} | ${percentile(sorted, 99)} | ${sorted.at(-1)} | ${refused} |`,
      '',
    ].join('\n');
    process.stdout.write(`\n${section}\n`);
    let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : `# Benchmark results\n\n${RESULTS_MARKER}\n`;
    const at = text.indexOf(RESULTS_MARKER);
    text = at === -1 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, at + RESULTS_MARKER.length)}\n\n${section}${text.slice(at + RESULTS_MARKER.length).replace(/^\n+/, '\n')}`;
    writeFileSync(RESULTS_FILE, `${text.trimEnd()}\n`);
  } finally {
    await system.stop();
    receiver.closeAllConnections();
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
