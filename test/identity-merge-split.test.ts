import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventsOf, eventually, identityClient, mintToken, openIdentityDb, registerPartner, type IdentityDb } from './support/identity.js';

/**
 * Merge and split with the two-person rule, their audit chain and events, end to end. Principals:
 * the bootstrap operator (requester), a second operator credential (a data steward) minted through
 * the public createApiToken mutation, and credentials that must not be able to approve.
 */
describe('identity merge and split: two-person rule, audit chain, events', () => {
  let t: TestSystem;
  let db: IdentityDb;
  let id: ReturnType<typeof identityClient>;
  let steward: string;
  let sameOperatorNoAdmin: string;
  let otherPartner: string;

  const alice = { name: 'Alexandrina Fairweather', dob: '1968-04-22', email: 'alexandrina.f@example.com', phone: '503-555-0161' };
  const alias = { name: 'Sandra Fairweather-Holt', dob: '1968-04-22', email: 'sandy.holt@example.net' };
  let survivor: string;
  let duplicate: string;
  let mergeRequest: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    db = await openIdentityDb(t);
    id = identityClient(t);
    steward = await mintToken(t, ['cms.admin', 'identity.approve', 'identity.read', 'identity.merge', 'identity.split']);
    sameOperatorNoAdmin = await mintToken(t, ['identity.approve', 'identity.read']);
    const partner = await registerPartner(t, 'Unrelated Partner Health');
    otherPartner = await mintToken(t, ['identity.read'], partner);
    survivor = (await id.resolve(alice, 'pulse')).json().gpid;
    duplicate = (await id.resolve(alias, 'lake')).json().gpid;
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
  });

  it('the two records start apart', () => {
    expect(survivor).toMatch(/^SVC-/);
    expect(duplicate).toMatch(/^SVC-/);
    expect(duplicate).not.toBe(survivor);
  });

  it('refuses bad merge requests with problem+json', async () => {
    const cases: Array<[unknown, string | null, number, string, string?]> = [
      [{ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'because' }, 'cms', 422, 'VALIDATION_ERROR', 'reason'],
      [{ survivor_gpid: survivor, merged_gpids: [duplicate] }, 'cms', 422, 'VALIDATION_ERROR', 'reason'],
      [{ survivor_gpid: survivor, merged_gpids: [survivor], reason: 'manual_review' }, 'cms', 422, 'VALIDATION_ERROR', 'merged_gpids.0'],
      [{ survivor_gpid: survivor, merged_gpids: [], reason: 'manual_review' }, 'cms', 422, 'VALIDATION_ERROR', 'merged_gpids'],
      [{ survivor_gpid: 'nope', merged_gpids: [duplicate], reason: 'manual_review' }, 'cms', 422, 'VALIDATION_ERROR', 'survivor_gpid'],
      [{ survivor_gpid: survivor, merged_gpids: ['SVC-0BADBEEF'], reason: 'manual_review' }, 'cms', 404, 'NOT_FOUND'],
      [{ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'manual_review' }, null, 400, 'MISSING_SOURCE_HEADER'],
      [{ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'manual_review' }, 'mainframe', 400, 'INVALID_SOURCE_HEADER'],
      [{ approve: 'spl_01jdzzzzzzzzzzzzzzzzzzzzzz' }, 'cms', 422, 'VALIDATION_ERROR', 'approve'],
      [{ approve: 'mrg_01jdzzzzzzzzzzzzzzzzzzzzzz', reject: 'mrg_01jdzzzzzzzzzzzzzzzzzzzzzz' }, 'cms', 422, 'VALIDATION_ERROR', 'approve'],
      [{ approve: 'mrg_01jdzzzzzzzzzzzzzzzzzzzzzz' }, 'cms', 404, 'NOT_FOUND'],
    ];
    for (const [body, source, status, code, field] of cases) {
      const res = await id.merge(body, source, steward);
      expect(res.statusCode, `${JSON.stringify(body)} ${source}`).toBe(status);
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status, code, instance: '/api/identity/merge' });
      if (field) expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const unknown = await id.merge({ survivor_gpid: survivor, merged_gpids: ['SVC-0BADBEEF', duplicate], reason: 'manual_review' }, 'cms', steward);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND', unknown_gpids: ['SVC-0BADBEEF'] });
  });

  it('creates a pending merge that changes nothing until it is approved', async () => {
    const res = await id.merge({ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'manual_review', note: 'same person, married name' }, 'cms');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      request_id: expect.stringMatching(/^mrg_/),
      kind: 'merge',
      status: 'PENDING',
      survivor_gpid: survivor,
      merged_gpids: [duplicate],
      reason: 'manual_review',
      note: 'same person, married name',
      requested_by: { kind: 'service', partner_gpid: 'CMS-00000000', credential_id: expect.stringMatching(/^tok_/) },
      requested_source: 'cms',
      decided_by: null,
      approval: { required: true },
      audit: null,
    });
    mergeRequest = body.request_id;
    expect((await id.get(duplicate)).json()).toMatchObject({ identity_status: 'SHADOW', merged_into: null });
  });

  it('refuses an approval by the requester or by a principal that is not independent', async () => {
    const self = await id.merge({ approve: mergeRequest }, 'cms');
    expect(self.statusCode).toBe(403);
    expect(self.json()).toMatchObject({ code: 'FORBIDDEN', reason: 'same_credential' });
    // Another credential of the requester's own partner, without the operator role.
    const samePartner = await id.merge({ approve: mergeRequest }, 'cms', sameOperatorNoAdmin);
    expect(samePartner.statusCode).toBe(403);
    expect(samePartner.json()).toMatchObject({ code: 'FORBIDDEN', reason: 'same_partner' });
    // Another partner without identity.approve is stopped by its scopes.
    const unscoped = await id.merge({ approve: mergeRequest }, 'cms', otherPartner);
    expect(unscoped.statusCode).toBe(403);
    expect(unscoped.json()).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    expect((await id.get(duplicate)).json().identity_status).toBe('SHADOW');
  });

  it('applies the merge when a second principal approves it', async () => {
    const res = await id.merge({ approve: mergeRequest, note: 'checked the documents' }, 'provider', steward);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      request_id: mergeRequest,
      status: 'APPLIED',
      decided_by: { kind: 'partner', partner_gpid: 'CMS-00000000', operator: true },
      decided_source: 'provider',
      decision_note: 'checked the documents',
      audit: { event: 'identity.merged.v1', seq: 1, event_id: expect.stringMatching(/^evt_/), hash: expect.stringMatching(/^[0-9a-f]{64}$/), prev_hash: '0'.repeat(64) },
    });
    expect(res.json().approval).toBeUndefined();

    // The merged GPID keeps answering: MERGED, with its survivor.
    const merged = (await id.get(duplicate)).json();
    expect(merged).toMatchObject({ identity_status: 'MERGED', merged_into: survivor, survivor_gpid: survivor, survivor_status: 'ACTIVE' });
    expect(merged.lineage.events).toEqual([{ kind: 'merged_into', gpid: survivor, request_id: mergeRequest, reason: 'manual_review', at: expect.any(String) }]);
    const kept = (await id.get(survivor)).json();
    expect(kept).toMatchObject({ identity_status: 'ACTIVE', merged_into: null, lineage: { merged_from: [duplicate], split_from: null } });
    expect(kept.sources.map((s: { source: string }) => s.source).sort()).toEqual(['cms', 'lake', 'provider', 'pulse']);

    // The survivor carries the duplicate's identifiers: both spellings find it, and resolve returns it.
    expect((await id.match(alias)).json().candidates[0]).toMatchObject({ gpid: survivor });
    expect((await id.resolve(alias, 'beacon')).json()).toMatchObject({ gpid: survivor, decision: 'EXISTING' });

    const again = await id.merge({ approve: mergeRequest }, 'cms', steward);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'CONFLICT', status: 409 });
    const remerge = await id.merge({ survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'deterministic_exact' }, 'cms');
    expect(remerge.json()).toMatchObject({ status: 409, code: 'CONFLICT' });
  });

  it('emits identity.merge, identity.merged.v1 and identity.match events', async () => {
    const merge = await eventually(async () => {
      const found = await eventsOf(t, ['identity.merge']);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    expect(merge.data).toEqual({ event: 'identity.merge', survivor_gpid: survivor, merged_gpids: [duplicate], merged_at: expect.stringMatching(/Z$/) });
    const audit = (await eventsOf(t, ['identity.merged.v1']))[0]!;
    expect(audit.data).toMatchObject({ event: 'identity.merged.v1', request_id: mergeRequest, survivor_gpid: survivor, merged_gpids: [duplicate], reason: 'manual_review', audit_seq: 1 });
    const matches = await eventsOf(t, ['identity.match']);
    expect(matches.find((e) => e.data['subject_gpid'] === duplicate)?.data).toEqual({ event: 'identity.match', gpid: survivor, match_type: 'PARTIAL', identity_status: 'ACTIVE', subject_gpid: duplicate });
  });

  it('splits the merged GPID again after a second approval (over GraphQL)', async () => {
    const bad = [
      await id.split({ gpid: duplicate, reason: 'oops' }, 'cms'),
      await id.split({ gpid: survivor, reason: 'false_merge_detected' }, 'cms'),
      await id.split({ gpid: 'SVC-0BADBEEF', reason: 'false_merge_detected' }, 'cms'),
      await id.split({ gpid: duplicate, reason: 'false_merge_detected' }, null),
    ];
    expect(bad.map((r) => [r.statusCode, r.json().code])).toEqual([
      [422, 'VALIDATION_ERROR'],
      [409, 'CONFLICT'],
      [404, 'NOT_FOUND'],
      [400, 'MISSING_SOURCE_HEADER'],
    ]);

    const requested = await id.split({ gpid: duplicate, reason: 'false_merge_detected', note: 'two different people' }, 'cms');
    expect(requested.statusCode).toBe(200);
    expect(requested.json()).toMatchObject({ request_id: expect.stringMatching(/^spl_/), kind: 'split', status: 'PENDING', gpid: duplicate, split_from_gpid: survivor });
    const requestId = requested.json().request_id;
    expect((await id.split({ approve: requestId }, 'cms')).json()).toMatchObject({ status: 403, reason: 'same_credential' });

    const approved = await t.graphql<{ approveIdentityChange: { request: { status: string; kind: string }; audit: { seq: number; type: string; prevHash: string } } }>(
      'mutation($id: ID!) { approveIdentityChange(requestId: $id, source: "cms") { request { status kind } audit { seq type prevHash } } }',
      { id: requestId },
      steward,
    );
    expect(approved.errors).toBeUndefined();
    expect(approved.data!.approveIdentityChange).toMatchObject({ request: { status: 'APPLIED', kind: 'SPLIT' }, audit: { seq: 2, type: 'identity.split.v1' } });

    const restored = (await id.get(duplicate)).json();
    expect(restored).toMatchObject({ identity_status: 'SPLIT', merged_into: null, survivor_gpid: null, lineage: { split_from: survivor } });
    expect(restored.lineage.events.map((e: { kind: string }) => e.kind)).toEqual(['merged_into', 'split_from']);
    expect((await id.get(survivor)).json().lineage).toMatchObject({ merged_from: [], split_from: null });
    // The restored record is findable again, and its identifiers left the survivor.
    const found = (await id.match(alias)).json();
    expect(found.candidates[0]).toMatchObject({ gpid: duplicate });
    expect(found.candidates.find((c: { gpid: string }) => c.gpid === survivor)?.confidence ?? 0).toBeLessThan(0.5);
    await eventually(async () => expect((await eventsOf(t, ['identity.split.v1']))[0]?.data).toMatchObject({ event: 'identity.split.v1', gpid: duplicate, split_from_gpid: survivor, audit_seq: 2 }));
  });

  it('lets the requester withdraw a request, after which it cannot be approved', async () => {
    const other = (await id.resolve({ name: 'Peregrine Ashdown', dob: '1990-10-10' }, 'pulse')).json().gpid;
    const req = (await id.merge({ survivor_gpid: survivor, merged_gpids: [other], reason: 'probabilistic' }, 'cms')).json();
    const withdrawn = await id.merge({ reject: req.request_id, note: 'wrong pair' }, 'cms');
    expect(withdrawn.json()).toMatchObject({ status: 'REJECTED', decision_note: 'wrong pair', audit: null });
    expect((await id.merge({ approve: req.request_id }, 'cms', steward)).json()).toMatchObject({ status: 409, code: 'CONFLICT' });
    const listed = await t.graphql<{ identityChangeRequests: { edges: { node: { id: string; status: string } }[] } }>('{ identityChangeRequests(first: 10) { edges { node { id status } } } }', {}, steward);
    expect(listed.data!.identityChangeRequests.edges.map((e) => e.node.status)).toEqual(['REJECTED', 'APPLIED', 'APPLIED']);
  });

  it('keeps the audit chain immutable, and detects tampering', async () => {
    const verify = async () => {
      const res = await t.graphql<{ identityAuditVerification: { valid: boolean; checked: number; headSeq: number | null; firstInvalidSeq: number | null; problem: string | null } }>(
        '{ identityAuditVerification { valid checked headSeq headHash firstInvalidSeq problem } }',
      );
      expect(res.errors).toBeUndefined();
      return res.data!.identityAuditVerification;
    };
    expect(await verify()).toMatchObject({ valid: true, checked: 2, headSeq: 2, firstInvalidSeq: null });
    const entries = await t.graphql<{ identityAuditEntries: { edges: { node: { seq: number; type: string; prevHash: string; hash: string } }[] } }>('{ identityAuditEntries(first: 10) { edges { node { seq type prevHash hash } } } }');
    const chain = entries.data!.identityAuditEntries.edges.map((e) => e.node);
    expect(chain.map((e) => e.type)).toEqual(['identity.merged.v1', 'identity.split.v1']);
    expect(chain[1]!.prevHash).toBe(chain[0]!.hash);

    // The database refuses to change or remove an audit row.
    await expect(db.run("update identity_audit set payload = '{}' where seq = 1")).rejects.toThrow(/append-only/);
    await expect(db.run('delete from identity_audit where seq = 2')).rejects.toThrow(/append-only/);
    expect(await verify()).toMatchObject({ valid: true, checked: 2 });

    // Someone with database rights drops the guard and edits history: verification notices.
    if (db.postgres) await db.run('drop trigger identity_audit_no_change on identity_audit');
    else await db.run('drop trigger identity_audit_no_update');
    await db.run(`update identity_audit set payload = replace(payload, 'manual_review', 'deterministic_exact') where seq = 1`);
    expect(await verify()).toMatchObject({ valid: false, checked: 0, firstInvalidSeq: 1, problem: expect.stringContaining('altered') });
  });
});
