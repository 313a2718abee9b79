import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventually, identityClient, mintToken, registerPartner, serviceToken } from './support/identity.js';
import { AGREEMENTS, INTEGRATION_STEP, organizationStep, PORTAL_PASSWORD } from './support/partner-onboarding.js';

/**
 * The REST twins of the TEFCA directory, the identity registry reads (change requests, audit chain,
 * entity types), the certification checklists and the anonymous applicant flow: each answers what
 * its GraphQL field answers, names bad input, refuses a missing credential or scope, and answers
 * another partner's (or applicant's) object exactly like a missing one.
 */

const RESUME = 'x-svc-resume-token';

/** A response as text, with the asked-for id and request ids blanked out. */
function comparable(res: LightMyRequestResponse, asked: string): string {
  return res.body
    .replaceAll(asked, '<id>')
    .replace(/"request_id":"[^"]*"/g, '"request_id":"<request>"')
    .replace(/req_[0-9a-z]+/g, '<request>');
}

/** An id of the same shape as `id` that nothing has. */
const missingLike = (id: string) => `${id.slice(0, -8)}${randomBytes(4).toString('hex')}`;

/** A problem naming `field`: 422, or 400 for a cursor this API did not issue (as on every paged route). */
function expectFieldError(res: LightMyRequestResponse, field: string, status: 400 | 422 = 422): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect((res.json() as { errors: { field: string }[] }).errors.map((e) => e.field)).toContain(field);
}

function expectRefused(res: LightMyRequestResponse, status: 401 | 403): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().code).toBe(status === 401 ? 'UNAUTHENTICATED' : 'INSUFFICIENT_SCOPE');
}

