import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { definitions } from './domain/definitions.js';
import { ExportWorker } from './domain/bulk-export.js';
import { SyncJobWorker } from './domain/sync-worker.js';
import { buildFhirSchema, type ExportWakeup, type SyncWakeup } from './schema/index.js';
import { IDENTITY_LINK_EVENT_TYPES, identityLinkConsumer } from './identity-link-consumer.js';
import { readEventLogOf } from './schema/read-event-log.js';

/** The FHIR R4 store: one generic engine for every R4 resource type, driven by the official definitions. */
export const fhirSubgraph: SubgraphDefinition = {
  name: 'fhir',
  defaultPort: 4103,
  create: (runtime) => {
    // Index the definitions at start, not on the first request.
    definitions();
    const wakeup: ExportWakeup = {};
    const syncWakeup: SyncWakeup = {};
    return assembleSubgraph(runtime, {
      name: 'fhir',
      entities: [],
      migrations,
      readers: runtime.config.sqliteReaders,
      buildSchema: (services) => buildFhirSchema(services, wakeup, syncWakeup),
      async startWorkers(services) {
        const { orm, runtime: rt, publishCommitted } = services;
        // The Bulk Data $export jobs (durable: resumed after a restart).
        const worker = new ExportWorker(() => orm.em.fork(), { ...rt.config.fhirExport, pollMs: 1000, singleProcess: rt.config.databaseUrl === undefined }, rt.logger.child({ worker: 'fhir-export' }));
        worker.start();
        wakeup.wake = () => worker.wake();
        // Asynchronous submissions (sync jobs): durable, resumed after a restart or taken over after a crash.
        const syncWorker = new SyncJobWorker(
          () => orm.em.fork(),
          { ...rt.config.fhirSync, pollMs: 1000, singleProcess: rt.config.databaseUrl === undefined, fhirBase: `${rt.config.publicUrl}/fhir/R4` },
          rt.logger.child({ worker: 'fhir-sync' }),
          publishCommitted,
        );
        syncWorker.start();
        syncWakeup.wake = () => syncWorker.wake();
        // The GPID identifier of Patients, from the identity subgraph's events (domain/identity-link.ts).
        const stopIdentityLink = rt.stream.consume('fhir-identity-link', identityLinkConsumer(services), { types: (type) => IDENTITY_LINK_EVENT_TYPES.has(type) });
        return async () => {
          await stopIdentityLink();
          wakeup.wake = undefined;
          syncWakeup.wake = undefined;
          await Promise.all([worker.stop(), syncWorker.stop(), readEventLogOf(services).close()]);
        };
      },
    });
  },
};
