import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { definitions } from './domain/definitions.js';
import { ExportWorker } from './domain/bulk-export.js';
import { identityLinkConsumer } from './identity-link-consumer.js';
import { buildFhirSchema, type ExportWakeup } from './schema/index.js';

/** The FHIR R4 store: one generic engine for every R4 resource type, driven by the official definitions. */
export const fhirSubgraph: SubgraphDefinition = {
  name: 'fhir',
  defaultPort: 4103,
  create: (runtime) => {
    // Index the definitions at start, not on the first request.
    definitions();
    const wakeup: ExportWakeup = {};
    return assembleSubgraph(runtime, {
      name: 'fhir',
      entities: [],
      migrations,
      buildSchema: (services) => buildFhirSchema(services, wakeup),
      async startWorkers(services) {
        const { orm, runtime: rt } = services;
        // The Bulk Data $export jobs (durable: resumed after a restart).
        const worker = new ExportWorker(() => orm.em.fork(), { ...rt.config.fhirExport, pollMs: 1000, singleProcess: rt.config.databaseUrl === undefined }, rt.logger.child({ worker: 'fhir-export' }));
        worker.start();
        wakeup.wake = () => worker.wake();
        // The GPID identifier of Patients, from the identity subgraph's events (domain/identity-link.ts).
        const onIdentityEvent = identityLinkConsumer(services);
        const stopIdentityLink = rt.bus.subscribe(onIdentityEvent);
        return async () => {
          stopIdentityLink();
          wakeup.wake = undefined;
          await worker.stop();
        };
      },
    });
  },
};
