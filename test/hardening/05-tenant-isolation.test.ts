import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';
import { eventsOf, eventually, identityClient, mintToken, registerPartner, serviceToken } from '../support/identity.js';

/**
 * Tenant isolation of identity and pipeline reads: a partner reads only the identities it has a link
 * to, and another partner's GPID, audit entry, change request, sync job or event answers exactly like
 * a missing one (same status, code and message shape, apart from the id asked for and request ids).
 */
describe('tenant isolation of identities, sync jobs and events', () => {
  let t: TestSystem;
  let id: ReturnType<typeof identityClient>;
  const partners: Record<'a' | 'b', { gpid: string; service: string; steward: string }> = {} as never;
  let gpidA: string;
  let gpidB: string;

  /** An OAuth client_credentials access token of `partnerGpid` (the Service class of resolve). */

  /** The operator's grant of merge, split and approve to a partner, through the operator API. */
  async function grantStewardScopes(partnerGpid: string): Promise<void> {
    const { DEFAULT_PARTNER_SCOPES } = await import('../../subgraphs/partner/src/domain/partner-scopes.js');
    const res = await t.request({ method: 'PUT', url: `/cms/partners/${partnerGpid}/scopes`, body: { scopes: [...DEFAULT_PARTNER_SCOPES, 'identity.merge', 'identity.split', 'identity.approve'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().added_scopes).toEqual(['identity.merge', 'identity.split', 'identity.approve']);
  }

  const randomGpid = () => `SVC-${randomBytes(4).toString('hex').toUpperCase()}`;
  /** An id of the same shape as `id` that nothing has. */
  const missingLike = (existing: string) => `${existing.slice(0, -8)}${randomBytes(4).toString('hex').slice(0, 8)}`;

  /** A response as text, with the asked-for id and request ids blanked out. */
  function comparable(body: string, asked: string): string {
    return body
      .replaceAll(asked, '<id>')
      .replace(/"request_?[iI]d":"[^"]*"/g, '"request_id":"<request>"')
      .replace(/req_[0-9a-z]+/g, '<request>');
  }

  async function gql(query: string, variables: Record<string, unknown>, token: string) {
    const res = await t.request({ method: 'POST', url: '/graphql', token, body: { query, variables } });
    return { status: res.statusCode, body: res.body };
  }

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    id = identityClient(t);
    for (const key of ['a', 'b'] as const) {
      const gpid = await registerPartner(t, `Isolation Health ${key.toUpperCase()} ${randomBytes(3).toString('hex')}`);
      await grantStewardScopes(gpid);
      partners[key] = {
        gpid,
        service: await serviceToken(t, gpid, 'identity.resolve identity.match identity.read cms.pipeline.read'),
        steward: await mintToken(t, ['identity.read', 'identity.merge', 'identity.split', 'identity.approve', 'cms.pipeline.read'], gpid),
      };
    }
    const a = await id.resolve({ name: 'Aurelio Quintanilla-Brisbane', dob: '1958-02-11', email: 'aurelio.qb@example.net' }, 'pulse', partners.a.service);
    expect(a.statusCode).toBe(200);
    gpidA = a.json().gpid;
    const b = await id.resolve({ name: 'Berenike Osterhagen', dob: '1990-07-23', phone: '(617) 555-0117' }, 'provider', partners.b.service);
    expect(b.statusCode).toBe(200);
    gpidB = b.json().gpid;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers partner B's REST read of A's GPID exactly like a missing GPID", async () => {
    const missing = randomGpid();
    const other = await id.get(gpidA, partners.b.service);
    const none = await id.get(missing, partners.b.service);
    expect(other.statusCode).toBe(404);
    expect(other.statusCode).toBe(none.statusCode);
    expect(other.headers['content-type']).toBe(none.headers['content-type']);
    expect(comparable(other.body, gpidA)).toBe(comparable(none.body, missing));
    // Each partner still reads its own, and the operator reads both.
    expect((await id.get(gpidA, partners.a.service)).statusCode).toBe(200);
    expect((await id.get(gpidA, partners.a.steward)).statusCode).toBe(200); // an API token of A's, too
    expect((await id.get(gpidB, partners.b.service)).statusCode).toBe(200);
    expect((await id.get(gpidA)).statusCode).toBe(200);
    expect((await id.get(gpidB)).statusCode).toBe(200);
  });

  it("answers B's GraphQL reads of A's identity (record, lineage, history, entity reference) like a missing one", async () => {
    const query = 'query($g: ID!) { identity(gpid: $g) { gpid status sources { source } lineage { gpid } mergedFrom matchHistory { total } relatedGpids } }';
    const missing = randomGpid();
    for (const token of [partners.b.service, partners.b.steward]) {
      const other = await gql(query, { g: gpidA }, token);
      const none = await gql(query, { g: missing }, token);
      expect(other.status).toBe(none.status);
      expect(JSON.parse(other.body)).toEqual({ data: { identity: null } });
      expect(comparable(other.body, gpidA)).toBe(comparable(none.body, missing));
    }
    // The federated entity reference (how another subgraph or an event reaches an Identity).
    const ref = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Identity { gpid } } }';
    const viaRef = await t.graphql(ref, { r: [{ __typename: 'Identity', gpid: gpidA }] }, partners.b.service);
    // The gateway does not expose _entities; whatever it answers, it answers the same for a missing GPID.
    const viaRefMissing = await t.graphql(ref, { r: [{ __typename: 'Identity', gpid: missing }] }, partners.b.service);
    expect(comparable(JSON.stringify(viaRef), gpidA)).toBe(comparable(JSON.stringify(viaRefMissing), missing));
  });

  it("hides A's GPIDs from B's match and resolve answers", async () => {
    // B's near-duplicate of A's person: A's record is a candidate in the registry, but not in B's answer.
    const near = await id.resolve({ name: 'Aurelio Quintanilla-Brisbane', dob: '1958-02-21', phone: '(212) 555-0187' }, 'provider', partners.b.service);
    expect(near.statusCode).toBe(200);
    const body = near.json();
    expect(body.gpid).not.toBe(gpidA);
    expect(JSON.stringify(body)).not.toContain(gpidA);
    expect(body.subject_gpid === null || body.subject_gpid === body.gpid).toBe(true);
    // The registry did link the two for review (the operator sees it), B just is not told.
    expect((await id.get(body.gpid)).json().related_gpids).toContain(gpidA);
    const asB = await id.get(body.gpid, partners.b.service);
    expect(asB.json().related_gpids).toEqual([]);
    expect(asB.json().match_history.recent[0]).toMatchObject({ decision: 'NEW_PROVISIONAL', subject_gpid: null });
    expect(asB.body).not.toContain(gpidA);
    expect((await id.get(body.gpid)).json().match_history.recent[0]).toMatchObject({ subject_gpid: gpidA });
    const match = await id.match({ name: 'Aurelio Quintanilla-Brisbane', dob: '1958-02-11', email: 'aurelio.qb@example.net' }, partners.b.service);
    expect(match.statusCode).toBe(200);
    expect(match.json().candidates.map((c: { gpid: string }) => c.gpid)).not.toContain(gpidA);
    // Nor do B's events (the resolve's identity.match names no subject B has no link to).
    await eventually(async () => {
      const events = await t.graphql<{ events: { edges: { node: { type: string; data: { gpid?: string } } }[] } }>('{ events(first: 100) { edges { node { type data } } } }', {}, partners.b.service);
      expect(events.data!.events.edges.some((e) => e.node.type === 'identity.match' && e.node.data.gpid === body.gpid)).toBe(true);
      expect(JSON.stringify(events.data)).not.toContain(gpidA);
    });
    // The operator's match finds it.
    const operatorMatch = await id.match({ name: 'Aurelio Quintanilla-Brisbane', dob: '1958-02-11', email: 'aurelio.qb@example.net' });
    expect(operatorMatch.json().candidates.map((c: { gpid: string }) => c.gpid)).toContain(gpidA);
  });

  it("answers B's merge request naming A's GPID like one naming a missing GPID", async () => {
    const missing = randomGpid();
    const other = await id.merge({ survivor_gpid: gpidB, merged_gpids: [gpidA], reason: 'manual_review' }, 'cms', partners.b.steward);
    const none = await id.merge({ survivor_gpid: gpidB, merged_gpids: [missing], reason: 'manual_review' }, 'cms', partners.b.steward);
    expect(other.statusCode).toBe(404);
    expect(other.json().unknown_gpids ?? other.json().details?.unknown_gpids).toEqual([gpidA]);
    expect(comparable(other.body, gpidA)).toBe(comparable(none.body, missing));
  });

  it("answers B's reads of A's change request and audit entries like missing ones; the operator reads all", async () => {
    // A merges two of its own records (requested by A, approved by the operator).
    const dup = await id.resolve({ name: 'Aurelio Quintanilla', dob: '1958-11-02', email: 'a.quintanilla@example.org' }, 'lake', partners.a.service);
    const dupGpid = dup.json().gpid as string;
    expect(dupGpid).not.toBe(gpidA);
    const requested = await id.merge({ survivor_gpid: gpidA, merged_gpids: [dupGpid], reason: 'manual_review' }, 'cms', partners.a.steward);
    expect(requested.statusCode).toBe(200);
    const requestId = requested.json().request_id as string;

    // Before the decision: B cannot see, approve or reject it, exactly as for a missing request.
    const missingId = missingLike(requestId);
    for (const body of [{ approve: requestId }, { reject: requestId }]) {
      const other = await id.merge(body, 'cms', partners.b.steward);
      const none = await id.merge({ [Object.keys(body)[0]!]: missingId }, 'cms', partners.b.steward);
      expect(other.statusCode).toBe(404);
      expect(comparable(other.body, requestId)).toBe(comparable(none.body, missingId));
    }
    const requestQuery = 'query($id: ID!) { identityChangeRequest(id: $id) { id status } }';
    const otherRequest = await gql(requestQuery, { id: requestId }, partners.b.steward);
    const noRequest = await gql(requestQuery, { id: missingId }, partners.b.steward);
    expect(JSON.parse(otherRequest.body)).toEqual({ data: { identityChangeRequest: null } });
    expect(comparable(otherRequest.body, requestId)).toBe(comparable(noRequest.body, missingId));
    const list = await t.graphql<{ identityChangeRequests: { edges: { node: { id: string } }[] } }>('{ identityChangeRequests(first: 100) { edges { node { id } } } }', {}, partners.b.steward);
    expect(list.data!.identityChangeRequests.edges.map((e) => e.node.id)).not.toContain(requestId);

    const approved = await id.merge({ approve: requestId }, 'cms');
    expect(approved.statusCode).toBe(200);
    expect(approved.json().status).toBe('APPLIED');

    // A sees the survivor's lineage, the merged GPID (now part of its identity) and its audit entry.
    const survivor = (await id.get(gpidA, partners.a.service)).json();
    expect(survivor.lineage.merged_from).toEqual([dupGpid]);
    expect((await id.get(dupGpid, partners.a.service)).json()).toMatchObject({ identity_status: 'MERGED', survivor_gpid: gpidA });
    const auditQuery = '{ identityAuditEntries(first: 100) { edges { node { seq payload } } } }';
    const seen = (token: string | undefined) =>
      t.graphql<{ identityAuditEntries: { edges: { node: { payload: { request_id: string } } }[] } }>(auditQuery, {}, token).then((r) => r.data!.identityAuditEntries.edges.map((e) => e.node.payload.request_id));
    expect(await seen(partners.a.steward)).toContain(requestId);
    expect(await seen(undefined)).toContain(requestId);
    expect(await seen(partners.b.steward)).not.toContain(requestId);

    // B: the merged GPID and the survivor's lineage look missing.
    const missing = randomGpid();
    const other = await id.get(dupGpid, partners.b.service);
    const none = await id.get(missing, partners.b.service);
    expect(comparable(other.body, dupGpid)).toBe(comparable(none.body, missing));
    const otherRequestAfter = await gql(requestQuery, { id: requestId }, partners.b.steward);
    expect(comparable(otherRequestAfter.body, requestId)).toBe(comparable(noRequest.body, missingId));
  });

  it("answers B's read of partner A exactly like a partner GPID nobody has", async () => {
    const query = 'query($g: ID!) { partner(gpid: $g) { gpid legalName grantedScopes } }';
    let missing: string;
    do missing = `CMS-${String(randomBytes(4).readUInt32BE(0) % 100_000_000).padStart(8, '0')}`;
    while (missing === partners.a.gpid || missing === partners.b.gpid);
    for (const token of [partners.b.service, partners.b.steward]) {
      const other = await gql(query, { g: partners.a.gpid }, token);
      const none = await gql(query, { g: missing }, token);
      expect(JSON.parse(other.body)).toEqual({ data: { partner: null } });
      expect(comparable(other.body, partners.a.gpid)).toBe(comparable(none.body, missing));
    }
    const own = await t.graphql<{ partner: { gpid: string } | null }>('query($g: ID!) { partner(gpid: $g) { gpid legalName } }', { g: partners.a.gpid }, partners.a.steward);
    expect(own.data!.partner?.gpid).toBe(partners.a.gpid);
  });

  it("answers B's reads of A's sync job and A's events exactly like missing ones", async () => {
    const created = await t.graphql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: partners.a.gpid });
    expect(created.errors).toBeUndefined();
    const jobId = created.data!.createSyncJob.jobId;
    const missingJob = missingLike(jobId);
    const jobQuery = 'query($j: ID!) { syncJob(jobId: $j) { jobId status partnerGpid } }';
    for (const token of [partners.b.service, partners.b.steward]) {
      const other = await gql(jobQuery, { j: jobId }, token);
      const none = await gql(jobQuery, { j: missingJob }, token);
      expect(JSON.parse(other.body)).toEqual({ data: { syncJob: null } });
      expect(comparable(other.body, jobId)).toBe(comparable(none.body, missingJob));
    }
    const own = await t.graphql<{ syncJob: { jobId: string } | null }>(jobQuery, { j: jobId }, partners.a.steward);
    expect(own.data!.syncJob?.jobId).toBe(jobId);
    const operator = await t.graphql<{ syncJob: { jobId: string } | null }>(jobQuery, { j: jobId });
    expect(operator.data!.syncJob?.jobId).toBe(jobId);

    // An event of A's (its resolve's identity.match).
    const event = await eventually(async () => {
      const found = (await eventsOf(t, ['identity.match'])).find((e) => e.partnerGpid === partners.a.gpid);
      expect(found).toBeDefined();
      return found!;
    });
    const missingEvent = missingLike(event.id);
    const eventQuery = 'query($id: ID!) { event(id: $id) { id type data } }';
    const other = await gql(eventQuery, { id: event.id }, partners.b.service);
    const none = await gql(eventQuery, { id: missingEvent }, partners.b.service);
    expect(JSON.parse(other.body)).toEqual({ data: { event: null } });
    expect(comparable(other.body, event.id)).toBe(comparable(none.body, missingEvent));
    const mine = await t.graphql<{ event: { id: string } | null }>(eventQuery, { id: event.id }, partners.a.service);
    expect(mine.data!.event?.id).toBe(event.id);
    const list = await t.graphql<{ events: { edges: { node: { id: string } }[] } }>('{ events(first: 100) { edges { node { id } } } }', {}, partners.b.service);
    expect(list.data!.events.edges.map((e) => e.node.id)).not.toContain(event.id);
  });

  it('lets both partners read a person both resolved, each seeing its own sources and history', async () => {
    const person = { name: 'Cosima Wetherell-Dunmore', dob: '1972-12-03', email: 'cosima.wd@example.com' };
    const a = await id.resolve(person, 'pulse', partners.a.service);
    const b = await id.resolve(person, 'provider', partners.b.service);
    expect(b.json()).toMatchObject({ gpid: a.json().gpid, decision: 'EXISTING', sources: ['provider'] });
    expect(a.json().sources).toEqual(['pulse']);
    const gpid = a.json().gpid as string;
    const asA = (await id.get(gpid, partners.a.service)).json();
    const asB = (await id.get(gpid, partners.b.service)).json();
    const asOperator = (await id.get(gpid)).json();
    expect(asA.sources.map((s: { source: string }) => s.source)).toEqual(['pulse']);
    expect(asB.sources.map((s: { source: string }) => s.source)).toEqual(['provider']);
    expect(asOperator.sources.map((s: { source: string }) => s.source)).toEqual(['pulse', 'provider']);
    expect(asA.match_history.total).toBe(1);
    expect(asB.match_history.total).toBe(1);
    expect(asOperator.match_history.total).toBe(2);
    expect(asB.identity_status).toBe(asOperator.identity_status);
    const viaGraphql = await t.graphql<{ identity: { gpid: string } | null }>('query($g: ID!) { identity(gpid: $g) { gpid } }', { g: gpid }, partners.b.service);
    expect(viaGraphql.data!.identity?.gpid).toBe(gpid);
  });
});
