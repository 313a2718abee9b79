import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { definitions } from './domain/definitions.js';
import { jobRunner } from './job-runner.js';
import { buildFhirSchema, type ExportWakeup, type SyncWakeup } from './schema/index.js';
import { IDENTITY_LINK_EVENT_TYPES, identityLinkBatchConsumer } from './identity-link-consumer.js';
import { readEventLogOf } from './schema/read-event-log.js';
import { ExportSweeper } from './domain/bulk-export.js';

/** The FHIR R4 store: one generic engine for every R4 resource type, driven by the official definitions. */
export const fhirSubgraph: SubgraphDefinition = {
  name: 'fhir',
  defaultPort: 4103,
  create: (runtime) => {
    // Index the definitions at start, not on the first request.
    definitions();
    const wakeup: ExportWakeup = {};
    const syncWakeup: SyncWakeup = {};
    const jobs = jobRunner(runtime);
    return assembleSubgraph(runtime, {
      name: 'fhir',
      entities: [],
      migrations,
      readers: runtime.config.sqliteReaders,
      buildSchema: (services) => buildFhirSchema(services, wakeup, syncWakeup, jobs.offload),
      async startWorkers(services) {
        const { runtime: rt } = services;
        await jobs.start(services);
        // Expired $export output is deleted where jobs are run (the embedded process, the worker).
        const sweeper = rt.config.role === 'all' || rt.config.role === 'worker' ? new ExportSweeper(() => services.orm.em.fork(), rt.config.fhirExport.expirySeconds, rt.logger.child({ worker: 'fhir-export' })) : undefined;
        wakeup.wake = () => jobs.wakeExport();
        syncWakeup.wake = () => jobs.wakeSync();
        // The GPID identifier of Patients, from the identity subgraph's events (domain/identity-link.ts).
        const stopIdentityLink = rt.stream.consume('fhir-identity-link', identityLinkBatchConsumer(services), { types: (type) => IDENTITY_LINK_EVENT_TYPES.has(type) });
        return async () => {
          await stopIdentityLink();
          wakeup.wake = undefined;
          syncWakeup.wake = undefined;
          await Promise.all([jobs.stop(), sweeper?.stop(), readEventLogOf(services).close()]);
        };
      },
    });
  },
};
