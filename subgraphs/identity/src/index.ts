import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { IdentityRecordEntity } from './entities/identity-record.js';
import { migrations } from './migrations/m001-identity-records.js';
import { buildIdentitySchema } from './schema/index.js';

/** The GPID registry: match, resolve, get, merge and split. */
export const identitySubgraph: SubgraphDefinition = {
  name: 'identity',
  defaultPort: 4102,
  create: (runtime) =>
    assembleSubgraph(runtime, {
      name: 'identity',
      entities: [IdentityRecordEntity],
      migrations,
      buildSchema: buildIdentitySchema,
    }),
};
