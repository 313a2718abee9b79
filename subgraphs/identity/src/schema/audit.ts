import { connectionType, decodeOptionalCursor, pageSize, toPage, type SubgraphBuilder } from '@svc/platform';
import type { AuditVerification } from '../domain/index.js';
import type { IdentityService } from '../identity-service.js';
import { identityViewer } from '../identity-viewer.js';
import type { AuditEntryRef } from './changes.js';

const AUDIT_SCOPES = { anyScope: ['cms.admin', 'identity.approve'] } as const;

/** The audit chain: its entries and its verification. */
export function defineAudit(builder: SubgraphBuilder, service: IdentityService, AuditEntry: AuditEntryRef) {
  const Verification = builder.objectRef<AuditVerification>('IdentityAuditVerification').implement({
    description: 'The result of walking the audit chain from its first entry, recomputing every hash.',
    fields: (t) => ({
      valid: t.exposeBoolean('valid', { description: 'Every entry links to its predecessor and matches its hash.' }),
      checked: t.exposeInt('checked', { description: 'Entries that verified.' }),
      headSeq: t.exposeInt('headSeq', { nullable: true, description: 'The last verified entry: compare with a published head to detect truncation.' }),
      headHash: t.exposeString('headHash', { nullable: true }),
      firstInvalidSeq: t.exposeInt('firstInvalidSeq', { nullable: true }),
      problem: t.exposeString('problem', { nullable: true }),
    }),
  });
  const Connection = connectionType(builder, 'IdentityAuditEntry', AuditEntry);

  builder.queryFields((t) => ({
    identityAuditVerification: t.field({
      type: Verification,
      description: "Verify the hash chain of the identity audit events (tamper evidence). Operators only: the chain holds every partner's changes, and its length and head would tell one partner of the others' activity.",
      authScopes: { scope: 'cms.admin' },
      resolve: () => service.verifyAudit(),
    }),
    identityAuditEntries: t.field({
      type: Connection,
      description: "The audit chain in order, oldest first (a partner's approver: the changes its partner requested).",
      args: { first: t.arg.int(), after: t.arg.string(), types: t.arg.stringList({ description: 'identity.merged.v1, identity.split.v1, identity.scoring_model.trained.v1, identity.scoring_model.activated.v1' }) },
      authScopes: AUDIT_SCOPES,
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const after = Number(decodeOptionalCursor(args.after, { isKey: (key) => /^\d{1,15}$/.test(key) }) ?? 0);
        // A partner (an approver that is not an operator) reads the changes its partner requested.
        const viewer = identityViewer(ctx.principal);
        const rows = await service.auditEntries({ afterSeq: after, size, types: args.types ?? null, ...(viewer.unrestricted ? {} : { partnerGpid: viewer.partnerGpid ?? '-' }) });
        return toPage(rows, size, (e) => String(e.seq));
      },
    }),
  }));
}
