import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { migrations } from './migrations/index.js';
import { definitions } from './domain/definitions.js';
import { buildFhirSchema } from './schema/index.js';

/** The FHIR R4 store: one generic engine for every R4 resource type, driven by the official definitions. */
export const fhirSubgraph: SubgraphDefinition = {
  name: 'fhir',
  defaultPort: 4103,
  create: (runtime) => {
    // Index the definitions at start, not on the first request.
    definitions();
    return assembleSubgraph(runtime, { name: 'fhir', entities: [], migrations, buildSchema: buildFhirSchema });
  },
};
