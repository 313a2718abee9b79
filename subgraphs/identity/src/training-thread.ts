import { createLogger, openDatabase, type Config, type JobThreadHost } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { Sql } from './entities/sql.js';
import { trainOnRegistry, type TrainingCall } from './training.js';

/** What the main thread gives the identity training thread. */
export interface TrainingThreadData {
  config: Config;
}

/**
 * The identity subgraph's training thread (see platform/src/jobs/README.md): it answers `train`
 * calls with its own connection to the registry, so that reading up to 200,000 records and running
 * EM over them uses another core instead of the event loop that resolves identities.
 */
export async function runJobThread(host: JobThreadHost<TrainingThreadData>): Promise<() => Promise<void>> {
  const { config } = host.data;
  const logger = createLogger(config, host.logDestination).child({ subgraph: 'identity' });
  const orm = await openDatabase({ config, owner: 'identity', entities: [], migrations, logger, secondary: true });
  const sql = Sql.of(orm);
  host.onCall('train', (payload) => trainOnRegistry(sql, payload as TrainingCall));
  return () => orm.close();
}
