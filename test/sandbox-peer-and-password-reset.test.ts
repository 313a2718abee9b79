import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventually, mintToken, registerPartner } from './support/identity.js';
import { onboardPartner, portalSession, PORTAL_PASSWORD } from './support/partner-onboarding.js';

/**
 * A fresh sandbox, as `npm start` boots it (no SVC_TEFCA_PEERS): the built-in sandbox peer
 * community answers TEFCA exchanges through the real outbound client (HTTP to the peer, bearer
 * credential, audit log), from its synthetic sample data, on both doors. And the e-mail-free
 * password reset: an operator issues a one-time link, the partner uses it once.
 */

const TEFCA = ['tefca.xcpd.search', 'tefca.xca.search', 'tefca.xca.retrieve'];
const SANDBOX_ID = 'urn:oid:2.999.900.1';
const JORDAN = { given: 'Jordan', family: 'Sample', birth_date: '1980-04-12', gender: 'female' };

describe('a fresh sandbox', () => {
  let t: TestSystem;
  const a = { gpid: '', token: '' };
  const b = { gpid: '', token: '' };

  beforeAll(async () => {
    t = await bootSystem();
    a.gpid = await registerPartner(t, 'Sandbox Partner A');
    b.gpid = await registerPartner(t, 'Sandbox Partner B');
    for (const p of [a, b]) {
      const grant = await t.request({ method: 'PUT', url: `/cms/partners/${p.gpid}/scopes`, body: { scopes: [...TEFCA, 'cms.partner.read'] } });
      expect(grant.statusCode, grant.body).toBe(200);
      p.token = await mintToken(t, TEFCA, p.gpid);
    }
  });
  afterAll(() => t?.close());

  describe('the sandbox peer community', () => {
    it('is listed in the directory, labelled as the sandbox peer', async () => {
      const res = await t.request({ url: '/tefca/communities', token: a.token });
      expect(res.statusCode, res.body).toBe(200);
      const [self, peer, ...rest] = res.json().communities as Record<string, unknown>[];
      expect(self).toMatchObject({ self: true, sandbox: false });
      expect(peer).toMatchObject({ home_community_id: SANDBOX_ID, self: false, sandbox: true, capabilities: ['xcpd', 'xca'] });
      expect(peer!['name']).toMatch(/sandbox/i);
      expect(peer!['base_url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(rest).toEqual([]);
      const gql = await t.graphql<{ tefcaCommunities: { homeCommunityId: string; sandbox: boolean }[] }>('{ tefcaCommunities { homeCommunityId sandbox } }', {}, a.token);
      expect(gql.data?.tefcaCommunities.map((c) => [c.homeCommunityId, c.sandbox])).toEqual([[t.config.tefca.homeCommunityId, false], [SANDBOX_ID, true]]);
    });

    it('finds a sample patient over HTTP, documents, and their content, on REST and GraphQL', async () => {
      const found = await t.request({ method: 'POST', url: '/tefca/xcpd/search', token: a.token, body: { purpose_of_use: 'T-TRTMNT', patient: { ...JORDAN, family: 'Sámple' } } });
      expect(found.statusCode, found.body).toBe(200);
      expect(found.json()).toMatchObject({ outcome: 'success', communities: [{ home_community_id: SANDBOX_ID, status: 'ok', result_count: 1, error: null }] });
      const [match] = found.json().matches as { patient_id: string; match_grade: string; match_quality: number }[];
      expect(match).toMatchObject({ home_community_id: SANDBOX_ID, patient_id: 'SBX-PAT-0001', match_grade: 'certain', match_quality: 1 });

      // A partial description is a probable match of each sample patient it fits, best first.
      const family = await t.graphql<{ tefcaSearchPatients: { matches: { patientId: string; matchGrade: string }[] } }>(
        'mutation($p: TefcaPatientInput!) { tefcaSearchPatients(purposeOfUse: "T-TRTMNT", patient: $p) { matches { patientId matchGrade } } }',
        { p: { family: 'Sample', given: ['Avery'] } },
        a.token,
      );
      expect(family.errors).toBeUndefined();
      expect(family.data!.tefcaSearchPatients.matches).toEqual([{ patientId: 'SBX-PAT-0002', matchGrade: 'probable' }]);

      const docs = await t.request({ method: 'POST', url: '/tefca/xca/search', token: a.token, body: { purpose_of_use: 'T-TRTMNT', patients: [{ home_community_id: SANDBOX_ID, patient_id: match!.patient_id }] } });
      expect(docs.statusCode, docs.body).toBe(200);
      const documents = docs.json().documents as { document_id: string; repository_id: string; title: string; size: number; type_code: string }[];
      expect(documents.map((d) => d.type_code).sort()).toEqual(['11502-2', '34133-9']);
      expect(documents.every((d) => /synthetic sample/i.test(d.title))).toBe(true);

      const summary = documents.find((d) => d.type_code === '34133-9')!;
      const got = await t.request({ method: 'POST', url: '/tefca/xca/retrieve', token: a.token, body: { purpose_of_use: 'T-TRTMNT', home_community_id: SANDBOX_ID, repository_id: summary.repository_id, document_id: summary.document_id } });
      expect(got.statusCode, got.body).toBe(200);
      const text = Buffer.from(got.json().data as string, 'base64').toString('utf8');
      expect(text).toMatch(/^SYNTHETIC SAMPLE DATA/);
      expect(got.json().size).toBe(summary.size);

      const missing = await t.request({ method: 'POST', url: '/tefca/xca/retrieve', token: a.token, body: { purpose_of_use: 'T-TRTMNT', home_community_id: SANDBOX_ID, repository_id: summary.repository_id, document_id: 'SBX-PAT-9999-SUM' } });
      expect(missing.statusCode, missing.body).toBe(404);
    });

    it('answers the same from deterministic data: a second search matches the first', async () => {
      const ask = async () => (await t.request({ method: 'POST', url: '/tefca/xcpd/search', token: b.token, body: { purpose_of_use: 'T-PYMNT', patient: { family: 'Sample', birth_date: '2001-09-09' } } })).json().matches;
      const first = await ask();
      expect(first).toEqual([{ home_community_id: SANDBOX_ID, community_name: expect.stringMatching(/sandbox/i), patient_id: 'SBX-PAT-0005', match_quality: 0.7, match_grade: 'probable' }]);
      expect(await ask()).toEqual(first);
    });

    it("refuses bad input naming the field, and keeps each partner's audit log its own", async () => {
      const bad = await t.request({ method: 'POST', url: '/tefca/xcpd/search', token: a.token, body: { purpose_of_use: 'T-NOPE', patient: JORDAN } });
      expect(bad.statusCode).toBe(422);
      expect(JSON.stringify(bad.json().errors)).toContain('purpose_of_use');

      const mine = await eventually(async () => {
        const list = (await t.request({ url: '/tefca/exchanges?direction=outbound', token: a.token })).json().exchanges as { exchange_id: string; partner_gpid: string; communities: { home_community_id: string }[] }[];
        expect(list.filter((x) => x.communities.some((c) => c.home_community_id === SANDBOX_ID)).length).toBeGreaterThanOrEqual(3);
        return list;
      });
      expect(new Set(mine.map((x) => x.partner_gpid))).toEqual(new Set([a.gpid]));
      const theirs = await t.request({ url: `/tefca/exchanges/${mine[0]!.exchange_id}`, token: b.token });
      expect(theirs.statusCode).toBe(404);
      const unknown = await t.request({ url: `/tefca/exchanges/xch_${'0'.repeat(26)}`, token: b.token });
      expect(theirs.json().detail.replace(mine[0]!.exchange_id, 'X')).toBe(unknown.json().detail.replace(`xch_${'0'.repeat(26)}`, 'X'));
    });
  });

  describe('operator-issued password reset', () => {
    const NEW_PASSWORD = 'Harbor9!Meadow#Kestrel';
    let p: { partnerGpid: string; email: string };
    let q: { partnerGpid: string; email: string };
    const issue = (gpid: string, token: string | null = t.operatorToken) => t.request({ method: 'POST', url: `/cms/partners/${gpid}/portal-password-resets`, token, body: {} });
    const use = (token: string, password: string) => t.request({ method: 'POST', url: '/cms/portal-password-reset', token: null, body: { token, password } });
    const login = (email: string, password: string) => t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email, password } });
    const viewer = async (session: string) => (await t.graphql<{ viewer: { partnerGpid: string } }>('{ viewer { partnerGpid } }', {}, session));

    beforeAll(async () => {
      p = await onboardPartner(t, `reset-p-${Date.now().toString(36)}`);
      q = await onboardPartner(t, `reset-q-${Date.now().toString(36)}`);
    });

    it('is refused without cms.admin, on both doors', async () => {
      const partnerSession = await portalSession(t, p.email);
      expect((await issue(p.partnerGpid, partnerSession)).statusCode).toBe(403);
      expect((await issue(p.partnerGpid, a.token)).statusCode).toBe(403);
      expect((await issue(p.partnerGpid, null)).statusCode).toBe(401);
      const gql = await t.graphql('mutation($g: ID!) { createPortalPasswordReset(partnerGpid: $g) { token } }', { g: p.partnerGpid }, partnerSession);
      expect(gql.errors?.[0]?.extensions?.['code']).toMatch(/INSUFFICIENT_SCOPE|FORBIDDEN/);
      // A partner without a portal account: nothing to reset.
      expect((await issue(a.gpid)).statusCode).toBe(404);
      expect((await t.request({ method: 'POST', url: '/cms/partners/not-a-gpid/portal-password-resets', body: {} })).statusCode).toBe(422);
    });

    it('sets a new password once, ends the open sessions of that partner only, and cannot be reused', async () => {
      const sessionP = await portalSession(t, p.email);
      const sessionQ = await portalSession(t, q.email);
      const issued = await issue(p.partnerGpid);
      expect(issued.statusCode, issued.body).toBe(201);
      expect(issued.headers['cache-control']).toBe('no-store');
      const link = issued.json() as { id: string; token: string; reset_url: string; email: string; expires_at: string };
      expect(link).toMatchObject({ partner_gpid: p.partnerGpid, email: p.email });
      expect(link.id).toMatch(/^pwr_/);
      expect(link.token).toMatch(/^svc_pwr_/);
      expect(link.reset_url).toBe(`${t.config.publicUrl}/portal/reset-password#token=${link.token}`);
      expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(50 * 60_000);

      // The policy of sign-up holds, and a refused password leaves the link usable.
      const weak = await use(link.token, 'short');
      expect(weak.statusCode).toBe(422);
      expect(weak.json().errors.map((e: { field: string }) => e.field)).toContain('password');

      const done = await use(link.token, NEW_PASSWORD);
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json()).toMatchObject({ partner_gpid: p.partnerGpid, email: p.email });
      expect(done.json().sessions_ended).toBeGreaterThanOrEqual(1);
      expect((await viewer(sessionP)).status).toBe(401);
      expect((await viewer(sessionQ)).data?.viewer.partnerGpid).toBe(q.partnerGpid);
      expect((await login(p.email, PORTAL_PASSWORD)).statusCode).toBe(401);
      expect((await login(p.email, NEW_PASSWORD)).statusCode).toBe(200);

      const again = await use(link.token, 'Another7!Passphrase#Here');
      expect(again.statusCode).toBe(422);
      const unknown = await use('svc_pwr_' + 'x'.repeat(43), 'Another7!Passphrase#Here');
      expect(unknown.statusCode).toBe(422);
      expect(again.json().errors).toEqual([{ field: 'token', message: expect.stringMatching(/unknown, already used or expired/) }]);
      expect(unknown.json().errors).toEqual(again.json().errors);
      expect(unknown.json().detail).toBe(again.json().detail);
    });

    it('lifts a sign-in lockout of the account it resets', async () => {
      const r = await onboardPartner(t, `reset-r-${Date.now().toString(36)}`);
      // From an address of its own, so the sign-in route's per-address limit of the other tests is not spent.
      const loginFrom = (password: string) =>
        t.system.app.inject({ method: 'POST', url: '/cms/partner-login', remoteAddress: '198.51.100.23', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: r.email, password }) });
      for (let i = 0; i < 5; i++) await loginFrom('Wrong-Password-0!');
      // Locked: even the right password is refused.
      expect((await loginFrom(PORTAL_PASSWORD)).statusCode).toBe(423);
      const link = (await issue(r.partnerGpid)).json() as { token: string };
      expect((await use(link.token, NEW_PASSWORD)).statusCode).toBe(200);
      expect((await loginFrom(NEW_PASSWORD)).statusCode).toBe(200);
    });

    it('expires, and a newer link replaces an older one (GraphQL twin)', async () => {
      const ISSUE = 'mutation($g: ID!) { createPortalPasswordReset(partnerGpid: $g) { token expiresAt } }';
      const USE = 'mutation($t: String!, $p: String!) { resetPortalPassword(token: $t, password: $p) { partnerGpid sessionsEnded } }';
      const first = await t.graphql<{ createPortalPasswordReset: { token: string } }>(ISSUE, { g: q.partnerGpid });
      const second = await t.graphql<{ createPortalPasswordReset: { token: string; expiresAt: string } }>(ISSUE, { g: q.partnerGpid });
      const replaced = await t.graphql(USE, { t: first.data!.createPortalPasswordReset.token, p: NEW_PASSWORD }, null);
      expect(replaced.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'token' }] });

      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.parse(second.data!.createPortalPasswordReset.expiresAt) + 1000);
        const expired = await t.graphql(USE, { t: second.data!.createPortalPasswordReset.token, p: NEW_PASSWORD }, null);
        expect(expired.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'token' }] });
        expect(expired.errors?.[0]?.message).toBe(replaced.errors?.[0]?.message);
      } finally {
        vi.useRealTimers();
      }
      expect((await login(q.email, PORTAL_PASSWORD)).statusCode).toBe(200);

      const third = await t.graphql<{ createPortalPasswordReset: { token: string } }>(ISSUE, { g: q.partnerGpid });
      const used = await t.graphql<{ resetPortalPassword: { partnerGpid: string } }>(USE, { t: third.data!.createPortalPasswordReset.token, p: NEW_PASSWORD }, null);
      expect(used.errors).toBeUndefined();
      expect(used.data!.resetPortalPassword.partnerGpid).toBe(q.partnerGpid);
    });
  });
});
