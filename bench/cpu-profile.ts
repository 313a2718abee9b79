/**
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and ranks where the time went: self time per
 * function, and per package (`node_modules/<pkg>`, `node:` internals, our own folders).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileLine {
  name: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleShare: number;
  functions: ProfileLine[];
  packages: ProfileLine[];
}

function where(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  const ours = /\/(gateway|platform|bench|rest-facade|subgraphs\/[^/]+)\/(?:src\/)?/.exec(url);
  return ours ? `(ours) ${ours[1]}` : url.replace(/^file:\/\//, '');
}

function shortUrl(url: string): string {
  const nm = /node_modules\/(.*)$/.exec(url);
  if (nm) return nm[1]!;
  return url.replace(/^file:\/\/.*?\/(gateway|platform|bench|rest-facade|subgraphs)\//, '$1/');
}

/** `skipMs`: leave out the first milliseconds of the profile (the process's start-up). */
export function summarizeProfile(file: string, top = 25, skipMs = 0): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Self time per node from the samples and their time deltas (more exact than hitCount × interval).
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let elapsedUs = 0;
  for (let i = 0; i < samples.length; i++) {
    elapsedUs += deltas[i] ?? 0;
    if (elapsedUs < skipMs * 1000) continue;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') idleUs += us;
    const fn = `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    const pkg = functionName.startsWith('(') && !url ? functionName : where(url);
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: us / totalUs }));
  return { totalMs: totalUs / 1000, idleShare: idleUs / totalUs, functions: rank(functions), packages: rank(packages) };
}

export function profileMarkdown(summary: ProfileSummary, topFunctions = 25, topPackages = 15): string {
  const pct = (s: number) => `${(s * 100).toFixed(1)}%`;
  return [
    `Sampled ${(summary.totalMs / 1000).toFixed(1)} s, idle ${pct(summary.idleShare)}.`,
    '',
    '| Self time by package | ms | share |',
    '|---|---:|---:|',
    ...summary.packages.slice(0, topPackages).map((l) => `| ${l.name} | ${l.selfMs.toFixed(0)} | ${pct(l.share)} |`),
    '',
    '| Self time by function | ms | share |',
    '|---|---:|---:|',
    ...summary.functions.slice(0, topFunctions).map((l) => `| \`${l.name.replace(/\|/g, '\\|')}\` | ${l.selfMs.toFixed(0)} | ${pct(l.share)} |`),
    '',
  ].join('\n');
}

if (process.argv[1] && /cpu-profile\.ts$/.test(process.argv[1]) && process.argv[2]) {
  process.stdout.write(profileMarkdown(summarizeProfile(process.argv[2], 40), 40, 25));
}
