import type { GraphQLSchema } from 'graphql';
import { createSubgraphBuilder, type SubgraphServices, SUBGRAPH_SCHEMA_OPTIONS } from '@svc/platform';
import { capabilityStatement } from '../domain/capability-statement.js';
import { defineFhirInteractions } from './fhir-interactions.js';
import { defineBulkExport, type ExportWakeup } from './bulk-export.js';
import { defineTypedFhir } from './fhir-typed.js';
import { defineSyncJobs, type SyncWakeup } from './sync-jobs.js';
import { defineSharingRules } from './sharing-rules.js';
import { defineIdentityLink } from './identity-link.js';
import { defineWearables } from './wearables.js';
import { defineClearinghouse } from './clearinghouse.js';
import { defineAnalytics } from './analytics.js';
import { defineTefcaDocuments } from './tefca-documents.js';
import type { FhirOffload } from '../jobs.js';

export type { ExportWakeup, SyncWakeup };

/** The FHIR subgraph's federated schema. */
export function buildFhirSchema(services: SubgraphServices, exportWakeup: ExportWakeup = {}, syncWakeup: SyncWakeup = {}, offload: FhirOffload): GraphQLSchema {
  const builder = createSubgraphBuilder();
  builder.mutationType({});
  builder.queryFields((t) => ({
    fhirCapabilityStatement: t.field({
      type: 'JSONObject',
      description: 'The FHIR R4 CapabilityStatement (public, as /fhir/R4/metadata).',
      resolve: () => capabilityStatement(services.runtime.config.publicUrl),
    }),
  }));
  defineFhirInteractions(builder, services);
  defineBulkExport(builder, services, exportWakeup);
  defineSyncJobs(builder, services, syncWakeup, offload);
  defineWearables(builder, services, syncWakeup);
  const typed = defineTypedFhir(builder, services);
  defineSharingRules(builder);
  defineIdentityLink(builder, services, typed.get('Patient')!);
  defineClearinghouse(builder, services, offload);
  defineAnalytics(builder, services);
  defineTefcaDocuments(builder, services);
  return builder.toSubGraphSchema(SUBGRAPH_SCHEMA_OPTIONS);
}
