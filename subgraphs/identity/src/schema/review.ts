import { connectionType, decodeOptionalCursor, encodeCursor, isId, pageSize, type SubgraphBuilder } from '@svc/platform';
import type { ReviewCandidate } from '../domain/index.js';
import type { ChangeRequest } from '../entities/change-requests.js';
import type { MatchLabel, ReviewItem } from '../entities/review-queue.js';
import type { IdentityService } from '../identity-service.js';
import type { IdentityEnums, IdentityLoaders, IdentityTypeRef } from './identity.js';
import type { ChangeRequestRef } from './changes.js';
import { sourceArg } from './match-resolve.js';

/** Who may read the queue: the same grants as merge requests. Deciding needs identity.merge (a "same" decision is a merge request). */
const REVIEW_READ_SCOPES = ['identity.merge', 'identity.approve', 'cms.admin'];

/** The review queue: records linked for review, their candidates with the explanation, and the decisions. */
export function defineReview(
  builder: SubgraphBuilder,
  service: IdentityService,
  loaders: IdentityLoaders,
  enums: IdentityEnums,
  IdentityType: IdentityTypeRef,
  ChangeRequestType: ChangeRequestRef,
) {
  const Status = builder.enumType('IdentityReviewStatus', {
    description: 'OPEN while a candidate you may see is undecided; CLOSED once every one is decided.',
    values: { OPEN: { value: 'OPEN' }, CLOSED: { value: 'CLOSED' } } as const,
  });

  const Label = builder.objectRef<MatchLabel>('IdentityReviewDecision').implement({
    description: 'A decided pair: the same person or not, who decided it and when. Also a training label of the scoring model.',
    fields: (t) => ({
      candidateGpid: t.exposeID('rightRecordId'),
      same: t.exposeBoolean('same'),
      decidedBy: t.field({ type: 'JSONObject', description: '{ kind, partnerGpid, credentialId, operator }', resolve: (l) => ({ ...l.decidedBy }) }),
      decidedSource: t.exposeString('decidedSource'),
      decidedAt: t.expose('decidedAt', { type: 'DateTime' }),
      note: t.exposeString('note', { nullable: true }),
      mergeRequestId: t.exposeID('mergeRequestId', { nullable: true, description: 'The merge request (mrg_…) a "same" decision opened; a second principal approves it.' }),
    }),
  });

  const Candidate = builder.objectRef<ReviewCandidate & { decision: MatchLabel | null }>('IdentityReviewCandidate').implement({
    description: 'A record the subject may be, as scored when the item was queued.',
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      pairConfidence: t.exposeFloat('pairConfidence', { description: 'Confidence of this candidate alone, in [0, 1]: what the review and automatic-link thresholds compare.' }),
      confidence: t.exposeFloat('confidence', { description: 'Confidence competing with the other candidates of the resolve.' }),
      matchType: t.field({ type: enums.Match, resolve: (c) => c.matchType }),
      agreement: t.field({
        type: 'JSONObject',
        description: 'The explanation: the level of each comparison (given, family, nameOrder, dob, email, phone, sex, address, identifier, memberId), their weights in bits (weights) and the hard rule that forbids an automatic link (blockedBy).',
        resolve: (c) => ({ ...c.agreement }),
      }),
      decision: t.field({ type: Label, nullable: true, description: 'Null until decided.', resolve: (c) => c.decision }),
      identity: t.field({ type: IdentityType, nullable: true, resolve: (c, _a, ctx) => loaders.record(ctx).load(c.gpid) }),
    }),
  });

  const Item = builder.objectRef<ReviewItem>('IdentityReviewItem').implement({
    description: 'A record a resolve created and linked for review instead of linking it to an existing one (rvw_…).',
    fields: (t) => ({
      id: t.exposeID('id'),
      status: t.field({ type: Status, resolve: (i) => i.status }),
      subjectGpid: t.exposeID('subjectGpid', { description: 'The record the resolve created.' }),
      subject: t.field({ type: IdentityType, nullable: true, resolve: (i, _a, ctx) => loaders.record(ctx).load(i.subjectGpid) }),
      candidates: t.field({
        type: [Candidate],
        description: 'Best first.',
        resolve: (i) => i.candidates.map((c) => ({ ...c, decision: i.labels.find((l) => l.rightRecordId === c.gpid) ?? null })),
      }),
      source: t.exposeString('source', { description: 'The source origin of the resolve.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true }),
    }),
  });

  const Decided = builder.objectRef<{ item: ReviewItem; label: MatchLabel; mergeRequest: ChangeRequest | null }>('IdentityReviewDecisionResult').implement({
    fields: (t) => ({
      item: t.field({ type: Item, resolve: (d) => d.item }),
      decision: t.field({ type: Label, resolve: (d) => d.label }),
      mergeRequest: t.field({ type: ChangeRequestType, nullable: true, description: 'Same person: the PENDING merge request (two-person rule).', resolve: (d) => d.mergeRequest }),
    }),
  });

  const ItemConnection = connectionType(builder, 'IdentityReviewItem', Item);
  const isItemId = (key: string) => isId('rvw', key);

  builder.queryFields((t) => ({
    identityReviewItem: t.field({
      type: Item,
      nullable: true,
      args: { id: t.arg.id({ required: true, description: 'rvw_…' }) },
      authScopes: { anyScope: REVIEW_READ_SCOPES },
      resolve: (_root, { id }, ctx) => (isItemId(String(id)) ? service.reviewItem(ctx.principal, String(id)) : null),
    }),
    identityReviewQueue: t.field({
      type: ItemConnection,
      description:
        "Records linked for review, oldest first. Operators see every item; a partner sees items whose record and at least one candidate it links to, with only those candidates (a page may then hold fewer than `first` items: follow endCursor while hasNextPage).",
      args: { status: t.arg({ type: Status, description: 'Default OPEN.' }), first: t.arg.int(), after: t.arg.string() },
      authScopes: { anyScope: REVIEW_READ_SCOPES },
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const afterId = decodeOptionalCursor(args.after, { isKey: isItemId });
        const page = await service.reviewQueue(ctx.principal, { status: args.status ?? 'OPEN', size, afterId });
        return {
          edges: page.items.map((node) => ({ cursor: encodeCursor(node.id), node })),
          pageInfo: { hasNextPage: page.more, endCursor: page.lastId ? encodeCursor(page.lastId) : null },
        };
      },
    }),
  }));

  builder.mutationFields((t) => ({
    decideIdentityReview: t.field({
      type: Decided,
      description:
        'Decide one candidate of a review item. same: true opens a merge request of the item\'s record into the candidate (applied when a different principal approves it); same: false separates the two records for good. Every decision is kept as a training label.',
      args: {
        itemId: t.arg.id({ required: true }),
        candidateGpid: t.arg.id({ required: true }),
        same: t.arg.boolean({ required: true }),
        note: t.arg.string(),
        source: t.arg.string({ required: true, description: 'The X-Svc-Source origin.' }),
      },
      authScopes: { scope: 'identity.merge' },
      resolve: (_root, args, ctx) =>
        service.decideReview(ctx.principal, String(args.itemId), { candidateGpid: String(args.candidateGpid), same: args.same, note: args.note ?? null }, sourceArg(args.source)),
    }),
  }));
}
