import { connectionType, decodeOptionalCursor, isId, DomainError, hasAnyScope, pageSize, toPage, type SubgraphBuilder, type SubgraphContext } from '@svc/platform';
import { MAX_NOTE_LENGTH, type ChangeActor, type IdentityRecord } from '../domain/index.js';
import type { StoredAuditEntry } from '../entities/audit-log.js';
import type { ChangeRequest } from '../entities/change-requests.js';
import type { IdentityService } from '../identity-service.js';
import { identityViewer } from '../identity-viewer.js';
import type { IdentityLoaders, IdentityTypeRef } from './identity.js';
import { sourceArg } from './match-resolve.js';

const CHANGE_SCOPES = ['identity.merge', 'identity.split', 'identity.approve', 'cms.admin'];

function readNote(note: string | null | undefined): string | null {
  if (note === null || note === undefined || note.trim() === '') return null;
  if (note.length > MAX_NOTE_LENGTH) throw new DomainError('VALIDATION_ERROR', 'The note is too long.', { fieldErrors: [{ field: 'note', message: `must be at most ${MAX_NOTE_LENGTH} characters` }] });
  return note.trim();
}


/** The audit entry type (shared with the audit queries). */
export function defineAuditEntry(builder: SubgraphBuilder) {
  return builder.objectRef<StoredAuditEntry>('IdentityAuditEntry').implement({
    description: 'An immutable, hash-chained audit event: identity.merged.v1 or identity.split.v1, and for operators identity.scoring_model.trained.v1 and identity.scoring_model.activated.v1.',
    fields: (t) => ({
      seq: t.exposeInt('seq', { description: 'Position in the chain, from 1, without gaps.' }),
      eventId: t.exposeID('eventId', { description: 'evt_…: for a merge or split, the same event on the bus and in the event log (a scoring-model entry has no event).' }),
      type: t.exposeString('type'),
      occurredAt: t.exposeString('occurredAt', { description: 'ISO 8601 UTC, exactly as hashed.' }),
      partnerGpid: t.exposeID('partnerGpid', { nullable: true }),
      payload: t.field({ type: 'JSONObject', resolve: (e) => JSON.parse(e.payload) as Record<string, unknown> }),
      canonicalPayload: t.exposeString('payload', { description: 'The payload as canonical JSON text, exactly as hashed.' }),
      prevHash: t.exposeString('prevHash', { description: 'SHA-256 (hex) of the previous entry; 64 zeros for the first.' }),
      hash: t.exposeString('hash', { description: 'sha256(prevHash \\n seq \\n eventId \\n type \\n occurredAt \\n canonicalPayload), hex.' }),
    }),
  });
}
export type AuditEntryRef = ReturnType<typeof defineAuditEntry>;

