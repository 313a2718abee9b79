import { createLogger, openDatabase, outboxEntity, type Config, type JobThreadHost } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { runSubmitClaims, startFhirJobs, type ClaimsCall } from './jobs.js';
import { definitions } from './domain/definitions.js';

/** What the main thread gives the FHIR job thread. */
export interface FhirJobThreadData {
  config: Config;
}

/**
 * The FHIR subgraph's background jobs (asynchronous submissions and $export) on a worker thread of
 * the embedded process, with their own connection to the subgraph's database: see
 * platform/src/jobs/README.md. The main thread wakes them after a submission (`wake-sync`,
 * `wake-export`); they tell it when they committed events to publish (`committed`).
 */
export async function runJobThread(host: JobThreadHost<FhirJobThreadData>): Promise<() => Promise<void>> {
  const { config } = host.data;
  const logger = createLogger(config, host.logDestination).child({ subgraph: 'fhir' });
  // Index the definitions before the first job needs them, as the main thread does at start.
  definitions();
  const orm = await openDatabase({ config, owner: 'fhir', entities: [outboxEntity('fhir')], migrations, logger, secondary: true });
  const jobs = startFhirJobs(() => orm.em.fork(), config, logger, () => host.send({ type: 'committed' }));
  host.onCall('submit-claims', async (payload) => {
    const result = await runSubmitClaims(() => orm.em.fork(), config, payload as ClaimsCall);
    host.send({ type: 'committed' });
    return result;
  });
  host.onMessage((message) => {
    if (message.type === 'wake-sync') jobs.wakeSync();
    else if (message.type === 'wake-export') jobs.wakeExport();
  });
  return async () => {
    await jobs.stop();
    await orm.close();
  };
}
