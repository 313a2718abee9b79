import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { freePort } from './support/processes.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventsOf } from './support/identity.js';
import { eventually, PATIENCE_MS } from './support/patience.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { onboardPartner, portalSession } from './support/partner-onboarding.js';

/**
 * TEFCA exchange end to end: two instances of the service on loopback are two communities (A and
 * B), each with its own storage and data, each naming the other as a peer; A's directory also
 * names a peer that never answers (C, slow) and one that is down (D). Discovery, document query
 * and retrieve run across them, with the purpose of use, the audit log, the events, the GraphQL
 * twins and the legacy routes.
 *
 * No deadline here races the machine: the exchanges' limit (SVC_TEFCA_TIMEOUT_MS) is generous, so B
 * always answers within it, and an exchange that must time out asks the slow peer, which never
 * answers whatever the deadline. The one exchange that needs both (B answering, C cut off) names
 * its own limit and asks again with a longer one while B was not given enough time to answer.
 */

const A_ID = 'urn:oid:2.999.10';
const B_ID = 'urn:oid:2.999.20';
const SLOW_ID = 'urn:oid:2.999.30';
const DOWN_ID = 'urn:oid:2.999.40';
/** The exchanges' limit: B answers well within it however busy the machine. */
const EXCHANGE_LIMIT_MS = PATIENCE_MS;

const secret = () => `op_${randomBytes(24).toString('base64url')}`;

let a: TestSystem;
let b: TestSystem;
let slow: Server;
/** The requests the slow peer received, and whether the caller has since closed their connection. */
const slowRequests: { path: string; closed: boolean }[] = [];
let receiver: WebhookReceiver;
let partner: string;
let partnerToken: string;
let gpid: string;
let inlineDocId: string;
let binaryDocId: string;
const PDF = Buffer.from('%PDF-1.4 discharge summary').toString('base64');
const NOTE = Buffer.from('progress note text').toString('base64');

const patient = { given: ['Ada', 'King'], family: 'Lovelace', birth_date: '1985-12-10', email: 'ada@example.org' };

