/**
 * The yardstick of `npm run bench -- --suite subgraphs`: a minimal @apollo/subgraph served by the
 * stock Apollo Server (standalone), answering the same three hot reads as our subgraphs from
 * memory — `partners(first: 20)`, `identity(gpid:)`, `fhirPatient(id:)` (a Patient by id, the
 * typed fields a portal asks for) and the gateway's `_entities` fetch of `Partner.syncJobs`. No database, no authentication: the ceiling a subgraph can reach here.
 * Prints `listening <port>` on stdout when ready.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';

const ROWS = Number(process.env['BENCH_ROWS'] ?? 20);
const partners = Array.from({ length: ROWS }, (_, i) => ({
  gpid: `PRD-PTN-${1000 + i}`,
  legalName: `Benchmark Health ${String(i + 1).padStart(2, '0')}`,
}));
const jobsOf = (gpid: string) => Array.from({ length: 3 }, (_, i) => ({ jobId: `job_${gpid}_${i}`, status: 'QUEUED' }));
const identity = (gpid: string) => ({ gpid, entityType: 'patient', status: 'PROVISIONAL', version: 1, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });

const patient = (id: string) => ({
  id,
  gender: 'female',
  birthDate: '1980-02-03',
  name: [{ family: 'Abernathy', given: ['Ada', 'B'] }],
  meta: { versionId: '1', lastUpdated: '2026-01-01T00:00:00.000Z' },
});

const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Partner @key(fields: "gpid") { gpid: ID! legalName: String! syncJobs: [SyncJob!]! }
  type SyncJob { jobId: ID! status: String! }
  type PartnerEdge { node: Partner! cursor: String! }
  type PartnerConnection { edges: [PartnerEdge!]! }
  type Identity { gpid: ID! entityType: String! status: String! version: Int! createdAt: String! updatedAt: String! }
  type FhirHumanName { family: String given: [String!] }
  type FhirMeta { versionId: ID lastUpdated: String }
  type FhirPatient { id: ID gender: String birthDate: String name: [FhirHumanName!] meta: FhirMeta }
  type Query { partners(first: Int): PartnerConnection! identity(gpid: ID!): Identity fhirPatient(id: ID!): FhirPatient }
`);

const resolvers = {
  Query: {
    partners: (_: unknown, { first }: { first?: number }) => ({ edges: partners.slice(0, first ?? 20).map((node) => ({ node, cursor: node.gpid })) }),
    identity: (_: unknown, { gpid }: { gpid: string }) => identity(gpid),
    fhirPatient: (_: unknown, { id }: { id: string }) => patient(id),
  },
  Partner: {
    __resolveReference: (ref: { gpid: string }) => partners.find((p) => p.gpid === ref.gpid) ?? { gpid: ref.gpid, legalName: '' },
    syncJobs: (p: { gpid: string }) => jobsOf(p.gpid),
  },
};

const server = new ApolloServer({ schema: buildSubgraphSchema({ typeDefs, resolvers }) });
const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: 0 } });
process.stdout.write(`listening ${new URL(url).port}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