describe('REST twins of GraphQL fields', () => {
  let t: TestSystem;
  const partners: Record<'a' | 'b', { gpid: string; steward: string; tefca: string }> = {} as never;
  /** A token of partner A without TEFCA, merge, split or approve scopes. */
  let reader: string;

  /** The operator's grant of merge, split, approve and inbound TEFCA discovery to a partner. */
  async function grantScopes(partnerGpid: string): Promise<void> {
    const { DEFAULT_PARTNER_SCOPES } = await import('../subgraphs/partner/src/domain/partner-scopes.js');
    const extra = ['identity.merge', 'identity.split', 'identity.approve', 'tefca.xcpd.discover'];
    const res = await t.request({ method: 'PUT', url: `/cms/partners/${partnerGpid}/scopes`, body: { scopes: [...DEFAULT_PARTNER_SCOPES, ...extra] } });
    expect(res.statusCode, res.body).toBe(200);
  }

  beforeAll(async () => {
    t = await bootSystem();
    for (const key of ['a', 'b'] as const) {
      const gpid = await registerPartner(t, `Twin Health ${key.toUpperCase()} ${randomBytes(3).toString('hex')}`);
      await grantScopes(gpid);
      partners[key] = {
        gpid,
        steward: await mintToken(t, ['identity.read', 'identity.merge', 'identity.split', 'identity.approve'], gpid),
        tefca: await mintToken(t, ['tefca.xcpd.discover'], gpid),
      };
    }
    // The operator creates 5 tokens here: POST /cms/tokens and createApiToken allow 5 a minute.
    reader = await mintToken(t, ['cms.partner.read', 'identity.read'], partners.a.gpid);
  });
  afterAll(() => t?.close());

  describe('TEFCA directory and one exchange', () => {
    it('GET /tefca/communities lists this community, with any TEFCA scope', async () => {
      const res = await t.request({ url: '/tefca/communities', token: partners.a.tefca });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().communities[0]).toMatchObject({ home_community_id: t.config.tefca.homeCommunityId, self: true, base_url: null, capabilities: ['xcpd', 'xca'] });
      expectFieldError(await t.request({ url: '/tefca/communities?region=east', token: partners.a.tefca }), 'region');
      expectRefused(await t.request({ url: '/tefca/communities', token: reader }), 403);
      expectRefused(await t.request({ url: '/tefca/communities', token: null }), 401);
    });

    it("GET /tefca/exchanges/{exchange_id} reads the partner's exchange; another partner's answers like a missing one", async () => {
      const discover = await t.request({
        method: 'POST',
        url: '/tefca/xcpd/discover',
        token: partners.a.tefca,
        body: { purpose_of_use: 'T-TREAT', patient: { given: 'Odalys', family: 'Brennan-Whitcombe', birth_date: '1971-04-30' } },
      });
      expect(discover.statusCode, discover.body).toBe(200);
      const exchangeId = discover.json().exchange_id as string;
      // The audit log is projected from the exchange's event.
      const own = await eventually(async () => {
        const res = await t.request({ url: `/tefca/exchanges/${exchangeId}`, token: partners.a.tefca });
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      });
      expect(own).toMatchObject({ exchange_id: exchangeId, partner_gpid: partners.a.gpid, kind: 'xcpd', direction: 'inbound', purpose_of_use: 'T-TREAT' });

      const other = await t.request({ url: `/tefca/exchanges/${exchangeId}`, token: partners.b.tefca });
      const missingId = missingLike(exchangeId);
      const none = await t.request({ url: `/tefca/exchanges/${missingId}`, token: partners.b.tefca });
      expect(other.statusCode).toBe(404);
      expect(comparable(other, exchangeId)).toBe(comparable(none, missingId));

      expectFieldError(await t.request({ url: '/tefca/exchanges/xch_nope', token: partners.a.tefca }), 'exchange_id');
      expectRefused(await t.request({ url: `/tefca/exchanges/${exchangeId}`, token: reader }), 403);
    });
  });

  describe('identity registry reads', () => {
    let mergeId: string;
    let splitId: string;

    beforeAll(async () => {
      const id = identityClient(t);
      const service = await serviceToken(t, partners.a.gpid, 'identity.resolve');
      const first = await id.resolve({ name: 'Marisol Etxeberria-Lindqvist', dob: '1963-09-14', email: 'marisol.el@example.net' }, 'pulse', service);
      const second = await id.resolve({ name: 'Marisol Etxeberria', dob: '1963-04-09', email: 'm.etxeberria@example.org' }, 'lake', service);
      expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
      const [survivor, duplicate] = [first.json().gpid as string, second.json().gpid as string];
      expect(survivor).not.toBe(duplicate);
      const merge = await id.merge({ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'manual_review' }, 'cms', partners.a.steward);
      expect(merge.statusCode, merge.body).toBe(200);
      mergeId = merge.json().request_id;
      expect((await id.merge({ approve: mergeId }, 'cms')).json().status).toBe('APPLIED');
      const split = await id.split({ gpid: duplicate, reason: 'manual_correction' }, 'cms', partners.a.steward);
      expect(split.statusCode, split.body).toBe(200);
      splitId = split.json().request_id;
    });

    it('GET /api/identity/change-requests/{request_id} reads a request; another partner\'s answers like a missing one', async () => {
      const res = await t.request({ url: `/api/identity/change-requests/${splitId}`, token: partners.a.steward });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ request_id: splitId, kind: 'split', status: 'PENDING', reason: 'manual_correction', approval: { required: true } });
      const applied = await t.request({ url: `/api/identity/change-requests/${mergeId}`, token: partners.a.steward });
      expect(applied.json()).toMatchObject({ request_id: mergeId, kind: 'merge', status: 'APPLIED' });

      const other = await t.request({ url: `/api/identity/change-requests/${splitId}`, token: partners.b.steward });
      const missingId = missingLike(splitId);
      const none = await t.request({ url: `/api/identity/change-requests/${missingId}`, token: partners.b.steward });
      expect(other.statusCode).toBe(404);
      expect(comparable(other, splitId)).toBe(comparable(none, missingId));

      expectFieldError(await t.request({ url: '/api/identity/change-requests/chg_1', token: partners.a.steward }), 'request_id');
      expectRefused(await t.request({ url: `/api/identity/change-requests/${splitId}`, token: reader }), 403);
    });

    it('GET /api/identity/change-requests pages the partner\'s requests, newest first, and filters them', async () => {
      const first = await t.request({ url: '/api/identity/change-requests?limit=1', token: partners.a.steward });
      expect(first.statusCode, first.body).toBe(200);
      const page1 = first.json() as { change_requests: { request_id: string }[]; next_cursor: string | null };
      expect(page1.change_requests.map((r) => r.request_id)).toEqual([splitId]);
      expect(page1.next_cursor).not.toBeNull();
      const second = await t.request({ url: `/api/identity/change-requests?limit=1&cursor=${encodeURIComponent(page1.next_cursor!)}`, token: partners.a.steward });
      expect(second.json().change_requests.map((r: { request_id: string }) => r.request_id)).toEqual([mergeId]);
      const merges = await t.request({ url: '/api/identity/change-requests?kind=merge&status=applied', token: partners.a.steward });
      expect(merges.json().change_requests.map((r: { request_id: string }) => r.request_id)).toEqual([mergeId]);

      const other = await t.request({ url: '/api/identity/change-requests', token: partners.b.steward });
      expect(other.statusCode).toBe(200);
      expect(other.json().change_requests).toEqual([]);

      expectFieldError(await t.request({ url: '/api/identity/change-requests?status=open', token: partners.a.steward }), 'status');
      expectFieldError(await t.request({ url: '/api/identity/change-requests?limit=500', token: partners.a.steward }), 'limit');
      expectFieldError(await t.request({ url: '/api/identity/change-requests?cursor=forged', token: partners.a.steward }), 'cursor', 400);
      expectRefused(await t.request({ url: '/api/identity/change-requests', token: reader }), 403);
    });

    it("GET /api/identity/audit lists the entries of the partner's changes only, and verification walks the chain", async () => {
      const own = await t.request({ url: '/api/identity/audit?types=identity.merged.v1', token: partners.a.steward });
      expect(own.statusCode, own.body).toBe(200);
      const entries = own.json().entries as { seq: number; type: string; payload: { request_id: string }; hash: string; prev_hash: string }[];
      expect(entries.map((e) => e.payload.request_id)).toEqual([mergeId]);
      expect(entries[0]).toMatchObject({ type: 'identity.merged.v1', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const other = await t.request({ url: '/api/identity/audit', token: partners.b.steward });
      expect(other.json()).toEqual({ entries: [], next_cursor: null });
      const all = await t.request({ url: '/api/identity/audit?limit=1' });
      expect(all.json().entries).toHaveLength(1);

      // The chain holds every partner's changes: its length and head are for operators only.
      expectRefused(await t.request({ url: '/api/identity/audit/verification', token: partners.a.steward }), 403);
      const verification = await t.request({ url: '/api/identity/audit/verification' });
      expect(verification.statusCode, verification.body).toBe(200);
      expect(verification.json()).toMatchObject({ valid: true, first_invalid_seq: null, problem: null, head_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(verification.json().checked).toBeGreaterThanOrEqual(1);

      expectFieldError(await t.request({ url: '/api/identity/audit?limit=0', token: partners.a.steward }), 'limit');
      expectFieldError(await t.request({ url: '/api/identity/audit?cursor=abc', token: partners.a.steward }), 'cursor', 400);
      expectFieldError(await t.request({ url: '/api/identity/audit/verification?deep=1' }), 'deep');
      expectRefused(await t.request({ url: '/api/identity/audit', token: reader }), 403);
      expectRefused(await t.request({ url: '/api/identity/audit/verification', token: reader }), 403);
    });

    it('GET /api/identity/entity-types lists the 22 types to any credential', async () => {
      const res = await t.request({ url: '/api/identity/entity-types', token: reader });
      expect(res.statusCode, res.body).toBe(200);
      const types = res.json().entity_types as { id: string; code: string; fhir_resource_type: string | null }[];
      expect(types).toHaveLength(22);
      expect(types[0]).toMatchObject({ id: 'patient', code: 'PAT', fhir_resource_type: 'Patient' });
      expect(types[21]).toMatchObject({ id: 'service', code: 'SRV' });
      expectFieldError(await t.request({ url: '/api/identity/entity-types?code=PAT', token: reader }), 'code');
      expectRefused(await t.request({ url: '/api/identity/entity-types', token: null }), 401);
    });
  });

  describe('certification checklists', () => {
    it('GET /api/partner/certification/checklists answers the definitions without a credential, as the GraphQL field does', async () => {
      const res = await t.request({ url: '/api/partner/certification/checklists', token: null });
      expect(res.statusCode, res.body).toBe(200);
      const checklists = res.json().checklists as { id: string; items: { required: boolean; evidence_kind: string }[] }[];
      expect(checklists.map((c) => c.id)).toEqual(['partner_ecosystem', 'identity']);
      expect(checklists.map((c) => c.items.filter((i) => i.required).length)).toEqual([11, 12]);
      expect(new Set(checklists.flatMap((c) => c.items.map((i) => i.evidence_kind)))).toEqual(new Set(['observed', 'attested']));
      expectFieldError(await t.request({ url: '/api/partner/certification/checklists?checklist=identity', token: null }), 'checklist');
      // Public like its twin: a partner credential reads the same.
      expect((await t.request({ url: '/api/partner/certification/checklists', token: reader })).body).toBe(res.body);
    });
  });

  describe('the anonymous applicant flow', () => {
    // Anonymous calls are counted per address: each test starts with the address's burst allowance (30 per second) refilled.
    beforeEach(() => new Promise((resolve) => setTimeout(resolve, 1100)));
    const start = () => t.request({ method: 'POST', url: '/api/partner/applications', token: null });
    const save = (id: string, token: string | null, step: string, body: unknown) =>
      t.request({ method: 'PUT', url: `/api/partner/applications/${id}/steps/${step}`, token: null, headers: token ? { [RESUME]: token } : {}, body });
    const read = (id: string, token: string | null) => t.request({ url: `/api/partner/applications/${id}`, token: null, headers: token ? { [RESUME]: token } : {} });
    const submit = (id: string, token: string | null) => t.request({ method: 'POST', url: `/api/partner/applications/${id}/submit`, token: null, headers: token ? { [RESUME]: token } : {} });

    it('starts a draft: 201 with the resume token once, never cached', async () => {
      const res = await start();
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ status: 'draft', portal_password_set: false, progress: { next_step: 'organization', complete: false } });
      expect(body.resume_token).toMatch(/^svc_app_/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['location']).toBe(`/api/partner/applications/${body.application_id}`);
      expectFieldError(await t.request({ method: 'POST', url: '/api/partner/applications', token: null, body: { legal_name: 'x' } }), 'legal_name');
    });

    it('shares the onboarding limits with GraphQL: a start on either door spends the same counter', async () => {
      const before = await start();
      expect(before.headers['ratelimit-policy']).toContain('"route";q=10;w=60');
      const graphql = await t.graphql('mutation { startPartnerApplication { resumeToken } }', {}, null);
      expect(graphql.errors).toBeUndefined();
      const after = await start();
      expect(Number(after.headers['x-ratelimit-remaining'])).toBe(Number(before.headers['x-ratelimit-remaining']) - 2);
    });

    it('saves steps, reads the draft back, and submits it complete', async () => {
      const app = (await start()).json() as { application_id: string; resume_token: string };
      const id = app.application_id;
      const bad = await save(id, app.resume_token, 'organization', { ...organizationStep('twin-bad'), npi: '12' });
      expect(bad.statusCode, bad.body).toBe(200);
      expect(bad.json()).toMatchObject({ step: 'organization', valid: false });
      expect(bad.json().field_errors.map((e: { field: string }) => e.field)).toContain('organization.npi');

      const incomplete = await submit(id, app.resume_token);
      expectFieldError(incomplete, 'organization.npi');

      for (const [step, body] of [
        ['organization', organizationStep(`twin-${randomBytes(3).toString('hex')}`)],
        ['integration', INTEGRATION_STEP],
        ['account', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS }],
      ] as const) {
        const saved = await save(id, app.resume_token, step, body);
        expect(saved.statusCode, saved.body).toBe(200);
        expect(saved.json()).toMatchObject({ step, valid: true, field_errors: [] });
      }
      const resumed = await read(id, app.resume_token);
      expect(resumed.statusCode, resumed.body).toBe(200);
      expect(resumed.json()).toMatchObject({ application_id: id, status: 'draft', portal_password_set: true, progress: { next_step: null, complete: true, errors: [] } });
      expect(resumed.json().account).not.toHaveProperty('portal_password');

      const submitted = await submit(id, app.resume_token);
      expect(submitted.statusCode, submitted.body).toBe(200);
      expect(submitted.json()).toMatchObject({ application_id: id, status: 'submitted', submitted_at: expect.any(String) });
      const again = await save(id, app.resume_token, 'integration', INTEGRATION_STEP);
      expect(again.statusCode, again.body).toBe(409);
    });

    it('names bad input: the application id, the step and the body', async () => {
      const app = (await start()).json() as { application_id: string; resume_token: string };
      expectFieldError(await read('app_nope', app.resume_token), 'application_id');
      expectFieldError(await save(app.application_id, app.resume_token, 'billing', {}), 'step');
      expectFieldError(await save(app.application_id, app.resume_token, 'integration', ['use_case']), '');
      expectFieldError(await submit('application-1', app.resume_token), 'application_id');
    });

    it("refuses a request without the resume token, and answers another applicant's draft like a missing one", async () => {
      const mine = (await start()).json() as { application_id: string; resume_token: string };
      const theirs = (await start()).json() as { application_id: string; resume_token: string };
      for (const res of [await read(mine.application_id, null), await save(mine.application_id, null, 'integration', INTEGRATION_STEP), await submit(mine.application_id, null)]) {
        expect(res.statusCode, res.body).toBe(401);
        expect(res.json()).toMatchObject({ code: 'UNAUTHENTICATED', header: 'X-Svc-Resume-Token' });
      }
      const missingId = missingLike(theirs.application_id);
      const calls = [
        (id: string) => read(id, mine.resume_token),
        (id: string) => save(id, mine.resume_token, 'integration', INTEGRATION_STEP),
        (id: string) => submit(id, mine.resume_token),
      ];
      for (const call of calls) {
        const other = await call(theirs.application_id);
        const none = await call(missingId);
        expect(other.statusCode, other.body).toBe(404);
        expect(comparable(other, theirs.application_id)).toBe(comparable(none, missingId));
      }
      // Their draft is untouched.
      expect((await read(theirs.application_id, theirs.resume_token)).json()).toMatchObject({ integration: null, status: 'draft' });
    });
  });
});
