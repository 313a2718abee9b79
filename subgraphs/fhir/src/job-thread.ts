import { contextFromTraceparent, createLogger, openDatabase, outboxEntity, startTracing, withContext, type Config, type JobThreadHost } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { FHIR_CALL_NAMES, runFhirCall, startFhirJobs, type FhirCallName, type FhirJobs, type FhirThreadCalls } from './jobs.js';
import { definitions } from './domain/definitions.js';

/** What the main thread gives the FHIR job thread. */
export interface FhirJobThreadData {
  config: Config;
  /** Run the durable jobs here (the embedded process), or only answer request work (`subgraph:fhir`). */
  runJobs: boolean;
}

/**
 * The FHIR subgraph's job thread, with its own connection to the subgraph's database (see
 * platform/src/jobs/README.md). It answers the request work of jobs.ts (`JobThread.call`) and, in
 * the embedded process, runs the background jobs (asynchronous submissions and $export): the main
 * thread wakes them after a submission (`wake-sync`, `wake-export`); the thread tells it when it
 * committed events to publish (`committed`).
 */
export async function runJobThread(host: JobThreadHost<FhirJobThreadData>): Promise<() => Promise<void>> {
  const { config, runJobs } = host.data;
  const logger = createLogger(config, host.logDestination).child({ subgraph: 'fhir' });
  // Tracing on: the thread exports its own spans (job runs, their statements and events, the calls'
  // statements) to the same collector. Started before the database, whose statements it wraps.
  const tracing = await startTracing(config.tracing);
  // Index the definitions before the first job needs them, as the main thread does at start.
  definitions();
  const orm = await openDatabase({ config, owner: 'fhir', entities: [outboxEntity('fhir')], migrations, logger, secondary: true });
  const publish = () => host.send({ type: 'committed' });
  const jobs: FhirJobs | undefined = runJobs ? startFhirJobs(() => orm.em.fork(), config, logger, publish) : undefined;
  for (const name of FHIR_CALL_NAMES) {
    host.onCall(name, async (payload, traceparent) => {
      const run = () => runFhirCall(() => orm.em.fork(), config, name, payload as FhirThreadCalls[FhirCallName][0]);
      const result = await (traceparent ? withContext(contextFromTraceparent(traceparent), run) : run());
      if (name !== 'check-submission') publish();
      return result;
    });
  }
  host.onMessage((message) => {
    if (message.type === 'wake-sync') jobs?.wakeSync();
    else if (message.type === 'wake-export') jobs?.wakeExport();
  });
  return async () => {
    await jobs?.stop();
    await orm.close();
    // Last: what the stop itself did is exported too.
    await tracing?.shutdown().catch(() => undefined);
  };
}
