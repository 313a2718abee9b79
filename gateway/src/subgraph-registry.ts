import type { SubgraphDefinition } from '@svc/platform';
import { partnerSubgraph } from '@svc/partner';
import { identitySubgraph } from '@svc/identity';
import { fhirSubgraph } from '@svc/fhir';
import { pipelineSubgraph } from '@svc/pipeline';

/**
 * Every subgraph of the platform, as data. The gateway, `npm run compose`, supergraph.yaml and the
 * tests all read this one list.
 */
export const SUBGRAPHS: readonly SubgraphDefinition[] = [partnerSubgraph, identitySubgraph, fhirSubgraph, pipelineSubgraph];
