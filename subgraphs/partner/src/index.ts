import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { ApiTokenEntity } from './entities/api-token.js';
import { PartnerEntity } from './entities/partner.js';
import { migrations } from './migrations/m001-partners-and-tokens.js';
import { buildPartnerSchema } from './schema/index.js';
import { ensureBootstrapOperator } from './domain/bootstrap-operator.js';

/** Partners, onboarding, credentials, legal documents, certification, SDK catalog. */
export const partnerSubgraph: SubgraphDefinition = {
  name: 'partner',
  defaultPort: 4101,
  create: (runtime) =>
    assembleSubgraph(runtime, {
      name: 'partner',
      entities: [PartnerEntity, ApiTokenEntity],
      migrations,
      buildSchema: buildPartnerSchema,
      async startWorkers({ orm, runtime: rt }) {
        if (rt.config.bootstrapToken) await ensureBootstrapOperator(orm.em.fork(), rt.config.bootstrapToken, rt.logger);
        return async () => {};
      },
    }),
};
