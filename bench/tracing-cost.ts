/**
 * What OpenTelemetry tracing costs the gateway, per request:
 *
 *   npm run bench -- --suite tracing [--duration 10] [--connections 20] [--rounds 3]
 *
 * Four gateways of ours (SVC_ROLE=gateway, each in its own process) over the same two minimal
 * in-memory Apollo subgraphs as the gateway suite (bench/minimal-subgraphs.ts): tracing off (no
 * OTEL_* variable: the SDK is never loaded), tracing on with sampling 0
 * (`OTEL_TRACES_SAMPLER=traceidratio`, `OTEL_TRACES_SAMPLER_ARG=0`: the SDK runs, every span is
 * decided against and dropped), and on with sampling 1 (`always_on`: every span recorded and
 * exported over OTLP/HTTP JSON to a receiver in this process that reads and discards the
 * exports). Rows: each gateway with the single-subgraph and the cross-subgraph query, interleaved
 * round by round; the gateway's CPU per request is read from /proc (bench/process-cpu.ts), which
 * other work on the machine distorts far less than req/s. The ratios to the row with tracing off
 * are the cost. Records a dated section in bench/RESULTS.md.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { ChildRunner } from './child.js';
import type { LoadRun, LoadSpec } from './load.js';
import { MINIMAL_CROSS_QUERY, MINIMAL_SINGLE_QUERY } from './minimal-subgraphs.js';
import { check, machine, measureRounds, median, parseArgs, record, startMinimalSubgraphs, startOurGateway, WARMUP_SECONDS, type Processes, type Row, type Stats } from './gateway-compare.js';

const VARIANTS = [
  { key: 'off', label: 'tracing off', env: {} },
  { key: 'ratio0', label: 'tracing on, sampling 0 (traceidratio, arg 0)', env: { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' } },
  { key: 'always-off', label: 'tracing on, sampler always_off', env: { OTEL_TRACES_SAMPLER: 'always_off' } },
  { key: 'on', label: 'tracing on, sampling 1 (always_on), exported', env: { OTEL_TRACES_SAMPLER: 'always_on' } },
] as const;

export async function runTracingSuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const loadBefore = os.loadavg();
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-gw-tracing-'));
  const stops: (() => Promise<void>)[] = [];
  // The collector: reads every export and answers 200 (its CPU is this process's, not the gateway's).
  let exports = 0;
  let exportedBytes = 0;
  const collector = createServer((req, res) => {
    req.on('data', (c: Buffer) => (exportedBytes += c.length));
    req.on('end', () => {
      exports += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise((resolve) => collector.close(() => resolve())));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  try {
    const { subgraphs, supergraphFile } = await startMinimalSubgraphs(dir, stops);
    const rows: Row[] = [];
    for (const variant of VARIANTS) {
      const env: Record<string, string> = variant.key === 'off' ? {} : { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, ...variant.env };
      const gateway = await startOurGateway(supergraphFile, mkdtempSync(join(dir, `${variant.key}-`)), { ...options, profile: false }, env);
      stops.push(() => gateway.stop());
      rows.push({ key: `${variant.key}-single`, label: `${variant.label}, single-subgraph query`, url: gateway.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: gateway.pid });
      rows.push({ key: `${variant.key}-cross`, label: `${variant.label}, cross-subgraph query`, url: gateway.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: gateway.pid });
    }
    const load = new ChildRunner<LoadSpec, LoadRun>(new URL('./load.ts', import.meta.url), 'load generator');
    stops.push(() => load.close());
    const processes: Processes = { subgraphs: [subgraphs.partners.pid, subgraphs.pipeline.pid], load: load.pid };
    for (const row of rows) await check(row);
    const results = await measureRounds(load, rows, processes, options, (s) => `gateway CPU ${s.cpu.gateway.toFixed(3)} ms/req`);
    const loadAfter = os.loadavg();
    for (const stop of stops.reverse().splice(0)) await stop();
    /** The rounds of a row by the gateway's CPU per request (the quantity compared here), least first. */
    const rounds = (key: string) => [...(results.get(key) ?? [])].sort((a, b) => a.cpu.gateway - b.cpu.gateway);
    const byCpu = (key: string) => rounds(key)[Math.floor(rounds(key).length / 2)] ?? median(results.get(key) ?? []);
    /** The least disturbed round: on a machine shared with other work, the closest to the work's own cost. */
    const least = (key: string) => rounds(key)[0]?.cpu.gateway ?? Number.NaN;
    const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : '–');
    const lines = [
      `## Tracing cost at the gateway, ${new Date().toISOString()}`,
      '',
      `- Command: \`npm run bench -- --suite tracing --duration ${options.duration} --connections ${options.connections} --rounds ${options.rounds}\``,
      `- Machine: ${machine()}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — busy with other work: compare the ratios of this run, not absolute numbers' : ''}`,
      `- ${options.duration} s per row after a ${WARMUP_SECONDS} s warm-up, ${options.rounds} round(s) interleaved (the median round by gateway CPU, and the least one: on a machine shared with other work, the round other work disturbed least); four gateways of ours in their own processes over the same two minimal subgraphs; with tracing on they export OTLP/HTTP JSON to a receiver in the benchmark's process (${exports} exports, ${(exportedBytes / 1024 ** 2).toFixed(1)} MiB in all)`,
      '',
      '| Row | req/s | p50 ms | p99 ms | non-2xx | gateway CPU ms/req, median round | × tracing off | gateway CPU ms/req, least round | × tracing off |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => {
        const v = byCpu(r.key);
        const off = r.cross ? 'off-cross' : 'off-single';
        return `| ${r.label} | ${v.rps.toFixed(0)} | ${v.p50.toFixed(1)} | ${v.p99.toFixed(1)} | ${v.non2xx} | ${v.cpu.gateway.toFixed(3)} | ${ratio(v.cpu.gateway, byCpu(off).cpu.gateway)} | ${least(r.key).toFixed(3)} | ${ratio(least(r.key), least(off))} |`;
      }),
      '',
      `Every round of each row, gateway CPU ms/req: ${rows.map((r) => `${r.key} ${(results.get(r.key) ?? []).map((v) => v.cpu.gateway.toFixed(3)).join(' / ')}`).join('; ')}.`,
      '',
    ];
    const section = lines.join('\n');
    process.stdout.write(`\n${section}\n`);
    if (options.record) record(section);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
