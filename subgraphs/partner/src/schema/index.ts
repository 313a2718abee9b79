import type { GraphQLSchema } from 'graphql';
import { type SubgraphServices, createSubgraphBuilder, SUBGRAPH_SCHEMA_OPTIONS } from '@svc/platform';
import { SigningKeyRing } from '../domain/signing-key-ring.js';
import { defineApiToken } from './api-token.js';
import { defineCredentialLookups } from './credential.js';
import { defineOAuthClient } from './oauth-client.js';
import { defineOAuthServer } from './oauth-server.js';
import { definePartner } from './partner.js';
import { definePartnerCredentials } from './partner-credentials.js';
import { definePartnerScopeGrant } from './partner-scope-grant.js';
import { definePortalAccount } from './portal-account.js';
import { defineRateLimitUsage } from './rate-limit-usage.js';
import { defineScopeRequests } from './scope-request.js';
import { defineRequestLog } from './request-log.js';
import { defineTokenRevocation } from './token-revocation.js';
import { defineViewer } from './viewer.js';
import { definePortalPasswordReset } from './portal-password-reset.js';
import { defineOnboardingLegalCertification, withCertificationObservation } from './onboarding-legal-certification.js';

/** The partner subgraph's federated schema. */
export function buildPartnerSchema(services: SubgraphServices): GraphQLSchema {
  const builder = createSubgraphBuilder();
  builder.mutationType({});
  const revocation = defineTokenRevocation(builder);
  const tokens = defineApiToken(builder, services, revocation);
  const partner = definePartner(builder, services, tokens);
  definePartnerScopeGrant(builder, services, partner);
  defineScopeRequests(builder, services);
  defineViewer(builder, services);
  definePortalPasswordReset(builder, services);
  defineOnboardingLegalCertification(builder, services, partner);
  defineCredentialLookups(builder);
  const oauthClient = defineOAuthClient(builder, services, revocation);
  const portalAccount = definePortalAccount(builder, services);
  definePartnerCredentials(builder, partner, { oauthClient, portalAccount });
  defineRateLimitUsage(builder, services, partner);
  defineRequestLog(builder);
  defineOAuthServer(builder, services, new SigningKeyRing(services.runtime.config.internalSecret, services.runtime.logger, services.publishCommitted));
  return withCertificationObservation(builder.toSubGraphSchema(SUBGRAPH_SCHEMA_OPTIONS), services);
}
