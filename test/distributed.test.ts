import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import WebSocket from 'ws';
import { freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { eventually, PATIENCE_MS } from './support/patience.js';

/**
 * The distributed mode end to end: each subgraph, the gateway and the facade in its own process,
 * talking HTTP, on PostgreSQL and Redis. Runs in the PostgreSQL + Redis pass of the suite.
 */
describe.runIf(USE_POSTGRES)('distributed mode: one component per process over HTTP, PostgreSQL + Redis', () => {
  let storage: TestStorage;
  const services: ServiceProcess[] = [];
  let gateway: ServiceProcess;
  let facade: ServiceProcess;
  const token = `dist_${randomBytes(18).toString('base64url')}`;
  let shared: Record<string, string>;
  const gql = async <T>(query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as { data?: T; errors?: unknown[] };
  };

  beforeAll(async () => {
    storage = await freshStorage();
    shared = { ...storage.env, SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'), SVC_OUTBOX_POLL_MS: '100' };
    const subgraphs = await Promise.all(
      ['partner', 'identity', 'fhir', 'pipeline'].map((name) => startProcess(`subgraph:${name}`, name === 'partner' ? { ...shared, SVC_BOOTSTRAP_TOKEN: token } : shared)),
    );
    services.push(...subgraphs);
    await Promise.all(subgraphs.map((s) => waitUntilReady(s)));
    const urls = Object.fromEntries(subgraphs.map((s) => [`SVC_SUBGRAPH_${s.role.split(':')[1]!.toUpperCase()}_URL`, `${s.url}/graphql`]));
    // Two gateway processes behind node:cluster's shared listeners (SVC_GATEWAY_WORKERS): everything
    // below, revocation included, must hold whichever worker answers.
    gateway = await startProcess('gateway', { ...shared, ...urls, SVC_GATEWAY_WORKERS: '2' });
    services.push(gateway);
    await waitUntilReady(gateway);
    facade = await startProcess('facade', { ...shared, SVC_GATEWAY_URL: gateway.internalUrl });
    services.push(facade);
    await waitUntilReady(facade);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await storage?.dispose();
  });

  it('refuses a subgraph request that did not come through the gateway', async () => {
    const partner = services.find((s) => s.role === 'subgraph:partner')!;
    const res = await fetch(`${partner.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ viewer { kind } }' }) });
    expect(res.status).toBe(401);
  });

  it('serves a Bearer REST route through facade → gateway → partner subgraph', async () => {
    const res = await fetch(`${facade.url}/cms/tokens`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    const body = (await res.json()) as { tokens: { partner_gpid: string }[] };
    expect(body.tokens[0]!.partner_gpid).toBe('CMS-00000000');
  });

  it('joins partners and sync jobs across subgraph processes, and streams events through Redis', async () => {
    const created = await gql<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Remote Health", organizationType: "PAYER" }) { gpid } }');
    const gpid = created.data!.registerPartner.gpid;

    // Subscribed after the newest event already in the log: the job's event is delivered whether the
    // subscription is in place before it is published (live, through Redis) or only after (from the
    // log), so no pause has to outlast the subscription's start.
    const newest = await eventually(async () => {
      const id = (await gql<{ events: { edges: { node: { id: string } }[] } }>('{ events(first: 1) { edges { node { id } } } }')).data?.events.edges[0]?.node.id;
      expect(id).toBeDefined();
      return id!;
    });
    const client = createClient({ url: `${gateway.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, lazy: false });
    const delivered = new Promise<{ events: { type: string; partner: { legalName: string } } }>((resolve, reject) => {
      client.subscribe<{ events: { type: string; partner: { legalName: string } } }>(
        { query: 'subscription($after: ID) { events(types: ["pipeline.sync.completed"], after: $after) { type partner { legalName } } }', variables: { after: newest } },
        { next: (v) => (v.data ? resolve(v.data) : reject(new Error(JSON.stringify(v.errors)))), error: reject, complete: () => undefined },
      );
    });

    // The same subscription over Server-Sent Events (/graphql/stream), resuming after the same event.
    const sse = createSseClient({ url: `${gateway.url}/graphql/stream`, headers: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
    const deliveredOverSse = new Promise<unknown>((resolve, reject) => {
      sse.subscribe(
        { query: 'subscription($after: ID) { events(types: ["pipeline.sync.completed"], after: $after) { type partner { legalName } } }', variables: { after: newest } },
        { next: (v) => (v.data ? resolve(v.data) : reject(new Error(JSON.stringify(v.errors)))), error: reject, complete: () => undefined },
      );
    });

    const job = await gql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Observation"]) { jobId } }', { p: gpid });
    await gql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 7) { status } }', { j: job.data!.createSyncJob.jobId });

    const joined = await gql<{ partner: { legalName: string; syncJobs: { status: string; recordsProcessed: number }[] } }>(
      'query($g: ID!) { partner(gpid: $g) { legalName syncJobs { status recordsProcessed } } }',
      { g: gpid },
    );
    expect(joined.data!.partner).toEqual({ legalName: 'Remote Health', syncJobs: [{ status: 'COMPLETED', recordsProcessed: 7 }] });
    expect((await delivered).events).toEqual({ type: 'pipeline.sync.completed', partner: { legalName: 'Remote Health' } });
    expect(await deliveredOverSse).toEqual({ events: { type: 'pipeline.sync.completed', partner: { legalName: 'Remote Health' } } });
    await client.dispose();
    sse.dispose();
  });

  it("runs heavy request work on the FHIR subgraph's job thread: an eligibility inquiry and an NDJSON push", async () => {
    const headers = { authorization: `Bearer ${token}` };
    const inquiry = {
      payer: { id: '12345', name: 'ACME HEALTH PLAN' },
      provider: { npi: '1234567893', name: 'RIVERSIDE CLINIC' },
      subscriber: { member_id: 'W123456789', first_name: 'JANE', last_name: 'DOE', birth_date: '1980-01-01', gender: 'F' },
      service_type_codes: ['30'],
    };
    // The subgraph's job thread starts with its process; on a busy machine it may still be starting,
    // which is answered 503 with Retry-After: a client retries.
    const answer = await eventually(async () => {
      const eligibility = await fetch(`${facade.url}/velocity/v1/clearinghouse/eligibility`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(inquiry) });
      expect(eligibility.status).toBe(200);
      return eligibility.json();
    }, 3 * PATIENCE_MS);
    expect(answer).toMatchObject({ transaction: '271', coverage_status: 'active' });
    const ndjson = [JSON.stringify({ resourceType: 'Patient', name: [{ family: 'Threaded' }] }), '{"resourceType": "Patient", "name": '].join('\n');
    const refused = await fetch(`${facade.url}/fhir/R4`, { method: 'POST', headers: { ...headers, 'content-type': 'application/fhir+ndjson', prefer: 'respond-async' }, body: ndjson });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('line 2');
    const pushed = await fetch(`${facade.url}/fhir/R4`, { method: 'POST', headers: { ...headers, 'content-type': 'application/fhir+ndjson', prefer: 'respond-async' }, body: ndjson.split('\n')[0] });
    expect(pushed.status).toBe(202);
  });

  it('counts a REST call once although the facade runs it on the gateway: 5 of POST /cms/tokens (5/min), then 429', async () => {
    const create = (i: number) =>
      fetch(`${facade.url}/cms/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: `counted once ${i}`, scopes: ['cms.sdk.read'] }),
      });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await create(i);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      remaining.push(res.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await create(5);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { code: string }).code).toBe('RATE_LIMITED');
    const listed = (await (await fetch(`${facade.url}/cms/tokens`, { headers: { authorization: `Bearer ${token}` } })).json()) as { tokens: { name: string }[] };
    expect(listed.tokens.filter((t) => t.name.startsWith('counted once')).length).toBe(5);
  });

  it('refuses a revoked credential in every gateway worker', async () => {
    // An OAuth client (POST /cms/tokens's 5/min are spent by the test above).
    const registered = await gql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string } } }>(
      'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId } } }',
      { i: { clientName: 'Cluster client', scope: 'cms.pipeline.read', tokenEndpointAuthMethod: 'client_secret_post' } },
    );
    expect(registered.errors).toBeUndefined();
    const { clientSecret, client } = registered.data!.registerOAuthClient;
    const issued = await fetch(`${facade.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret }).toString(),
    });
    expect(issued.status).toBe(200);
    const accessToken = ((await issued.json()) as { access_token: string }).access_token;
    const asClient = () => fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` }, body: JSON.stringify({ query: '{ __typename }' }) });
    // Enough requests for both workers to have checked (and cached) the client.
    for (let i = 0; i < 6; i++) expect((await asClient()).status).toBe(200);
    // Subscription streams over Server-Sent Events, spread over the workers by the shared listener:
    // each ends when the revocation reaches its worker.
    const streams = Array.from({ length: 4 }, () => {
      let connected!: () => void;
      const ready = new Promise<void>((resolve) => (connected = resolve));
      const sse = createSseClient({ url: `${gateway.url}/graphql/stream`, headers: { authorization: `Bearer ${accessToken}` }, retryAttempts: 0, on: { connected: () => connected() } });
      const results: unknown[] = [];
      const ended = new Promise<unknown>((resolve) => {
        sse.subscribe({ query: 'subscription { events(types: ["pipeline.sync.completed"]) { id } }' }, { next: (v) => void results.push(v), error: resolve, complete: () => resolve('complete') });
      });
      return { ready, ended, results, dispose: () => sse.dispose() };
    });
    await Promise.all(streams.map((s) => s.ready));
    const revoked = await gql('mutation($id: ID!) { revokeOAuthClient(clientId: $id) { tokenId } }', { id: client.clientId });
    expect(revoked.errors).toBeUndefined();
    // The event reaches each worker through Redis; from then on no worker accepts the credential.
    const deadline = Date.now() + PATIENCE_MS;
    let statuses: number[] = [];
    for (;;) {
      statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await asClient()).status);
      if (statuses.every((s) => s === 401) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    for (const stream of streams) {
      expect(await stream.ended).toBe('complete');
      expect(stream.results).toMatchObject([{ errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'credential_revoked' } }] }]);
      stream.dispose();
    }
  });

  it('links a FHIR Patient to its GPID across processes without a version of its own, also when the identity subgraph was down at the write', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json', 'x-svc-source': 'provider' };
    const identity = services.find((s) => s.role === 'subgraph:identity')!;
    // The identity subgraph is down: the write neither fails nor waits for it.
    expect(await identity.stop('SIGTERM')).toBe(0);
    const patient = { resourceType: 'Patient', name: [{ family: 'Distributed', given: ['Offline'] }], birthDate: '1970-03-04', telecom: [{ system: 'email', value: 'offline.distributed@example.org' }] };
    const created = await fetch(`${facade.url}/fhir/R4/Patient`, { method: 'POST', headers, body: JSON.stringify(patient) });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string };
    const updated = await fetch(`${facade.url}/fhir/R4/Patient/${body.id}`, { method: 'PUT', headers: { ...headers, 'if-match': created.headers.get('etag')! }, body: JSON.stringify({ ...body, active: true }) });
    expect(updated.status).toBe(200);
    // Back on the same ports: its durable consumer catches up and the link appears, at the client's version.
    const again = await startProcess('subgraph:identity', shared, { port: Number(new URL(identity.url).port), internalPort: Number(new URL(identity.internalUrl).port) });
    services.splice(services.indexOf(identity), 1, again);
    await waitUntilReady(again);
    const linked = await eventually(async () => {
      const read = (await (await fetch(`${facade.url}/fhir/R4/Patient/${body.id}`, { headers })).json()) as { meta: { versionId: string }; identifier?: { system: string; value: string }[] };
      expect(read.identifier?.find((i) => i.system === 'urn:svc:gpid')?.value).toMatch(/^SVC-[0-9A-F]{8}$/);
      return read;
    }, 3 * PATIENCE_MS);
    expect(linked.meta.versionId).toBe('2');
  });

  it('shuts down gracefully on SIGTERM', async () => {
    const code = await facade.stop('SIGTERM');
    // The process's own log says why when it does not stop cleanly.
    expect(code, facade.output().slice(-4000)).toBe(0);
    expect(facade.output()).not.toMatch(/"level":50/);
    expect(await gateway.stop('SIGTERM'), gateway.output().slice(-4000)).toBe(0);
    expect(gateway.output()).not.toMatch(/"level":50/);
  });
});
