/**
 * Two minimal in-memory Apollo subgraphs, the yardstick of the gateway comparison
 * (bench/gateway-compare.ts) and of any bench that compares our subgraphs with a plain one:
 *
 * - `partners`: `partners(first:)` over 50 in-memory partners, a connection shaped like ours
 *   (`edges { node { gpid legalName } }`), `Partner @key(fields: "gpid")`;
 * - `pipeline`: `Partner.syncJobs` as an entity extension, 2 sync jobs per partner.
 *
 * Each is stock `@apollo/subgraph` (buildSubgraphSchema) served by `@apollo/server`'s standalone
 * server with its default settings: nothing of ours, so that what it costs is what Apollo costs.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { parse, type GraphQLSchema } from 'graphql';
import { composeSupergraph } from '../gateway/src/compose.js';

export const MINIMAL_PARTNERS = 50;
export const MINIMAL_JOBS_PER_PARTNER = 2;

export type MinimalSubgraphName = 'partners' | 'pipeline';
export const MINIMAL_SUBGRAPHS: readonly MinimalSubgraphName[] = ['partners', 'pipeline'];

/** Answered by the partners subgraph alone. */
export const MINIMAL_SINGLE_QUERY = `{ partners(first: ${MINIMAL_PARTNERS}) { edges { node { gpid legalName } } } }`;
/** Partners from one subgraph, their sync jobs from the other (one batched entity fetch). */
export const MINIMAL_CROSS_QUERY = `{ partners(first: ${MINIMAL_PARTNERS}) { edges { node { gpid legalName syncJobs { jobId status } } } } }`;

const FEDERATION = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])';

interface PartnerRow {
  gpid: string;
  legalName: string;
}

const PARTNERS: readonly PartnerRow[] = Array.from({ length: MINIMAL_PARTNERS }, (_, i) => ({
  gpid: `gpid-${String(i + 1).padStart(4, '0')}`,
  legalName: `Partner Health System ${i + 1}`,
}));

const STATUSES = ['completed', 'running', 'failed'] as const;

function partnersSchema(): GraphQLSchema {
  return buildSubgraphSchema({
    typeDefs: parse(`${FEDERATION}
      type Query { partners(first: Int = 20): PartnerConnection! }
      type PartnerConnection { edges: [PartnerEdge!]! }
      type PartnerEdge { node: Partner! }
      type Partner @key(fields: "gpid") { gpid: ID! legalName: String! }`),
    resolvers: {
      Query: { partners: (_: unknown, args: { first?: number | null }) => ({ edges: PARTNERS.slice(0, Math.max(0, args.first ?? 20)).map((node) => ({ node })) }) },
      Partner: { __resolveReference: (ref: { gpid: string }) => PARTNERS.find((p) => p.gpid === ref.gpid) ?? null },
    },
  });
}

function pipelineSchema(): GraphQLSchema {
  return buildSubgraphSchema({
    typeDefs: parse(`${FEDERATION}
      type Partner @key(fields: "gpid") { gpid: ID! syncJobs: [SyncJob!]! }
      type SyncJob { jobId: ID! status: String! }
      type Query { syncJob(jobId: ID!): SyncJob }`),
    resolvers: {
      Query: { syncJob: (_: unknown, args: { jobId: string }) => ({ jobId: args.jobId, status: 'completed' }) },
      Partner: {
        __resolveReference: (ref: { gpid: string }) => ({ gpid: ref.gpid }),
        syncJobs: (partner: { gpid: string }) =>
          Array.from({ length: MINIMAL_JOBS_PER_PARTNER }, (_, j) => ({ jobId: `${partner.gpid}-job-${j + 1}`, status: STATUSES[j % STATUSES.length] })),
      },
    },
  });
}

export function minimalSubgraphSchema(name: MinimalSubgraphName): GraphQLSchema {
  return name === 'partners' ? partnersSchema() : pipelineSchema();
}

/** The composed supergraph of the two, routed to the given URLs. */
export function minimalSupergraph(urls: Readonly<Record<MinimalSubgraphName, string>>): string {
  return composeSupergraph(MINIMAL_SUBGRAPHS.map((name) => ({ name, url: urls[name], sdl: printSubgraphSchema(minimalSubgraphSchema(name)) })));
}

/** Serve one minimal subgraph on loopback with Apollo's standalone server (stock settings). */
export async function startMinimalSubgraph(name: MinimalSubgraphName, port = 0): Promise<{ url: string; stop(): Promise<void> }> {
  const server = new ApolloServer({ schema: minimalSubgraphSchema(name) });
  const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port } });
  return { url, stop: () => server.stop() };
}
