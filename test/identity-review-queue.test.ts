import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { identityClient, mintToken, registerPartner, serviceToken } from './support/identity.js';

/**
 * The identity review queue end to end, over REST and GraphQL: a resolve that cannot link
 * automatically (here: the same person data with a different SSN, a hard rule whatever the
 * weights) queues the new record with its candidates and their explanation; pages; a decision
 * each way (same person → a merge request under the two-person rule; not the same → separated,
 * confirmed, never proposed again); partners see and decide only pairs of their own records.
 */
describe('identity review queue', () => {
  let t: TestSystem;
  let id: ReturnType<typeof identityClient>;
  let steward: string;
  const partners: Record<'a' | 'b', { gpid: string; service: string; steward: string }> = {} as never;

  const person = (n: number) => ({
    name: `Quillon Marchetti-Vey${'abc'[n]}`,
    dob: `197${n}-04-1${n}`,
    email: `quillon.${n}@example.org`,
    phone: `503-555-01${20 + n}`,
  });
  const ssn = (area: number, n: number) => [{ system: 'ssn', value: `${area}-4${n}-67${80 + n}` }];
  /** Operator items: [subject, candidate] pairs. */
  const pairs: Array<{ subject: string; candidate: string; item?: string }> = [];
  let partnerItem: { subject: string; candidate: string; item?: string };
  let crossItem: { subject: string; candidate: string; item?: string };

  const review = {
    list: (query: string, token?: string) => t.request({ url: `/api/identity/review${query}`, ...(token ? { token } : {}) }),
    get: (itemId: string, token?: string) => t.request({ url: `/api/identity/review/${itemId}`, ...(token ? { token } : {}) }),
    decide: (itemId: string, body: unknown, token?: string, source: string | null = 'cms') =>
      t.request({ method: 'POST', url: `/api/identity/review/${itemId}/decision`, body, headers: source === null ? {} : { 'x-svc-source': source }, ...(token ? { token } : {}) }),
  };

  /** Resolves a record and its conflicting look-alike; returns the pair and the queued item's id. */
  async function conflictingPair(n: number, token?: string, secondToken?: string) {
    const first = await id.resolve({ ...person(n), identifiers: ssn(123 + n, n) }, 'pulse', token);
    expect(first.statusCode).toBe(200);
    const second = await id.resolve({ ...person(n), identifiers: ssn(456 + n, n) }, 'lake', secondToken ?? token);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ created: true, decision: 'NEW_PROVISIONAL' });
    return { subject: second.json().gpid as string, candidate: first.json().gpid as string };
  }

  /** Every open item the token sees, following next_cursor. */
  async function allItems(token?: string, limit = 2): Promise<Array<{ id: string; subject_gpid: string; candidates: Array<{ gpid: string }> }>> {
    const out = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const res = await review.list(`?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, token);
      expect(res.statusCode, res.body).toBe(200);
      out.push(...res.json().items);
      cursor = res.json().next_cursor;
      if (!cursor) break;
    }
    return out;
  }

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    id = identityClient(t);
    steward = await mintToken(t, ['cms.admin', 'identity.approve', 'identity.read', 'identity.merge']);
    const { DEFAULT_PARTNER_SCOPES } = await import('../subgraphs/partner/src/domain/partner-scopes.js');
    for (const key of ['a', 'b'] as const) {
      const gpid = await registerPartner(t, `Review Health ${key.toUpperCase()}`);
      const granted = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: [...DEFAULT_PARTNER_SCOPES, 'identity.merge', 'identity.approve'] } });
      expect(granted.statusCode).toBe(200);
      partners[key] = {
        gpid,
        service: await serviceToken(t, gpid, 'identity.resolve identity.match identity.read'),
        steward: await mintToken(t, ['identity.read', 'identity.merge', 'identity.approve'], gpid),
      };
    }
    for (const n of [0, 1, 2]) pairs.push(await conflictingPair(n));
    partnerItem = await conflictingPair(3, partners.a.service);
    // B's record conflicts with the operator's: B links to its own record only.
    crossItem = await conflictingPair(4, undefined, partners.b.service);
    const everything = await allItems(undefined, 50);
    for (const p of [...pairs, partnerItem, crossItem]) p.item = everything.find((i) => i.subject_gpid === p.subject)?.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('queues a record that could not be linked automatically, with its candidates and the explanation', async () => {
    const p = pairs[0]!;
    expect(p.item).toMatch(/^rvw_/);
    const res = await review.get(p.item!);
    expect(res.statusCode).toBe(200);
    const item = res.json();
    expect(item).toMatchObject({ id: p.item, status: 'OPEN', subject_gpid: p.subject, source: 'lake', closed_at: null });
    expect(item.candidates).toHaveLength(1);
    const [candidate] = item.candidates;
    expect(candidate).toMatchObject({ gpid: p.candidate, match_type: expect.any(String), decision: null });
    expect(candidate.pair_confidence).toBeGreaterThanOrEqual(0.2);
    expect(candidate.agreement).toMatchObject({ identifier: 'conflict', blocked_by: 'identifier_conflict', given: 'exact', family: 'exact', dob: 'exact' });
    expect(Object.keys(candidate.agreement.weights)).toEqual(expect.arrayContaining(['given', 'family', 'dob', 'email', 'phone', 'identifier']));
    // The GraphQL twin tells the same.
    const gql = await t.graphql<{ identityReviewItem: { subjectGpid: string; candidates: Array<{ gpid: string; pairConfidence: number; agreement: { blockedBy: string } }> } }>(
      'query($id: ID!) { identityReviewItem(id: $id) { subjectGpid candidates { gpid pairConfidence agreement } } }',
      { id: p.item },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.identityReviewItem).toMatchObject({ subjectGpid: p.subject, candidates: [{ gpid: p.candidate, pairConfidence: candidate.pair_confidence, agreement: { blockedBy: 'identifier_conflict' } }] });
  });

  it('pages through the queue oldest first with cursors, alike on REST and GraphQL', async () => {
    const first = await review.list('?limit=2');
    expect(first.json().items).toHaveLength(2);
    expect(first.json().next_cursor).toEqual(expect.any(String));
    const items = await allItems(undefined, 2);
    const ids = items.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining([...pairs, partnerItem, crossItem].map((p) => p.item)));
    const gql = await t.graphql<{ identityReviewQueue: { edges: { node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } }>(
      'query($after: String) { identityReviewQueue(first: 2, after: $after) { edges { node { id } } pageInfo { hasNextPage endCursor } } }',
      { after: first.json().next_cursor },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.identityReviewQueue.edges.map((e) => e.node.id)).toEqual(ids.slice(2, 4));
  });

  it('names bad input: query parameters, cursors, ids, decision fields, the source header', async () => {
    const cases: Array<[Promise<{ statusCode: number; json(): { code: string; errors?: Array<{ field: string }> } }>, number, string, string?]> = [
      [review.list('?limit=0'), 422, 'VALIDATION_ERROR', 'limit'],
      [review.list('?limit=51'), 422, 'VALIDATION_ERROR', 'limit'],
      [review.list('?status=maybe'), 422, 'VALIDATION_ERROR', 'status'],
      [review.list('?colour=red'), 422, 'VALIDATION_ERROR', 'colour'],
      [review.list('?cursor=bm90LW91cnM'), 400, 'BAD_REQUEST', 'cursor'],
      [review.get('rvw_nope'), 422, 'VALIDATION_ERROR', 'id'],
      [review.decide(pairs[2]!.item!, { same: true }), 422, 'VALIDATION_ERROR', 'candidate_gpid'],
      [review.decide(pairs[2]!.item!, { candidate_gpid: pairs[2]!.candidate, same: 'yes' }), 422, 'VALIDATION_ERROR', 'same'],
      [review.decide(pairs[2]!.item!, { candidate_gpid: pairs[2]!.candidate, same: false, colour: 1 }), 422, 'VALIDATION_ERROR', 'colour'],
      [review.decide(pairs[2]!.item!, { candidate_gpid: pairs[0]!.candidate, same: false }), 422, 'VALIDATION_ERROR', 'candidate_gpid'],
      [review.decide(pairs[2]!.item!, { candidate_gpid: pairs[2]!.candidate, same: false, note: 'x'.repeat(1001) }), 422, 'VALIDATION_ERROR', 'note'],
      [review.decide(pairs[2]!.item!, { candidate_gpid: pairs[2]!.candidate, same: false }, undefined, null), 400, 'MISSING_SOURCE_HEADER'],
      [review.decide('rvw_01jdzzzzzzzzzzzzzzzzzzzzzz', { candidate_gpid: pairs[2]!.candidate, same: false }), 404, 'NOT_FOUND'],
    ];
    for (const [pending, status, code, field] of cases) {
      const res = await pending;
      expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
      expect(res.json().code).toBe(code);
      if (field) expect(res.json().errors?.map((e) => e.field)).toContain(field);
    }
    // GraphQL names the same field.
    const gql = await t.graphql('mutation($i: ID!, $c: ID!) { decideIdentityReview(itemId: $i, candidateGpid: $c, same: false, source: "cms") { item { id } } }', { i: pairs[2]!.item, c: pairs[0]!.candidate });
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'candidate_gpid' }] });
    expect((await review.get(pairs[2]!.item!)).json().status).toBe('OPEN');
  });

  it('"not the same": the pair is separated, the record confirmed, the decision kept, never proposed again', async () => {
    const p = pairs[1]!;
    const res = await review.decide(p.item!, { candidate_gpid: p.candidate, same: false, note: 'different SSN on the card' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      item: { id: p.item, status: 'CLOSED', closed_at: expect.any(String), candidates: [{ gpid: p.candidate, decision: { same: false } }] },
      decision: { candidate_gpid: p.candidate, same: false, decided_by: { kind: 'service', partner_gpid: 'CMS-00000000' }, decided_source: 'cms', decided_at: expect.any(String), note: 'different SSN on the card', merge_request_id: null },
      merge_request: null,
    });
    const subject = (await id.get(p.subject)).json();
    expect(subject).toMatchObject({ identity_status: 'ACTIVE', related_gpids: [] });
    expect((await id.get(p.candidate)).json().related_gpids).toEqual([]);
    // Decided once: the pair is not proposed again, and the closed item left the open queue.
    const again = await review.decide(p.item!, { candidate_gpid: p.candidate, same: true });
    expect(again.statusCode).toBe(409);
    expect((await allItems(undefined, 50)).map((i) => i.id)).not.toContain(p.item);
    const closed = await review.list('?status=closed&limit=50');
    expect(closed.json().items.map((i: { id: string }) => i.id)).toContain(p.item);
  });

  it('"the same person" (GraphQL): a merge request that a second principal approves', async () => {
    const p = pairs[0]!;
    const res = await t.graphql<{ decideIdentityReview: { item: { status: string }; decision: { same: boolean; mergeRequestId: string }; mergeRequest: { id: string; status: string; survivorGpid: string; gpids: string[]; reason: string } } }>(
      'mutation($i: ID!, $c: ID!) { decideIdentityReview(itemId: $i, candidateGpid: $c, same: true, note: "same card", source: "cms") { item { status } decision { same mergeRequestId } mergeRequest { id status survivorGpid gpids reason } } }',
      { i: p.item, c: p.candidate },
    );
    expect(res.errors).toBeUndefined();
    const decided = res.data!.decideIdentityReview;
    expect(decided.item.status).toBe('CLOSED');
    expect(decided.mergeRequest).toMatchObject({ status: 'PENDING', survivorGpid: p.candidate, gpids: [p.subject], reason: 'manual_review' });
    expect(decided.decision).toEqual({ same: true, mergeRequestId: decided.mergeRequest.id });
    // The two-person rule of the merge path: the decider cannot approve its own request.
    expect((await id.merge({ approve: decided.mergeRequest.id })).json()).toMatchObject({ code: 'FORBIDDEN', reason: 'same_credential' });
    const approved = await id.merge({ approve: decided.mergeRequest.id }, 'cms', steward);
    expect(approved.json()).toMatchObject({ status: 'APPLIED', survivor_gpid: p.candidate, merged_gpids: [p.subject] });
    expect((await id.get(p.subject)).json()).toMatchObject({ identity_status: 'MERGED', merged_into: p.candidate });
  });

  it("a partner sees and decides only pairs of its own records; another tenant's item looks missing", async () => {
    // A sees its own item only (not the operator's, nor B's cross item).
    const seenByA = await allItems(partners.a.steward, 50);
    expect(seenByA.map((i) => i.id)).toEqual([partnerItem.item]);
    // B links to the subject of the cross item, not to its candidate: nothing to see.
    expect(await allItems(partners.b.steward, 50)).toEqual([]);
    const gqlB = await t.graphql<{ identityReviewQueue: { edges: unknown[] } }>('{ identityReviewQueue(first: 50) { edges { node { id } } } }', {}, partners.b.steward);
    expect(gqlB.data!.identityReviewQueue.edges).toEqual([]);
    // A's item, to B, answers like a missing one, for reading and deciding alike.
    const missing = 'rvw_01jdzzzzzzzzzzzzzzzzzzzzzz';
    for (const [other, none] of [
      [await review.get(partnerItem.item!, partners.b.steward), await review.get(missing, partners.b.steward)],
      [await review.decide(partnerItem.item!, { candidate_gpid: partnerItem.candidate, same: false }, partners.b.steward), await review.decide(missing, { candidate_gpid: partnerItem.candidate, same: false }, partners.b.steward)],
      [await review.get(crossItem.item!, partners.b.steward), await review.get(missing, partners.b.steward)],
    ] as const) {
      expect(other.statusCode).toBe(404);
      expect(other.json().code).toBe(none.json().code);
      expect(other.json().title).toBe(none.json().title);
    }
    const gqlItem = await t.graphql<{ identityReviewItem: null }>('query($id: ID!) { identityReviewItem(id: $id) { id } }', { id: partnerItem.item }, partners.b.steward);
    expect(gqlItem.data).toEqual({ identityReviewItem: null });
    // A token without identity.merge may not decide.
    const reader = await mintToken(t, ['identity.read', 'identity.approve'], partners.a.gpid);
    expect((await review.decide(partnerItem.item!, { candidate_gpid: partnerItem.candidate, same: false }, reader)).statusCode).toBe(403);
    // A decides its own pair.
    const decided = await review.decide(partnerItem.item!, { candidate_gpid: partnerItem.candidate, same: false }, partners.a.steward, 'pulse');
    expect(decided.statusCode).toBe(200);
    expect(decided.json().decision).toMatchObject({ same: false, decided_by: { partner_gpid: partners.a.gpid, operator: false } });
  });

  it('links a resolve that strongly matches two records of one person to the far better one, and queues the other as its duplicate', async () => {
    const first = (await id.resolve({ name: 'Hildegard Vantongeren', dob: '1950-03-04', email: 'hv@example.org' }, 'pulse')).json();
    // Without a DOB, names alone: a record of its own, linked for review.
    const apart = (await id.resolve({ name: 'Hildegard Vantongeren', email: 'hilde.v@example.net', identifiers: [{ system: 'ssn', value: '219-33-4410' }] }, 'lake')).json();
    expect(apart).toMatchObject({ created: true, decision: 'NEW_PROVISIONAL', links: [first.gpid] });
    // Strong with both (DOB and e-mail of the first, SSN of the second), far stronger with the first.
    const both = await id.resolve({ name: 'Hildegard Vantongeren', dob: '1950-03-04', email: 'hv@example.org', identifiers: [{ system: 'ssn', value: '219-33-4410' }] }, 'provider');
    expect(both.json()).toMatchObject({ gpid: first.gpid, created: false, decision: 'EXISTING' });
    const items = (await allItems(undefined, 50)).filter((i) => i.subject_gpid === first.gpid);
    expect(items).toHaveLength(1);
    expect(items[0]!.candidates.map((c) => c.gpid)).toEqual([apart.gpid]);
  });
});
