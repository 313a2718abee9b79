import type { Knex } from '@mikro-orm/knex';
import { DependencyUnavailable, knexOf, startJobThread, type JobThread, type SubgraphRuntime, type SubgraphServices } from '@svc/platform';
import { runFhirCall, startFhirJobs, type FhirJobs, type FhirOffload } from './jobs.js';
import type { FhirJobThreadData } from './job-thread.js';

/** The FHIR jobs of this process, started once the subgraph's database is ready. */
export interface FhirJobRunner extends FhirJobs {
  start(services: SubgraphServices): Promise<void>;
  /** Request work too heavy for the event loop (jobs.ts): on the job thread where there is one, else in place. */
  offload: FhirOffload;
}

/**
 * Where the durable jobs ($export, asynchronous submissions) and the heavy request work run:
 * - `all` (the embedded process): both on a job thread, so that they never hold up the event loop
 *   that serves requests;
 * - `subgraph:fhir` (distributed): the request work on a job thread of its own; no jobs, the
 *   `worker` role runs them;
 * - `worker`: the jobs in its own process (it serves no requests).
 *
 * The job thread loads its own copy of the FHIR engine (a few seconds of one core). In the embedded
 * process it starts with the first job or heavy request (at a submission, or at start when the
 * database holds unfinished jobs), so a store nobody submits jobs to never pays for it. A
 * `subgraph:fhir` process starts it with itself: it exists to serve these requests, and the first
 * one should not wait seconds for the thread.
 */
export function jobRunner(runtime: SubgraphRuntime): FhirJobRunner {
  const { config } = runtime;
  let services: SubgraphServices | undefined;
  if (config.role === 'all' || config.role === 'subgraph:fhir') {
    const runJobs = config.role === 'all';
    let thread: JobThread | undefined;
    const running = (): JobThread | undefined => {
      if (thread || !services) return thread;
      const { publishCommitted } = services;
      const data: FhirJobThreadData = { config, runJobs };
      thread = startJobThread({
        name: 'fhir-jobs',
        module: new URL('./job-thread.ts', import.meta.url).href,
        data,
        logger: runtime.logger,
        metrics: runtime.metrics,
        onMessage: (message) => {
          if (message.type === 'committed') publishCommitted();
        },
      });
      return thread;
    };
    return {
      start: async (s) => {
        services = s;
        if (!runJobs || (await hasJobs(knexOf(s.orm)))) running();
      },
      wakeSync: () => (runJobs ? running()?.post({ type: 'wake-sync' }) : undefined),
      wakeExport: () => (runJobs ? running()?.post({ type: 'wake-export' }) : undefined),
      offload: (name, payload) => {
        const ready = running();
        return ready ? ready.call(name, payload) : Promise.reject(new DependencyUnavailable('job thread fhir-jobs', new Error('the subgraph is not running')));
      },
      stop: async () => {
        services = undefined;
        await thread?.stop();
      },
    };
  }
  let jobs: FhirJobs | undefined;
  return {
    start: async (s) => {
      services = s;
      if (config.role === 'worker') jobs = startFhirJobs(() => s.orm.em.fork(), config, s.runtime.logger, s.publishCommitted);
    },
    wakeSync: () => jobs?.wakeSync(),
    wakeExport: () => jobs?.wakeExport(),
    offload: (name, payload) => {
      const s = services;
      return s ? runFhirCall(() => s.orm.em.fork(), config, name, payload) : Promise.reject(new DependencyUnavailable('fhir', new Error('the subgraph is not running')));
    },
    stop: async () => {
      services = undefined;
      await jobs?.stop();
    },
  };
}

/** Work for the job thread in the store: an unfinished sync job or $export. */
async function hasJobs(knex: Knex): Promise<boolean> {
  const [sync] = await knex('fhir_sync_jobs').select('id').whereIn('state', ['queued', 'running', 'retrying']).limit(1);
  const [exported] = await knex('fhir_export_jobs').select('id').whereIn('state', ['accepted', 'running']).limit(1);
  return sync !== undefined || exported !== undefined;
}
