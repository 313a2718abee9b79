import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  createMetrics,
  addOutboxTraceParent,
  createOutboxTable,
  loadConfig,
  makeEvent,
  MemoryEventBus,
  openDatabase,
  outboxEntity,
  OutboxRelay,
  OutboxStream,
  recordEvent,
  SchemaMigration,
  type EventEnvelope,
  type Orm,
  type Principal,
  type Subgraph,
} from '@svc/platform';
import { partnerSubgraph } from '@svc/partner';
import { freshStorage, type TestStorage } from './support/databases.js';
import { eventually } from './support/patience.js';

/** The outbox of a stand-in producer: the other components (FHIR, identity, webhooks) whose events certification observes. */
class ProducerOutbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'producer'));
    this.schema((s) => addOutboxTraceParent(s, 'producer'));
  }
}

/** A second producer's outbox: an event committed to both reaches the consumer twice (delivery is at least once). */
class SecondProducerOutbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'producer2'));
    this.schema((s) => addOutboxTraceParent(s, 'producer2'));
  }
}

/**
 * Certification evidence from events of other components, observed by the real partner subgraph on
 * a real database: the producers of these events commit them to their outbox, and the partner
 * subgraph's durable `certification` consumer reads them from the event stream.
 */
describe('certification evidence observed from bus events', () => {
  let storage: TestStorage;
  let subgraph: Subgraph;
  const bus = new MemoryEventBus();
  const published: EventEnvelope[] = [];
  let producer: Orm;
  let producer2: Orm;
  let backbone: OutboxStream;
  let relay: OutboxRelay;
  let relay2: OutboxRelay;
  const operator: Principal = { kind: 'service', partnerGpid: 'CMS-00000000', tokenId: 'tok_operator', scopes: ['*'] };
  let partner: Principal;

  async function run<T = Record<string, any>>(query: string, variables: Record<string, unknown>, principal: Principal): Promise<{ data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] }> {
    const result = await subgraph.execute({ query, variables }, principal, `req_${Math.random().toString(36).slice(2)}`);
    return JSON.parse(JSON.stringify(result)) as { data?: T; errors?: { message: string; extensions?: Record<string, unknown> }[] };
  }

  const CERTIFICATION = `query C($gpid: ID!) { _entities(representations: [{ __typename: "Partner", gpid: $gpid }]) { ... on Partner {
    certification { status checklists { id complete incompleteItemIds submittedAt items { id complete evidence { detail count } } } } } } }`;
  async function certification(): Promise<{ status: string; checklists: { id: string; complete: boolean; incompleteItemIds: string[]; submittedAt: string | null; items: { id: string; complete: boolean; evidence: { detail: string; count: number }[] }[] }[] }> {
    const res = await run<{ _entities: { certification: any }[] }>(CERTIFICATION, { gpid: partner.partnerGpid }, partner);
    expect(res.errors).toBeUndefined();
    return res.data!._entities[0]!.certification;
  }

  beforeAll(async () => {
    storage = await freshStorage();
    const config = loadConfig({ SVC_LOG_LEVEL: 'silent', ...storage.env, SVC_REDIS_URL: '', SVC_OUTBOX_POLL_MS: '50' });
    const logger = createLogger(config);
    backbone = new OutboxStream(bus, logger, 50);
    producer = await openDatabase({ config, owner: 'producer', entities: [outboxEntity('producer')], migrations: [{ name: 'm1', class: ProducerOutbox }] });
    backbone.forOwner('producer', producer);
    relay = new OutboxRelay(producer, 'producer', backbone, 50, (err) => logger.error({ err }, 'relay failed'));
    producer2 = await openDatabase({ config, owner: 'producer2', entities: [outboxEntity('producer2')], migrations: [{ name: 'm1', class: SecondProducerOutbox }] });
    backbone.forOwner('producer2', producer2);
    relay2 = new OutboxRelay(producer2, 'producer2', backbone, 50, (err) => logger.error({ err }, 'relay failed'));
    subgraph = await partnerSubgraph.create({ config, logger, bus, backbone, metrics: createMetrics() });
    await subgraph.start();
    bus.subscribe((event) => void published.push(event));
    const registered = await run<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Lakeside Labs", organizationType: "LABORATORY" }) { gpid } }', {}, operator);
    const gpid = registered.data!.registerPartner.gpid;
    const token = await run<{ createApiToken: { token: { tokenId: string } } }>(
      'mutation T($gpid: ID) { createApiToken(input: { partnerGpid: $gpid, name: "sandbox", scopes: ["cms.partner.write", "cms.fhir.r4.read"] }) { token { tokenId } } }',
      { gpid },
      operator,
    );
    expect(token.errors).toBeUndefined();
    partner = { kind: 'partner', partnerGpid: gpid, tokenId: token.data!.createApiToken.token.tokenId, scopes: ['cms.partner.write', 'cms.fhir.r4.read'] };
  });
  afterAll(async () => {
    await subgraph?.stop();
    await backbone?.close();
    await producer?.close();
    await producer2?.close();
    await storage?.dispose();
  });

  it('completes observed items only from evidence, records each event once, and then accepts the submission', async () => {
    const before = await certification();
    const items = Object.fromEntries(before.checklists[0]!.items.map((i) => [i.id, i]));
    // The certification query above was this partner's first authenticated call.
    expect(items['sandbox_first_authenticated_call']).toMatchObject({ complete: true });
    expect(items['least_privilege_scopes']).toMatchObject({ complete: true });

    const signed = await run('mutation { signBaa(signerName: "Lee Park", signerTitle: "Lab Director", signerEmail: "lee@lakeside-labs.org") { id } }', {}, partner);
    expect(signed.errors).toBeUndefined();
    const attested = await run(
      'mutation P($items: JSONObject!) { updateCertificationProgress(checklistId: "partner_ecosystem", items: $items) { status } }',
      { items: { webhook_idempotency: true, credential_rotation: true, rate_limit_backoff: true, deprecation_header_handling: true, problem_json_errors: true } },
      partner,
    );
    expect(attested.errors).toBeUndefined();

    const refused = await run('mutation { submitCertification(checklistId: "partner_ecosystem") { status } }', {}, partner);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', incomplete_items: ['fhir_r4_sandbox_read', 'gpid_boundary_headers', 'webhook_signature_verification'] });

    const gpid = partner.partnerGpid;
    const ping = makeEvent('webhook.test_ping.verified', gpid, { event: 'webhook.test_ping.verified', delivery_id: 'dlv_1', status: 200 });
    // The FHIR subgraph's exact count of the partner's reads of a second; the audit events
    // (fhir.resource.read, whatever SVC_FHIR_READ_EVENTS makes of them) are not what is counted.
    const counted = makeEvent('fhir.internal.reads_counted', gpid, { partner_gpid: gpid, count: 3, first_request_id: 'req_fhir_1', last_request_id: 'req_fhir_3' });
    for (const event of [
      makeEvent('fhir.resource.read', gpid, { resource_type: 'Patient', interaction: 'search', status: 200, request_id: 'req_fhir', count: 5 }),
      counted,
      makeEvent('identity.resolved', gpid, { source: 'not-an-origin' }),
      makeEvent('fhir.resource.created', gpid, { source: 'lake', request_id: 'req_write' }),
      makeEvent('webhook.test_ping.verified', gpid, { delivery_id: 'dlv_0', status: 500 }),
      ping,
      makeEvent('webhook.test_ping.verified', 'CMS-99999999', { delivery_id: 'dlv_x', status: 200 }),
      makeEvent('webhook.test_ping.verified', null, { delivery_id: 'dlv_y', status: 200 }),
    ]) {
      // Each committed by its producer, as FHIR, identity and webhooks do.
      const em = producer.em.fork();
      recordEvent(em, event);
      await em.flush();
    }
    await relay.flush();
    // The same counting event delivered a second time (a redelivery after a crash): counted once.
    const redelivered = producer2.em.fork();
    recordEvent(redelivered, counted);
    await redelivered.flush();
    await relay2.flush();
    const more = makeEvent('fhir.internal.reads_counted', gpid, { partner_gpid: gpid, count: 2, first_request_id: 'req_fhir_4', last_request_id: 'req_fhir_5' });
    const later = producer.em.fork();
    recordEvent(later, more);
    await later.flush();
    await relay.flush();

    const after = await eventually(async () => {
      const now = await certification();
      expect(now.status).toBe('READY');
      return now;
    });
    const ecosystem = after.checklists.find((c) => c.id === 'partner_ecosystem')!;
    expect(ecosystem).toMatchObject({ complete: true, incompleteItemIds: [] });
    expect(after.status).toBe('READY');
    const byId = Object.fromEntries(ecosystem.items.map((i) => [i.id, i]));
    expect(byId['webhook_signature_verification']!.evidence).toEqual([{ detail: 'test.ping dlv_1 to an endpoint accepted signed (200), the same body under a wrong signature refused (4xx).', count: 1 }]);
    expect(byId['gpid_boundary_headers']!.evidence).toEqual([{ detail: 'fhir.resource.created with X-Svc-Source: lake (req_write).', count: 1 }]);
    // One piece of evidence for the partner's reads, counting each read once: 3 + 2, not 3 + 3 + 2 nor the audit event's 5.
    await eventually(async () => {
      const now = await certification();
      const reads = now.checklists.find((c) => c.id === 'partner_ecosystem')!.items.find((i) => i.id === 'fhir_r4_sandbox_read')!;
      expect(reads.evidence).toEqual([{ detail: 'FHIR R4 reads, latest req_fhir_5.', count: 5 }]);
    });
    expect(byId['gpid_boundary_headers']!.evidence[0]!.count).toBe(1);
    // The identity checklist shares observed facts but still needs its own items.
    expect(after.checklists.find((c) => c.id === 'identity')!.incompleteItemIds).toContain('identity_sandbox_match');

    const submitted = await run<{ submitCertification: { status: string; checklists: { id: string; submittedAt: string | null }[] } }>(
      'mutation { submitCertification(checklistId: "partner_ecosystem") { status checklists { id submittedAt } } }',
      {},
      partner,
    );
    expect(submitted.errors).toBeUndefined();
    expect(submitted.data!.submitCertification.checklists.find((c) => c.id === 'partner_ecosystem')!.submittedAt).toEqual(expect.any(String));
    const again = await run('mutation { submitCertification(checklistId: "partner_ecosystem") { status } }', {}, partner);
    expect(again.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');

    await eventually(async () => expect(published.some((e) => e.type === 'partner.certification.submitted')).toBe(true), undefined, 20);
    expect(published.find((e) => e.type === 'partner.certification.submitted')).toMatchObject({
      partner_gpid: gpid,
      data: { event: 'partner.certification.submitted', checklist_id: 'partner_ecosystem', required_total: 11 },
    });
    expect(published.filter((e) => e.type === 'partner.baa.signed')).toHaveLength(1);
  });

  it('refuses a certification write from the operator and from a read-only credential', async () => {
    const fromOperator = await run('mutation { submitCertification(checklistId: "identity") { status } }', {}, operator);
    expect(fromOperator.errors?.[0]?.extensions?.['code']).toBe('FORBIDDEN');
    const readOnly = await run('mutation { submitCertification(checklistId: "identity") { status } }', {}, { ...partner, scopes: ['cms.partner.read'] });
    expect(readOnly.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
  });
});
