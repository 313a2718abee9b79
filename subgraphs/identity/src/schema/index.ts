import type { GraphQLSchema } from 'graphql';
import { createSubgraphBuilder, SUBGRAPH_SCHEMA_OPTIONS } from '@svc/platform';
import type { IdentityService } from '../identity-service.js';
import { defineAudit } from './audit.js';
import { defineAuditEntry, defineChanges } from './changes.js';
import { defineIdentity, defineIdentityEnums, identityLoaders } from './identity.js';
import { defineMatchAndResolve } from './match-resolve.js';
import { defineFhirPatientMatch } from './fhir-patient-match.js';
import { defineReview } from './review.js';
import { defineTefcaDiscovery } from './tefca-discovery.js';
import { defineScoringModel } from './scoring-model.js';

/** The identity subgraph's federated schema. */
export function buildIdentitySchema(service: IdentityService): GraphQLSchema {
  const builder = createSubgraphBuilder();
  builder.mutationType({});
  const loaders = identityLoaders(service);
  const enums = defineIdentityEnums(builder);
  const IdentityType = defineIdentity(builder, service, loaders, enums);
  defineMatchAndResolve(builder, service, loaders, enums, IdentityType);
  defineFhirPatientMatch(builder, service, enums);
  const AuditEntry = defineAuditEntry(builder);
  const ChangeRequestType = defineChanges(builder, service, loaders, IdentityType, AuditEntry);
  defineReview(builder, service, loaders, enums, IdentityType, ChangeRequestType);
  defineAudit(builder, service, AuditEntry);
  defineTefcaDiscovery(builder, service);
  defineScoringModel(builder, service);
  return builder.toSubGraphSchema(SUBGRAPH_SCHEMA_OPTIONS);
}
