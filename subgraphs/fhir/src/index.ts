import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { migrations } from './migrations/m001-outbox.js';
import { buildFhirSchema } from './schema/index.js';

/** The FHIR R4 store: search, read, create, update, bundles, $export. */
export const fhirSubgraph: SubgraphDefinition = {
  name: 'fhir',
  defaultPort: 4103,
  create: (runtime) =>
    assembleSubgraph(runtime, { name: 'fhir', entities: [], migrations, buildSchema: buildFhirSchema }),
};
