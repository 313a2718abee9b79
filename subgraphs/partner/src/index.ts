import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { ApiTokenEntity } from './entities/api-token.js';
import { PartnerEntity } from './entities/partner.js';
import { PortalAccountEntity } from './entities/portal-account.js';
import { PortalSessionEntity } from './entities/portal-session.js';
import { PortalPasswordResetEntity } from './entities/portal-password-reset.js';
import { LoginThrottleEntity } from './entities/login-throttle.js';
import { OAuthClientEntity } from './entities/oauth-client.js';
import { SigningKeyEntity } from './entities/signing-key.js';
import { ScopeRequestEntity } from './entities/scope-request.js';
import { UsedClientAssertionEntity } from './entities/client-assertion.js';
import { migrations } from './migrations/index.js';
import { buildPartnerSchema } from './schema/index.js';
import { ensureBootstrapOperator, revokeStoredBootstrapOperators } from './domain/bootstrap-operator.js';
import { ONBOARDING_LEGAL_CERTIFICATION_ENTITIES } from './entities/onboarding-legal-certification-entities.js';
import { certificationObserverFor } from './domain/certification-observations.js';
import { EVIDENCE_EVENT_TYPES } from './domain/certification-evidence-rules.js';

const EVIDENCE_TYPES: ReadonlySet<string> = new Set(EVIDENCE_EVENT_TYPES);
import { startRequestLogPruning } from './domain/request-log.js';

/** Partners, onboarding, credentials, legal documents, certification, SDK catalog. */
export const partnerSubgraph: SubgraphDefinition = {
  name: 'partner',
  defaultPort: 4101,
  create: (runtime) =>
    assembleSubgraph(runtime, {
      name: 'partner',
      entities: [
        PartnerEntity,
        ApiTokenEntity,
        PortalAccountEntity,
        PortalSessionEntity,
        PortalPasswordResetEntity,
        LoginThrottleEntity,
        OAuthClientEntity,
        SigningKeyEntity,
        UsedClientAssertionEntity,
        ScopeRequestEntity,
        ...ONBOARDING_LEGAL_CERTIFICATION_ENTITIES,
      ],
      migrations,
      buildSchema: buildPartnerSchema,
      async startWorkers(services) {
        const { orm, runtime: rt } = services;
        if (rt.config.bootstrapToken) await ensureBootstrapOperator(orm.em.fork(), rt.config.bootstrapToken, rt.logger);
        else if (rt.config.environment === 'production' && !rt.config.allowBootstrapInProduction) {
          if ((await revokeStoredBootstrapOperators(orm.em.fork(), rt.logger)) > 0) services.publishCommitted();
        }
        // Certification evidence from other components' events (idempotent by event id).
        const observer = certificationObserverFor(services);
        // In batches, and only the types that can be evidence: a FHIR ingest's events cost a few
        // statements per batch here, not one or more per event.
        const stopObserving = rt.stream.consume('certification', { batch: (events) => observer.onEvents(events) }, { types: (type) => EVIDENCE_TYPES.has(type) });
        // The request log stays within its bounds (SVC_REQUEST_LOG_RETENTION_HOURS, _MAX_PER_PARTNER).
        const stopPruning = startRequestLogPruning(() => orm.em.fork(), rt.config.requestLog, rt.logger);
        return () => {
          stopPruning();
          return stopObserving();
        };
      },
    }),
};
