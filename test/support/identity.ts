import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import type { TestSystem } from './system.js';
import { PATIENCE_MS } from './patience.js';

/** A test's own connection to the identity subgraph's database (SQLite file or PostgreSQL). */
export interface IdentityDb {
  /** Rows of a statement without parameters. */
  all(sql: string): Promise<Record<string, unknown>[]>;
  /** A statement without result rows. */
  run(sql: string): Promise<void>;
  postgres: boolean;
  close(): Promise<void>;
}

/** The slice of better-sqlite3 (a dependency of MikroORM's SQLite driver) these tests use. */
interface SqliteDatabase {
  pragma(source: string): unknown;
  prepare(sql: string): { all(): unknown[] };
  exec(sql: string): unknown;
  close(): unknown;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteDatabase;

export async function openIdentityDb(t: TestSystem): Promise<IdentityDb> {
  if (t.config.databaseUrl) {
    const client = new pg.Client({ connectionString: t.config.databaseUrl });
    await client.connect();
    return {
      postgres: true,
      all: async (sql) => (await client.query(sql)).rows as Record<string, unknown>[],
      run: async (sql) => void (await client.query(sql)),
      close: () => client.end(),
    };
  }
  const db = new Database(join(t.config.dataDir, 'identity.sqlite'));
  // The app writes to the same file: wait for its write lock as long as a busy machine needs.
  db.pragma(`busy_timeout = ${PATIENCE_MS}`);
  return {
    postgres: false,
    all: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
    run: async (sql) => void db.exec(sql),
    close: async () => void db.close(),
  };
}

/** REST calls of the identity routes, as the bootstrap operator unless a token is given. */
export function identityClient(t: TestSystem) {
  return {
    match: (body: unknown, token?: string) => t.request({ method: 'POST', url: '/api/identity/match', body, ...(token ? { token } : {}) }),
    resolve: (body: unknown, source: string | null = 'pulse', token?: string) =>
      t.request({ method: 'POST', url: '/api/identity/resolve', body, headers: source === null ? {} : { 'x-svc-source': source }, ...(token ? { token } : {}) }),
    get: (gpid: string, token?: string) => t.request({ url: `/api/identity/${gpid}`, ...(token ? { token } : {}) }),
    merge: (body: unknown, source: string | null = 'cms', token?: string) =>
      t.request({ method: 'POST', url: '/api/identity/merge', body, headers: source === null ? {} : { 'x-svc-source': source }, ...(token ? { token } : {}) }),
    split: (body: unknown, source: string | null = 'cms', token?: string) =>
      t.request({ method: 'POST', url: '/api/identity/split', body, headers: source === null ? {} : { 'x-svc-source': source }, ...(token ? { token } : {}) }),
  };
}

/** An API token minted by the operator through the public GraphQL API (operators provision credentials). */
export async function mintToken(t: TestSystem, scopes: string[], partnerGpid?: string): Promise<string> {
  const res = await t.graphql<{ createApiToken: { secret: string } }>(
    'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { secret token { tokenId } } }',
    { input: { name: `test ${scopes.join(' ')}`.slice(0, 60), scopes, ...(partnerGpid ? { partnerGpid } : {}) } },
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createApiToken.secret;
}

/** A partner registered by the operator. */
export async function registerPartner(t: TestSystem, legalName: string): Promise<string> {
  const res = await t.graphql<{ registerPartner: { gpid: string } }>('mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', {
    input: { legalName, organizationType: 'HEALTH_SYSTEM' },
  });
  expect(res.errors).toBeUndefined();
  return res.data!.registerPartner.gpid;
}

/** Events of these types in the pipeline's event log (operator view), newest first. */
export async function eventsOf(t: TestSystem, types: string[], first = 100) {
  const res = await t.graphql<{ events: { edges: { node: { id: string; type: string; partnerGpid: string | null; data: Record<string, unknown> } }[] } }>(
    'query($types: [String!], $first: Int) { events(types: $types, first: $first) { edges { node { id type partnerGpid data } } } }',
    { types, first },
  );
  expect(res.errors).toBeUndefined();
  return res.data!.events.edges.map((e) => e.node);
}

/** Polls until `check` passes (events reach the log asynchronously through the outbox and the bus); see patience.ts. */
export { eventually } from './patience.js';

/** An OAuth client_credentials access token of `partnerGpid` with `scope` (the Service class of match and resolve). */
export async function serviceToken(t: TestSystem, partnerGpid: string, scope: string): Promise<string> {
  const registered = await t.graphql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string } } }>(
    'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId } } }',
    { i: { partnerGpid, clientName: 'service test', scope } },
  );
  expect(registered.errors).toBeUndefined();
  const { clientSecret, client } = registered.data!.registerOAuthClient;
  const res = await t.request({
    method: 'POST',
    url: '/oauth/token',
    token: null,
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token as string;
}