beforeAll(async () => {
  const [portA, portB, portDown] = await Promise.all([freePort(), freePort(), freePort()]);
  // A peer that accepts connections and never answers.
  slow = createServer((req) => {
    const seen = { path: req.url ?? '', closed: false };
    slowRequests.push(seen);
    req.socket.once('close', () => (seen.closed = true));
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  const slowPort = (slow.address() as { port: number }).port;
  receiver = await WebhookReceiver.start();
  const tokenA = secret();
  const tokenB = secret();
  const common = { SVC_TEFCA_ALLOW_PRIVATE: 'true', SVC_TEFCA_TIMEOUT_MS: String(EXCHANGE_LIMIT_MS), SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_POLL_MS: '50' };
  [a, b] = await Promise.all([
    bootSystem({
      ...common,
      SVC_BOOTSTRAP_TOKEN: tokenA,
      SVC_PUBLIC_URL: `http://127.0.0.1:${portA}`,
      SVC_TEFCA_HOME_COMMUNITY_ID: A_ID,
      SVC_TEFCA_HOME_COMMUNITY_NAME: 'Community A',
      SVC_DEPRECATION_SUNSETS: 'tefca.v1.patient-discovery=2099-03-31,tefca.v1.document-query=2099-03-31',
      SVC_TEFCA_PEERS: JSON.stringify([
        { home_community_id: B_ID, name: 'Community B', base_url: `http://127.0.0.1:${portB}`, capabilities: ['xcpd', 'xca'], token: tokenB },
        { home_community_id: SLOW_ID, name: 'Slow community', base_url: `http://127.0.0.1:${slowPort}`, capabilities: ['xcpd', 'xca'], token: 'x'.repeat(30) },
        { home_community_id: DOWN_ID, name: 'Down community', base_url: `http://127.0.0.1:${portDown}`, capabilities: ['xcpd'], token: 'y'.repeat(30) },
      ]),
    }),
    bootSystem({
      ...common,
      SVC_BOOTSTRAP_TOKEN: tokenB,
      SVC_PUBLIC_URL: `http://127.0.0.1:${portB}`,
      SVC_TEFCA_HOME_COMMUNITY_ID: B_ID,
      SVC_TEFCA_HOME_COMMUNITY_NAME: 'Community B',
      SVC_TEFCA_PEERS: JSON.stringify([{ home_community_id: A_ID, name: 'Community A', base_url: `http://127.0.0.1:${portA}`, token: tokenA }]),
    }),
  ]);
  await Promise.all([a.system.app.listen({ port: portA, host: '127.0.0.1' }), b.system.app.listen({ port: portB, host: '127.0.0.1' })]);

  // B's data, written by one of B's partners: a Patient (linked to a GPID by B's identity registry) with two documents.
  const writer = await apiToken(b, await registerPartner(b, 'B Hospital'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  const created = await fhir(b, writer, 'POST', '/Patient', { resourceType: 'Patient', name: [{ given: ['Ada', 'King'], family: 'Lovelace' }], birthDate: '1985-12-10', telecom: [{ system: 'email', value: 'ada@example.org' }] }, { 'x-svc-source': 'provider' });
  expect(created.statusCode).toBe(201);
  const patientId = created.json().id as string;
  gpid = await eventually(async () => {
    const res = await fhir(b, writer, 'GET', `/Patient/${patientId}`);
    const id = (res.json().identifier ?? []).find((i: { system: string }) => i.system === 'urn:svc:gpid');
    expect(id).toBeDefined();
    return id.value as string;
  });
  const inline = await fhir(b, writer, 'POST', '/DocumentReference', {
    resourceType: 'DocumentReference',
    status: 'current',
    type: { coding: [{ system: 'http://loinc.org', code: '18842-5', display: 'Discharge summary' }] },
    subject: { reference: `Patient/${patientId}` },
    date: '2026-11-01T10:00:00Z',
    content: [{ attachment: { contentType: 'application/pdf', data: PDF, title: 'Discharge summary' } }],
  });
  expect(inline.statusCode).toBe(201);
  inlineDocId = inline.json().id;
  const binary = await fhir(b, writer, 'POST', '/Binary', { resourceType: 'Binary', contentType: 'text/plain', data: NOTE });
  expect(binary.statusCode).toBe(201);
  const viaBinary = await fhir(b, writer, 'POST', '/DocumentReference', {
    resourceType: 'DocumentReference',
    status: 'current',
    type: { coding: [{ system: 'http://loinc.org', code: '11506-3', display: 'Progress note' }] },
    subject: { reference: `Patient/${patientId}` },
    content: [{ attachment: { contentType: 'text/plain', url: `Binary/${binary.json().id}` } }],
  });
  expect(viaBinary.statusCode).toBe(201);
  binaryDocId = viaBinary.json().id;

  // A's partner, who asks the network, with a webhook for every TEFCA event.
  partner = await registerPartner(a, 'Exchange Clinic');
  await grantTefca(a, partner);
  partnerToken = await apiToken(a, partner, ['tefca.xcpd.*', 'tefca.xca.*']);
  const hook = await a.request({ method: 'POST', url: '/api/partner/webhooks', body: { url: receiver.path('a', { trusting: true }), event_types: ['tefca.*'], partner_gpid: partner } });
  expect(hook.statusCode).toBe(201);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await new Promise((r) => slow?.close(r));
  await receiver?.close();
});

/** Operators grant the TEFCA scopes (not in the default grant). */
async function grantTefca(t: TestSystem, gpid: string): Promise<void> {
  const held = await t.graphql<{ partner: { grantedScopes: string[] } }>('query($p: ID!) { partner(gpid: $p) { grantedScopes } }', { p: gpid });
  const res = await t.graphql('mutation($p: ID!, $s: [String!]!) { updatePartnerScopeGrant(partnerGpid: $p, scopes: $s) { grantedScopes } }', { p: gpid, s: [...held.data!.partner.grantedScopes, 'tefca.xcpd.*', 'tefca.xca.*'] });
  expect(res.errors).toBeUndefined();
}

const post = (t: TestSystem, url: string, body: unknown, token?: string) => t.request({ method: 'POST', url, body, ...(token ? { token } : {}) });

describe('TEFCA exchange between two communities', () => {
  it('discovers the patient at B from A, within the time limit, naming the slow and the down peer', async () => {
    // The limit applies to B and to the slow peer alike, and B needs more time on a busy machine: a
    // limit B did not meet (B timed out too) is doubled and the exchange asked again.
    let timeoutMs = 2000;
    let started: number;
    let res: Awaited<ReturnType<typeof post>>;
    for (;;) {
      started = Date.now();
      res = await post(a, '/tefca/xcpd/search', { purpose_of_use: 'T-TREAT', patient, timeout_ms: timeoutMs }, partnerToken);
      const bTimedOut = res.statusCode === 200 && (res.json().communities as { home_community_id: string; status: string }[]).some((c) => c.home_community_id === B_ID && c.status === 'timeout');
      if (!bTimedOut || timeoutMs >= EXCHANGE_LIMIT_MS) break;
      timeoutMs = Math.min(timeoutMs * 2, EXCHANGE_LIMIT_MS);
    }
    const elapsed = Date.now() - started;
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.exchange_id).toMatch(/^xch_/);
    expect(body.outcome).toBe('partial');
    expect(body.matches).toEqual([expect.objectContaining({ home_community_id: B_ID, community_name: 'Community B', patient_id: gpid, match_grade: 'certain' })]);
    const byId = Object.fromEntries(body.communities.map((c: { home_community_id: string }) => [c.home_community_id, c]));
    expect(byId[B_ID]).toMatchObject({ status: 'ok', result_count: 1, error: null });
    expect(byId[SLOW_ID]).toMatchObject({ status: 'timeout', result_count: 0 });
    expect(byId[DOWN_ID]).toMatchObject({ status: 'error', error: 'connection refused' });
    // The slow peer is given the whole limit, then cut off: A answered while the slow peer still
    // held the request, and closed the connection on it.
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
    expect(slowRequests.map((r) => r.path)).toContain('/tefca/xcpd/discover');
    await eventually(async () => expect(slowRequests.filter((r) => !r.closed)).toEqual([]));
  });

  it('answers an inbound discovery from the registry without creating anything', async () => {
    const res = await post(b, '/tefca/xcpd/discover', { purpose_of_use: 'T-PYMNT', requesting_community_id: A_ID, patient: { given: 'Grace', family: 'Hopper', birth_date: '1906-12-09' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ home_community_id: B_ID, purpose_of_use: 'T-PYMNT', matches: [] });
  });

  it('queries and retrieves the documents across communities', async () => {
    const query = await post(a, '/tefca/xca/search', { purpose_of_use: 'T-TREAT', patients: [{ home_community_id: B_ID, patient_id: gpid }] }, partnerToken);
    expect(query.statusCode).toBe(200);
    expect(query.json().outcome).toBe('success');
    const docs = query.json().documents as { document_id: string; repository_id: string; home_community_id: string; type_code: string; content_type: string }[];
    expect(docs.map((d) => d.document_id).sort()).toEqual([inlineDocId, binaryDocId].sort());
    expect(docs.find((d) => d.document_id === inlineDocId)).toMatchObject({ home_community_id: B_ID, type_code: '18842-5', content_type: 'application/pdf' });

    for (const [id, data, type] of [[inlineDocId, PDF, 'application/pdf'], [binaryDocId, NOTE, 'text/plain']] as const) {
      const doc = docs.find((d) => d.document_id === id)!;
      const got = await post(a, '/tefca/xca/retrieve', { purpose_of_use: 'T-TREAT', home_community_id: B_ID, repository_id: doc.repository_id, document_id: id }, partnerToken);
      expect(got.statusCode).toBe(200);
      expect(got.json()).toMatchObject({ home_community_id: B_ID, document_id: id, content_type: type, data });
    }

    const missing = await post(a, '/tefca/xca/retrieve', { purpose_of_use: 'T-TREAT', home_community_id: B_ID, repository_id: docs[0]!.repository_id, document_id: 'nope' }, partnerToken);
    expect(missing.statusCode).toBe(404);
    const slowRetrieve = await post(a, '/tefca/xca/retrieve', { purpose_of_use: 'T-TREAT', home_community_id: SLOW_ID, repository_id: '2.999.30.1', document_id: 'x', timeout_ms: 300 }, partnerToken);
    expect(slowRetrieve.statusCode).toBe(503);
    expect(slowRetrieve.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', home_community_id: SLOW_ID });
  });

  it('refuses a missing or unknown purpose of use with the field named, and audits the refusal', async () => {
    const missing = await post(a, '/tefca/xcpd/search', { patient }, partnerToken);
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toEqual([expect.objectContaining({ field: 'purpose_of_use' })]);
    const unknown = await post(b, '/tefca/xca/query', { purpose_of_use: 'MARKETING', patient_id: gpid });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual([expect.objectContaining({ field: 'purpose_of_use', message: expect.stringContaining('T-TREAT') })]);
    const badPatient = await post(a, '/tefca/xcpd/search', { purpose_of_use: 'T-TREAT', patient: { birth_date: '12/10/1985' } }, partnerToken);
    expect(badPatient.statusCode).toBe(422);
    expect(badPatient.json().errors.map((e: { field: string }) => e.field).sort()).toEqual(['patient.birth_date', 'patient.family']);
    await eventually(async () => expect((await eventsOf(a, ['tefca.exchange.refused'])).some((e) => e.partnerGpid === partner && e.data['error_code'] === 'VALIDATION_ERROR')).toBe(true));
  });

  it('enforces the tefca.xcpd.* / tefca.xca.* scopes on REST and GraphQL alike', async () => {
    const xcaOnly = await apiToken(a, partner, ['tefca.xca.*']);
    const rest = await post(a, '/tefca/xcpd/search', { purpose_of_use: 'T-TREAT', patient }, xcaOnly);
    expect(rest.statusCode).toBe(403);
    expect(rest.json().code).toBe('INSUFFICIENT_SCOPE');
    const gql = await a.graphql('mutation($p: TefcaPatientInput!) { tefcaSearchPatients(purposeOfUse: "T-TREAT", patient: $p) { exchangeId } }', { p: { family: 'Lovelace' } }, xcaOnly);
    expect(gql.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
  });

  it('accepts a portal session as well as a bearer token', async () => {
    const onboarded = await onboardPartner(a, 'tefca-portal');
    await grantTefca(a, onboarded.partnerGpid);
    const session = await portalSession(a, onboarded.email);
    const res = await post(a, '/tefca/xcpd/search', { purpose_of_use: 'T-IAS', patient, communities: [B_ID] }, session);
    expect(res.statusCode).toBe(200);
    expect(res.json().matches).toEqual([expect.objectContaining({ patient_id: gpid })]);
    const log = await eventually(async () => {
      const rows = (await a.request({ url: '/tefca/exchanges', token: session })).json().exchanges as { partner_gpid: string; purpose_of_use: string }[];
      expect(rows).toHaveLength(1);
      return rows;
    });
    expect(log[0]).toMatchObject({ partner_gpid: onboarded.partnerGpid, purpose_of_use: 'T-IAS' });
  });

  it('runs the GraphQL twins with the same validation', async () => {
    const twin = await a.graphql<{ tefcaSearchPatients: { outcome: string; matches: { patientId: string }[]; communities: { homeCommunityId: string; status: string }[] } }>(
      'mutation($p: TefcaPatientInput!) { tefcaSearchPatients(purposeOfUse: "T-HCO", patient: $p, communities: ["urn:oid:2.999.20"]) { outcome matches { patientId } communities { homeCommunityId status } } }',
      { p: { given: ['Ada'], family: 'Lovelace', birthDate: '1985-12-10', email: 'ada@example.org' } },
      partnerToken,
    );
    expect(twin.errors).toBeUndefined();
    expect(twin.data!.tefcaSearchPatients).toEqual({ outcome: 'success', matches: [{ patientId: gpid }], communities: [{ homeCommunityId: B_ID, status: 'ok' }] });
    const refused = await a.graphql('mutation($p: TefcaPatientInput!) { tefcaSearchPatients(patient: $p) { exchangeId } }', { p: { family: 'Lovelace' } }, partnerToken);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
    const notPeer = await a.graphql('mutation($p: TefcaPatientInput!) { tefcaSearchPatients(purposeOfUse: "T-TREAT", patient: $p, communities: ["urn:oid:2.999.99"]) { exchangeId } }', { p: { family: 'Lovelace' } }, partnerToken);
    expect(notPeer.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
    const directory = await a.graphql<{ tefcaCommunities: { homeCommunityId: string; self: boolean }[] }>('{ tefcaCommunities { homeCommunityId self } }', {}, partnerToken);
    expect(directory.data!.tefcaCommunities.map((c) => c.homeCommunityId)).toEqual([A_ID, B_ID, SLOW_ID, DOWN_ID]);
  });

  it('keeps an immutable, paginated, partner-scoped audit log of inbound and outbound exchanges', async () => {
    // A: the partner's outbound exchanges, with every peer asked and its outcome.
    const outbound = await eventually(async () => {
      const res = await a.request({ url: '/tefca/exchanges?direction=outbound&limit=100', token: partnerToken });
      expect(res.statusCode).toBe(200);
      const rows = res.json().exchanges as Record<string, unknown>[];
      expect(rows.some((r) => r['kind'] === 'xca.retrieve' && r['outcome'] === 'failure')).toBe(true);
      return rows;
    });
    const xcpd = outbound.find((r) => r['kind'] === 'xcpd' && r['outcome'] === 'partial')!;
    expect(xcpd).toMatchObject({ direction: 'outbound', purpose_of_use: 'T-TREAT', partner_gpid: partner, requesting_community_id: A_ID, responding_community_ids: [B_ID], result_count: 1 });
    expect((xcpd['communities'] as { home_community_id: string; status: string }[]).map((c) => [c.home_community_id, c.status])).toEqual([[B_ID, 'ok'], [SLOW_ID, 'timeout'], [DOWN_ID, 'error']]);
    // Pages.
    const first = (await a.request({ url: '/tefca/exchanges?limit=2', token: partnerToken })).json();
    expect(first.exchanges).toHaveLength(2);
    const second = (await a.request({ url: `/tefca/exchanges?limit=2&cursor=${first.next_cursor}`, token: partnerToken })).json();
    expect(second.exchanges[0].exchange_id < first.exchanges[1].exchange_id).toBe(true);
    // Another partner of A sees none of them.
    const other = await registerPartner(a, 'Other Clinic');
    await grantTefca(a, other);
    const otherToken = await apiToken(a, other, ['tefca.xcpd.search']);
    expect((await a.request({ url: '/tefca/exchanges', token: otherToken })).json()).toEqual({ exchanges: [], next_cursor: null });
    // B: the inbound exchanges A made, answered by B's identity and fhir subgraphs.
    await eventually(async () => {
      const rows = (await b.request({ url: '/tefca/exchanges?direction=inbound&limit=100' })).json().exchanges as Record<string, unknown>[];
      const kinds = new Set(rows.map((r) => `${r['kind']}:${r['event_type']}`));
      expect(kinds).toEqual(new Set(['xcpd:tefca.xcpd.discovery.received', 'xca.query:tefca.xca.query.received', 'xca.retrieve:tefca.xca.retrieve.completed', 'xca.retrieve:tefca.xca.retrieve.failed', 'xca.query:tefca.exchange.refused']));
      expect(rows.find((r) => r['kind'] === 'xcpd' && r['requesting_community_id'] === A_ID)).toMatchObject({ responding_community_ids: [B_ID], outcome: 'success' });
    });
  });

  it('delivers the exchange events to the partner webhook', async () => {
    await eventually(async () => {
      const types = new Set(receiver.of('a').map((r) => (JSON.parse(r.body) as { type: string }).type));
      for (const t of ['tefca.xcpd.query.completed', 'tefca.xca.query.completed', 'tefca.xca.retrieve.completed', 'tefca.xca.retrieve.failed', 'tefca.exchange.refused']) expect(types.has(t)).toBe(true);
    });
    const body = JSON.parse(receiver.of('a').find((r) => r.body.includes('tefca.xcpd.query.completed'))!.body);
    expect(JSON.stringify(body)).not.toContain('Lovelace');
  });
});

describe('legacy TEFCA routes', () => {
  it('answer 410 with the deprecation headers past the sunset (B keeps the spec date)', async () => {
    const res = await post(b, '/tefca/v1/patient-discovery', { purpose_of_use: 'T-TREAT', patient });
    expect(res.statusCode).toBe(410);
    expect(res.headers['deprecation']).toBe('true');
    expect(res.headers['sunset']).toBe('Sat, 12 Sep 2026 00:00:00 GMT');
    expect(res.headers['link']).toContain('/tefca/xcpd/search>; rel="successor-version"');
  });

  it('run their successors when the operator moved the sunset (A), outbound or inbound by the body', async () => {
    const outbound = await post(a, '/tefca/v1/patient-discovery', { purpose_of_use: 'T-TREAT', patient, communities: [B_ID] }, partnerToken);
    expect(outbound.statusCode).toBe(200);
    expect(outbound.headers['deprecation']).toBe('true');
    expect(outbound.headers['sunset']).toBe('Tue, 31 Mar 2099 00:00:00 GMT');
    expect(outbound.headers['link']).toContain('/tefca/xcpd/discover>; rel="successor-version"');
    expect(outbound.json()).toMatchObject({ outcome: 'success', matches: [{ home_community_id: B_ID, patient_id: gpid }] });

    const inbound = await post(a, '/tefca/v1/patient-discovery', { purpose_of_use: 'T-TREAT', requesting_community_id: B_ID, patient });
    expect(inbound.statusCode).toBe(200);
    expect(inbound.json()).toMatchObject({ home_community_id: A_ID, matches: [] });

    const docs = await post(a, '/tefca/v1/document-query', { purpose_of_use: 'T-TREAT', patients: [{ home_community_id: B_ID, patient_id: gpid }] }, partnerToken);
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['sunset']).toBe('Tue, 31 Mar 2099 00:00:00 GMT');
    expect(docs.json().documents).toHaveLength(2);
    const refused = await post(a, '/tefca/v1/document-query', { requesting_community_id: B_ID, patient_id: gpid });
    expect(refused.statusCode).toBe(422);
    expect(refused.headers['deprecation']).toBe('true');
  });
});