/** Merge and split requests, their approval by a second principal, and their listing. */
export function defineChanges(builder: SubgraphBuilder, service: IdentityService, loaders: IdentityLoaders, IdentityType: IdentityTypeRef, AuditEntry: AuditEntryRef) {
  const Kind = builder.enumType('IdentityChangeKind', { values: { MERGE: { value: 'merge' }, SPLIT: { value: 'split' } } as const });
  const Status = builder.enumType('IdentityChangeStatus', {
    description: 'PENDING until a second principal approves (APPLIED) or someone rejects it (REJECTED); EXPIRED after 7 days undecided.',
    values: { PENDING: { value: 'PENDING' }, APPLIED: { value: 'APPLIED' }, REJECTED: { value: 'REJECTED' }, EXPIRED: { value: 'EXPIRED' } } as const,
  });
  const Actor = builder.objectRef<ChangeActor>('IdentityChangeActor').implement({
    description: 'The principal that requested or decided a change.',
    fields: (t) => ({
      kind: t.exposeString('kind', { description: 'partner, service or portal.' }),
      partnerGpid: t.exposeID('partnerGpid', { nullable: true }),
      credentialId: t.exposeID('credentialId', { nullable: true, description: 'The API token (tok_…), OAuth client (cli_…) or session.' }),
      operator: t.exposeBoolean('operator', { description: 'Held cms.admin (a data steward).' }),
    }),
  });

  const Request = builder.objectRef<ChangeRequest>('IdentityChangeRequest').implement({
    description: 'A merge (mrg_…) or split (spl_…) of GPIDs. Requested by one principal, applied only when a different principal approves it (two-person rule).',
    fields: (t) => ({
      id: t.exposeID('id'),
      kind: t.field({ type: Kind, resolve: (r) => r.kind }),
      status: t.field({ type: Status, resolve: (r) => r.status }),
      reason: t.exposeString('reason', { description: 'Merge: deterministic_exact, manual_review or probabilistic. Split: false_merge_detected, manual_correction or legal_request.' }),
      note: t.exposeString('note', { nullable: true }),
      survivorGpid: t.exposeID('survivorGpid', { nullable: true, description: 'Merge: the survivor. Split: the survivor the GPID is split from.' }),
      gpids: t.idList({ description: 'Merge: the GPIDs merged into the survivor. Split: the GPID split off.', resolve: (r) => r.gpids }),
      survivor: t.field({ type: IdentityType, nullable: true, resolve: (r, _a, ctx) => (r.survivorGpid ? loaders.record(ctx).load(r.survivorGpid) : null) }),
      identities: t.field({ type: [IdentityType], description: 'The records of gpids, as they are now.', resolve: async (r, _a, ctx) => (await loaders.record(ctx).loadMany(r.gpids)).filter((x): x is IdentityRecord => x !== null && !(x instanceof Error)) }),
      requestedBy: t.field({ type: Actor, resolve: (r) => r.requestedBy }),
      requestedSource: t.exposeString('requestedSource'),
      requestedAt: t.expose('requestedAt', { type: 'DateTime' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
      decidedBy: t.field({ type: Actor, nullable: true, resolve: (r) => r.decidedBy }),
      decidedSource: t.exposeString('decidedSource', { nullable: true }),
      decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
      decisionNote: t.exposeString('decisionNote', { nullable: true }),
      auditSeq: t.exposeInt('auditSeq', { nullable: true, description: 'The audit entry an applied request wrote.' }),
    }),
  });

  /** Approval result: the request and, once applied, its audit entry. */
  const Decision = builder.objectRef<{ request: ChangeRequest; audit: StoredAuditEntry | null }>('IdentityChangeDecision').implement({
    fields: (t) => ({
      request: t.field({ type: Request, resolve: (d) => d.request }),
      audit: t.field({ type: AuditEntry, nullable: true, description: 'identity.merged.v1 or identity.split.v1, when applied.', resolve: (d) => d.audit }),
    }),
  });

  const MergeInput = builder.inputType('RequestIdentityMergeInput', {
    fields: (t) => ({
      survivorGpid: t.id({ required: true, description: 'The GPID that survives.' }),
      mergedGpids: t.idList({ required: true, description: 'Duplicates to merge into the survivor (1 to 20; never the survivor itself).' }),
      reason: t.string({ required: true, description: 'deterministic_exact, manual_review or probabilistic.' }),
      note: t.string({ description: 'Free text for the approver and the audit trail (at most 1000 characters).' }),
    }),
  });
  const SplitInput = builder.inputType('RequestIdentitySplitInput', {
    fields: (t) => ({
      gpid: t.id({ required: true, description: 'The MERGED GPID to separate from its survivor again.' }),
      reason: t.string({ required: true, description: 'false_merge_detected, manual_correction or legal_request.' }),
      note: t.string({ description: 'Free text (at most 1000 characters).' }),
    }),
  });

  const RequestConnection = connectionType(builder, 'IdentityChangeRequest', Request);

  builder.queryFields((t) => ({
    identityChangeRequest: t.field({
      type: Request,
      nullable: true,
      args: { id: t.arg.id({ required: true, description: 'mrg_… or spl_…' }) },
      authScopes: { anyScope: CHANGE_SCOPES },
      resolve: async (_root, { id }, ctx) => {
        const request = await service.changeRequest(String(id));
        return request && (await service.canSeeChangeRequest(ctx.principal, request)) ? request : null;
      },
    }),
    identityChangeRequests: t.field({
      type: RequestConnection,
      description: "Merge and split requests, newest first: every request for operators, your partner's otherwise (an approver of another partner opens a request by its id).",
      args: { status: t.arg({ type: Status }), kind: t.arg({ type: Kind }), first: t.arg.int(), after: t.arg.string() },
      authScopes: { anyScope: CHANGE_SCOPES },
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const reviewer = identityViewer(ctx.principal).unrestricted;
        const rows = await service.changeRequests({
          status: args.status ?? null,
          kind: args.kind ?? null,
          size,
          beforeId: decodeOptionalCursor(args.after, { isKey: (key) => isId('mrg', key) || isId('spl', key) }),
          ...(reviewer ? {} : { partnerGpid: ctx.principal.partnerGpid }),
        });
        return toPage(rows, size, (r) => r.id);
      },
    }),
  }));

  builder.mutationFields((t) => ({
    requestIdentityMerge: t.field({
      type: Request,
      description: 'Request a merge of duplicate GPIDs into a survivor. Nothing changes until a different principal approves it (approveIdentityChange).',
      args: { input: t.arg({ type: MergeInput, required: true }), source: t.arg.string({ required: true, description: 'The X-Svc-Source origin.' }) },
      authScopes: { scope: 'identity.merge' },
      resolve: (_root, { input, source }, ctx) => service.requestMerge(ctx.principal, { survivorGpid: String(input.survivorGpid), mergedGpids: input.mergedGpids.map(String), reason: input.reason, note: input.note ?? null }, sourceArg(source)),
    }),
    requestIdentitySplit: t.field({
      type: Request,
      description: 'Request the split of a falsely merged GPID from its survivor. Nothing changes until a different principal approves it.',
      args: { input: t.arg({ type: SplitInput, required: true }), source: t.arg.string({ required: true, description: 'The X-Svc-Source origin.' }) },
      authScopes: { scope: 'identity.split' },
      resolve: (_root, { input, source }, ctx) => service.requestSplit(ctx.principal, { gpid: String(input.gpid), reason: input.reason, note: input.note ?? null }, sourceArg(source)),
    }),
    approveIdentityChange: t.field({
      type: Decision,
      description:
        'Approve a pending merge or split and apply it, writing its immutable audit event. The approver must be independent of the requester: another credential, and another partner unless the approver is an operator (cms.admin).',
      args: { requestId: t.arg.id({ required: true }), source: t.arg.string({ required: true, description: 'The X-Svc-Source origin.' }), note: t.arg.string() },
      authScopes: { scope: 'identity.approve' },
      resolve: (_root, { requestId, source, note }, ctx) => service.approve(ctx.principal, String(requestId), sourceArg(source), readNote(note)),
    }),
    rejectIdentityChange: t.field({
      type: Request,
      description: 'Reject a pending merge or split (an independent principal with identity.approve), or withdraw your own.',
      args: { requestId: t.arg.id({ required: true }), source: t.arg.string({ required: true, description: 'The X-Svc-Source origin.' }), note: t.arg.string() },
      authScopes: { anyScope: CHANGE_SCOPES },
      resolve: (_root, { requestId, source, note }, ctx) => service.reject(ctx.principal, String(requestId), sourceArg(source), readNote(note)),
    }),
  }));
  return Request;
}
export type ChangeRequestRef = ReturnType<typeof defineChanges>;
