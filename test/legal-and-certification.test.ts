import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { onboardPartner, partnerToken, portalSession } from './support/partner-onboarding.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const numberedSections = (text: string) => text.split('\n').filter((line) => /^\d+\.[ \t]+[A-Z]/.test(line)).length;

describe('legal documents, BAA e-signature, SDK catalog and certification', () => {
  let t: TestSystem;
  let partnerGpid: string;
  let session: string;
  let writer: string;
  let reader: string;

  beforeAll(async () => {
    // Deployed behind a trusted proxy, so the signer's address comes from X-Forwarded-For.
    t = await bootSystem({ SVC_TRUST_PROXY: 'true' });
    ({ partnerGpid } = await onboardPartner(t, 'legal'));
    session = await portalSession(t, 'dana.whitfield+legal@riverbend-health.org');
    writer = await partnerToken(t, session, ['cms.partner.write', 'cms.partner.read', 'cms.sdk.read']);
    reader = await partnerToken(t, session, ['cms.partner.read']);
  });
  afterAll(() => t?.close());

  describe('legal documents', () => {
    it('lists the catalog without a credential', async () => {
      const res = await t.request({ url: '/cms/legal/documents', token: null });
      expect(res.statusCode).toBe(200);
      const documents = res.json().documents as Record<string, unknown>[];
      expect(documents.map((d) => d['file_name'])).toEqual([
        'cms_mnda_v2026_03.txt',
        'cms_hipaa_baa_v2026_03.txt',
        'consent_data_sharing_v2026_03.txt',
        'consent_research_use_v2026_03.txt',
      ]);
      expect(documents[0]).toMatchObject({ kind: 'mnda', version: 'v2026-03', sections: 10, governing_law: 'State of Delaware', download_path: '/cms/legal/documents/cms_mnda_v2026_03.txt' });
      expect(documents[1]).toMatchObject({ kind: 'baa', sections: 8, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    });

    it('downloads the MNDA (10 sections) and the BAA (8) as text/plain whose SHA-256 is the ETag', async () => {
      for (const [file, sections] of [['cms_mnda_v2026_03.txt', 10], ['cms_hipaa_baa_v2026_03.txt', 8]] as const) {
        const res = await t.request({ url: `/cms/legal/documents/${file}`, token: null });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(res.headers['content-disposition']).toBe(`attachment; filename="${file}"`);
        expect(res.headers['etag']).toBe(`"${sha256(res.body)}"`);
        expect(numberedSections(res.body)).toBe(sections);
        const again = await t.request({ url: `/cms/legal/documents/${file}`, token: null, headers: { 'if-none-match': String(res.headers['etag']) } });
        expect(again.statusCode).toBe(304);
        expect(again.body).toBe('');
      }
      const graph = await t.graphql<{ legalDocument: { sha256: string; content: string; sections: number } }>(
        '{ legalDocument(id: "cms_hipaa_baa_v2026_03") { sha256 content sections } }',
        {},
        null,
      );
      expect(graph.data!.legalDocument.sha256).toBe(sha256(graph.data!.legalDocument.content));
    });

    it('answers an unknown document with a 404 problem', async () => {
      const res = await t.request({ url: '/cms/legal/documents/..%2Fsecrets.txt', token: null });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND', detail: expect.stringContaining('GET /cms/legal/documents') });
    });
  });

  describe('BAA e-signature', () => {
    const body = { signer_name: 'Dana Whitfield', signer_title: 'Chief Information Officer', signer_email: 'Dana.Whitfield@Riverbend-Health.org' };

    it('refuses bad input, missing credentials, read-only tokens and operators with problem documents', async () => {
      const invalid = await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: writer, body: { signer_name: 'D', signer_email: 'nope', document_id: 'cms_mnda_v2026_03' } });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().errors.map((e: { field: string }) => e.field).sort()).toEqual(['document_id', 'signer_email', 'signer_name', 'signer_title']);
      const notObject = await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: writer, body: '[1]', headers: { 'content-type': 'application/json' } });
      expect(notObject.statusCode).toBe(422);
      const wrongType = await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: writer, body: { ...body, signer_name: 42 } });
      expect(wrongType.json()).toMatchObject({ status: 422, errors: [{ field: 'signer_name', message: 'must be a string' }] });
      expect((await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: null, body })).statusCode).toBe(401);
      expect((await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: reader, body })).json()).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
      expect((await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', body })).json()).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    });

    it('records who signed which exact text, when and from where; a second signature is 409', async () => {
      const res = await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: writer, body, headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' } });
      expect(res.statusCode).toBe(201);
      const baa = await t.request({ url: '/cms/legal/documents/cms_hipaa_baa_v2026_03.txt', token: null });
      const signature = res.json();
      expect(signature).toMatchObject({
        id: expect.stringMatching(/^sig_/),
        partner_gpid: partnerGpid,
        document_id: 'cms_hipaa_baa_v2026_03',
        document_version: 'v2026-03',
        document_sha256: sha256(baa.body),
        signer_name: 'Dana Whitfield',
        signer_title: 'Chief Information Officer',
        signer_email: 'dana.whitfield@riverbend-health.org',
        client_ip: '203.0.113.7',
        principal_kind: 'partner',
        credential_id: expect.stringMatching(/^tok_/),
      });
      expect(Date.parse(signature.signed_at)).toBeGreaterThan(Date.now() - 60_000);

      const again = await t.request({ method: 'POST', url: '/cms/legal/baa/signatures', token: writer, body });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'CONFLICT' });
      // The portal session is the same partner: also refused, over GraphQL.
      const viaPortal = await t.graphql('mutation { signBaa(signerName: "Dana Whitfield", signerTitle: "CIO", signerEmail: "dana@riverbend-health.org") { id } }', {}, session);
      expect(viaPortal.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');

      const list = await t.request({ url: '/cms/legal/baa/signatures', token: reader });
      expect(list.json().signatures).toEqual([signature]);
      const agreements = await t.graphql<{ partner: { legalAgreements: { document: { id: string }; signature: { id: string } | null }[] } }>(
        'query P($gpid: ID!) { partner(gpid: $gpid) { legalAgreements { document { id } signature { id } } } }',
        { gpid: partnerGpid },
        session,
      );
      expect(agreements.data!.partner.legalAgreements.find((a) => a.document.id === 'cms_hipaa_baa_v2026_03')!.signature).toEqual({ id: signature.id });
    });

    it('offers no way to change or remove a signature', async () => {
      const res = await t.graphql<{ __schema: { mutationType: { fields: { name: string }[] } } }>('{ __schema { mutationType { fields { name } } } }');
      const names = res.data!.__schema.mutationType.fields.map((f) => f.name);
      expect(names).toContain('signBaa');
      expect(names.filter((name) => /baa|signature/i.test(name))).toEqual(['signBaa']);
      expect((await t.request({ method: 'DELETE', url: '/cms/legal/baa/signatures', token: writer })).statusCode).toBe(404);
    });
  });

  describe('SDK catalog', () => {
    it('serves the same live catalog on both documented paths', async () => {
      const ecosystem = await t.request({ url: '/cms-ecosystem/sdk-catalog', token: writer });
      const live = await t.request({ url: '/api/cms/sdk-catalog', token: writer });
      expect(ecosystem.statusCode).toBe(200);
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual(ecosystem.json());
      const catalog = ecosystem.json();
      expect(catalog.sdks[0]).toMatchObject({ id: 'typescript', package_name: '@health-partner/sdk', registry: 'npm', status: 'stable', source: 'sdk/typescript' });
      expect(catalog.features.map((f: { code: string }) => f.code)).toContain('webhook_verification');
    });

    it('needs a credential with cms.sdk.read', async () => {
      expect((await t.request({ url: '/api/cms/sdk-catalog', token: null })).statusCode).toBe(401);
      expect((await t.request({ url: '/cms-ecosystem/sdk-catalog', token: reader })).json()).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    });
  });

  describe('certification', () => {
    it('shows both checklists with observed evidence: the BAA signature, least-privilege scopes and the first authenticated call', async () => {
      const res = await t.request({ url: '/api/partner/certification', token: reader });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ partner_gpid: partnerGpid, status: 'in_progress' });
      expect(body.checklists.map((c: { id: string; required_total: number }) => [c.id, c.required_total])).toEqual([
        ['partner_ecosystem', 11],
        ['identity', 12],
      ]);
      const items = Object.fromEntries(body.checklists[0].items.map((i: { id: string }) => [i.id, i]));
      expect(items['baa_signed']).toMatchObject({ evidence_kind: 'observed', complete: true, checked: null, evidence: [{ detail: expect.stringContaining('cms_hipaa_baa_v2026_03') }] });
      expect(items['least_privilege_scopes']).toMatchObject({ complete: true, evidence: [{ detail: expect.stringContaining('cms.partner.read') }] });
      expect(items['sandbox_first_authenticated_call']).toMatchObject({ complete: true, evidence: [{ detail: expect.stringMatching(/First authenticated request/) }] });
      expect(items['fhir_r4_sandbox_read']).toMatchObject({ complete: false, incomplete_reason: 'no_evidence' });
      expect(items['credential_rotation']).toMatchObject({ evidence_kind: 'attested', complete: false, checked: false, incomplete_reason: 'not_attested' });
    });

    it('syncs attested progress, and never lets a checkbox complete an observed item', async () => {
      const ok = await t.request({
        method: 'PUT',
        url: '/api/partner/certification/progress',
        token: writer,
        body: { checklist_id: 'partner_ecosystem', items: { credential_rotation: true, rate_limit_backoff: true, webhook_idempotency: false } },
      });
      expect(ok.statusCode).toBe(200);
      const items = Object.fromEntries(ok.json().checklists[0].items.map((i: { id: string }) => [i.id, i]));
      expect(items['credential_rotation']).toMatchObject({ checked: true, complete: true });
      expect(items['webhook_idempotency']).toMatchObject({ checked: false, complete: false });
      // One item id is one fact: the identity checklist shares webhook_idempotency.
      expect(ok.json().checklists[1].items.find((i: { id: string }) => i.id === 'webhook_idempotency')).toMatchObject({ checked: false });

      const observed = await t.request({
        method: 'PUT',
        url: '/api/partner/certification/progress',
        token: writer,
        body: { checklist_id: 'partner_ecosystem', items: { fhir_r4_sandbox_read: true, no_such_item: true, rate_limit_backoff: 'yes' } },
      });
      expect(observed.statusCode).toBe(422);
      expect(observed.json().errors).toEqual([
        { field: 'items.fhir_r4_sandbox_read', message: expect.stringContaining('cannot be checked off') },
        { field: 'items.no_such_item', message: expect.stringContaining('not an item') },
        { field: 'items.rate_limit_backoff', message: 'Must be true or false.' },
      ]);
      const after = await t.request({ url: '/api/partner/certification', token: reader });
      expect(after.json().checklists[0].items.find((i: { id: string }) => i.id === 'fhir_r4_sandbox_read')).toMatchObject({ complete: false });

      const bad = await t.request({ method: 'PUT', url: '/api/partner/certification/progress', token: writer, body: { checklist_id: 'tefca', items: {} } });
      expect(bad.json()).toMatchObject({ status: 422, errors: [{ field: 'checklist_id' }] });
      const missing = await t.request({ method: 'PUT', url: '/api/partner/certification/progress', token: writer, body: {} });
      expect(missing.json().errors.map((e: { field: string }) => e.field)).toEqual(['checklist_id', 'items']);
      expect((await t.request({ method: 'PUT', url: '/api/partner/certification/progress', token: reader, body: { checklist_id: 'identity', items: {} } })).statusCode).toBe(403);
    });

    it('refuses a submission while required items are incomplete, listing them', async () => {
      const res = await t.request({ method: 'POST', url: '/api/partner/certification', token: writer, body: { checklist_id: 'partner_ecosystem' } });
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const fields = res.json().errors.map((e: { field: string }) => e.field);
      expect(fields).toEqual([
        'items.fhir_r4_sandbox_read',
        'items.gpid_boundary_headers',
        'items.webhook_signature_verification',
        'items.webhook_idempotency',
        'items.deprecation_header_handling',
        'items.problem_json_errors',
      ]);
      expect(res.json().detail).toMatch(/6 of 11 required items are incomplete/);
      expect((await t.request({ method: 'POST', url: '/api/partner/certification', token: writer, body: { checklist: 'x' } })).json()).toMatchObject({
        status: 422,
        errors: [{ field: 'checklist_id' }],
      });
    });
  });
});
