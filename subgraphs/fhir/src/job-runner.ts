import type { Knex } from '@mikro-orm/knex';
import { DependencyUnavailable, knexOf, startJobThread, type JobThread, type SubgraphRuntime, type SubgraphServices } from '@svc/platform';
import { startFhirJobs, type FhirJobs } from './jobs.js';
import type { FhirJobThreadData } from './job-thread.js';

/** The FHIR jobs of this process, started once the subgraph's database is ready. */
export interface FhirJobRunner extends FhirJobs {
  start(services: SubgraphServices): Promise<void>;
  /** Run a request's heavy work on the job thread (see FhirOffload); absent where there is none. */
  call?<T>(name: string, payload: unknown): Promise<T>;
}

/**
 * Where the durable jobs ($export, asynchronous submissions) run: on a job thread in the embedded
 * process (`all`), so that they never hold up the event loop that serves requests; in the `worker`
 * role's own process in the distributed mode; never in a `subgraph:fhir` process, which only serves
 * requests (it enqueues jobs, a worker runs them).
 *
 * The job thread loads its own copy of the FHIR engine (a few seconds of one core), so it starts
 * with the first job: at a submission, or at start when the database holds unfinished jobs. A store
 * nobody submits jobs to never pays for it.
 */
export function jobRunner(runtime: SubgraphRuntime): FhirJobRunner {
  const { config } = runtime;
  if (config.role === 'all') {
    let services: SubgraphServices | undefined;
    let thread: JobThread | undefined;
    const running = (): JobThread | undefined => {
      if (thread || !services) return thread;
      const { publishCommitted } = services;
      const data: FhirJobThreadData = { config };
      thread = startJobThread({
        name: 'fhir-jobs',
        module: new URL('./job-thread.ts', import.meta.url).href,
        data,
        logger: runtime.logger,
        onMessage: (message) => {
          if (message.type === 'committed') publishCommitted();
        },
      });
      return thread;
    };
    return {
      start: async (s) => {
        services = s;
        if (await hasJobs(knexOf(s.orm))) running();
      },
      wakeSync: () => running()?.post({ type: 'wake-sync' }),
      wakeExport: () => running()?.post({ type: 'wake-export' }),
      call: <T>(name: string, payload: unknown): Promise<T> => {
        const ready = running();
        return ready ? ready.call<T>(name, payload) : Promise.reject(new DependencyUnavailable('job thread fhir-jobs', new Error('the subgraph is stopping')));
      },
      stop: async () => {
        services = undefined;
        await thread?.stop();
      },
    };
  }
  let jobs: FhirJobs | undefined;
  return {
    start: async ({ orm, runtime: rt, publishCommitted }) => {
      if (config.role === 'worker') jobs = startFhirJobs(() => orm.em.fork(), config, rt.logger, publishCommitted);
    },
    wakeSync: () => jobs?.wakeSync(),
    wakeExport: () => jobs?.wakeExport(),
    stop: async () => jobs?.stop(),
  };
}

/** Work for the job thread in the store: an unfinished sync job or $export. */
async function hasJobs(knex: Knex): Promise<boolean> {
  const [sync] = await knex('fhir_sync_jobs').select('id').whereIn('state', ['queued', 'running', 'retrying']).limit(1);
  const [exported] = await knex('fhir_export_jobs').select('id').whereIn('state', ['accepted', 'running']).limit(1);
  return sync !== undefined || exported !== undefined;
}
