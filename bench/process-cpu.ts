/**
 * CPU time (user + system) that processes have used so far, in milliseconds, from /proc (Linux;
 * NaN elsewhere). Divided by the requests of a row it gives a process's CPU time per request,
 * which other work on the machine distorts far less than req/s.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

function ownCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** One process's CPU time; with `tree`, its living descendants' too (node:cluster workers). */
export function cpuMsOf(pid: number | undefined, tree = false): number {
  if (pid === undefined) return Number.NaN;
  try {
    return ownCpuMs(pid) + (tree ? childrenOf(pid).reduce((sum, child) => sum + cpuMsOf(child, true), 0) : 0);
  } catch {
    return Number.NaN;
  }
}
