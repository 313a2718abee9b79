import type { TestSystem } from './system.js';

/** Sum of svc_db_queries_total for one owner, table and verb, read from GET /metrics on the internal listener. */
export async function queryCount(t: TestSystem, owner: string, table: string, verb = 'select'): Promise<number> {
  const res = await t.system.internalApp!.inject({ url: '/metrics' });
  const line = res.body
    .split('\n')
    .find((l) => l.startsWith('svc_db_queries_total{') && l.includes(`owner="${owner}"`) && l.includes(`table="${table}"`) && l.includes(`verb="${verb}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Calls a job thread answered (svc_job_thread_call_duration_seconds_count), by thread, call and outcome. */
export async function jobThreadCalls(t: TestSystem, thread: string, call: string, outcome = 'ok'): Promise<number> {
  const res = await t.system.internalApp!.inject({ url: '/metrics' });
  const line = res.body
    .split('\n')
    .find((l) => l.startsWith('svc_job_thread_call_duration_seconds_count{') && l.includes(`thread="${thread}"`) && l.includes(`call="${call}"`) && l.includes(`outcome="${outcome}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
