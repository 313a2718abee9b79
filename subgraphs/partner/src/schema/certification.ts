import type { ObjectRef } from '@pothos/core';
import { actsFor, DomainError, type SubgraphBuilder as Builder, type SubgraphServices } from '@svc/platform';
import type { Partner } from '../entities/partner.js';
import { CERTIFICATION_CHECKLISTS, type CertificationChecklist, type CertificationItem } from '../domain/certification-checklists.js';
import type { CertificationEvidence, CertificationItemStatus } from '../domain/certification-evaluation.js';
import {
  certificationStatus,
  loadCertification,
  submitCertification,
  updateCertificationProgress,
  type ChecklistState,
  type PartnerCertification,
} from '../domain/certification-workflow.js';
import { partnerActor } from './certification-access.js';

type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer X> ? X : never;

interface ItemState {
  item: CertificationItem;
  status: CertificationItemStatus;
  checked: boolean | null;
  evidence: CertificationEvidence[];
}

function itemStates(certification: PartnerCertification, state: ChecklistState): ItemState[] {
  return state.checklist.items.map((item) => {
    const status = state.evaluation.items.find((candidate) => candidate.item_id === item.id)!;
    return {
      item,
      status,
      checked: item.evidence === 'attested' ? certification.progress[item.id] === true : null,
      evidence: certification.evidence.filter((record) => record.item_id === item.id),
    };
  });
}

/**
 * Certification: the two checklists (public definitions), `Partner.certification` (items, evidence,
 * status), progress sync and submission. Observed items complete only from recorded evidence.
 */
export function defineCertification(builder: Builder, services: SubgraphServices, partnerType: ObjectRef<Types, Partner>) {
  const EvidenceKind = builder.enumType('CertificationEvidenceKind', {
    values: {
      OBSERVED: { value: 'observed', description: 'Completed only by evidence the platform records; a checkbox never completes it.' },
      ATTESTED: { value: 'attested', description: 'Checked off by the partner.' },
    } as const,
  });
  const Status = builder.enumType('CertificationStatus', {
    values: {
      IN_PROGRESS: { value: 'in_progress', description: 'No checklist can be submitted yet.' },
      READY: { value: 'ready', description: 'A checklist has every required item complete and can be submitted.' },
      SUBMITTED: { value: 'submitted', description: 'Every checklist was submitted.' },
    } as const,
  });

  const Item = builder.objectRef<CertificationItem>('CertificationItem').implement({
    fields: (t) => ({
      id: t.exposeID('id', { description: 'Stable item id; shared by both checklists when it names the same fact.' }),
      title: t.exposeString('title'),
      description: t.exposeString('description'),
      evidenceKind: t.field({ type: EvidenceKind, resolve: (i) => i.evidence }),
      required: t.exposeBoolean('required'),
      observation: t.exposeString('observation', { nullable: true, description: 'For observed items: what the platform records as evidence.' }),
    }),
  });

  const Checklist = builder.objectRef<CertificationChecklist>('CertificationChecklist').implement({
    fields: (t) => ({
      id: t.exposeID('id', { description: 'partner_ecosystem or identity.' }),
      title: t.exposeString('title'),
      description: t.exposeString('description'),
      items: t.field({ type: [Item], resolve: (c) => [...c.items] }),
    }),
  });

  const Evidence = builder.objectRef<CertificationEvidence>('CertificationEvidence').implement({
    description: 'Something the platform observed that completes an observed item.',
    fields: (t) => ({
      itemId: t.exposeID('item_id'),
      observedAt: t.field({ type: 'DateTime', resolve: (e) => new Date(e.observed_at) }),
      detail: t.string({ nullable: true, resolve: (e) => e.detail ?? null }),
      count: t.int({
        description: 'How many observations this evidence stands for: for fhir_r4_sandbox_read, the partner\'s successful FHIR R4 reads, counted exactly (one piece of evidence per partner); 1 for other items.',
        resolve: (e) => e.count ?? 1,
      }),
    }),
  });

  const ItemStateRef = builder.objectRef<ItemState>('CertificationItemState').implement({
    fields: (t) => ({
      id: t.id({ resolve: (s) => s.item.id }),
      title: t.string({ resolve: (s) => s.item.title }),
      description: t.string({ resolve: (s) => s.item.description }),
      evidenceKind: t.field({ type: EvidenceKind, resolve: (s) => s.item.evidence }),
      required: t.boolean({ resolve: (s) => s.item.required }),
      complete: t.boolean({ resolve: (s) => s.status.complete }),
      checked: t.boolean({ nullable: true, description: 'The partner\'s checkbox, for attested items; null for observed items.', resolve: (s) => s.checked }),
      observedAt: t.field({ type: 'DateTime', nullable: true, description: 'Latest evidence of an observed item.', resolve: (s) => (s.status.observed_at ? new Date(s.status.observed_at) : null) }),
      incompleteReason: t.string({ nullable: true, description: 'not_attested or no_evidence while incomplete.', resolve: (s) => s.status.reason }),
      evidence: t.field({ type: [Evidence], resolve: (s) => s.evidence }),
    }),
  });

  const ChecklistStateRef = builder.objectRef<{ certification: PartnerCertification; state: ChecklistState }>('CertificationChecklistState').implement({
    fields: (t) => ({
      id: t.id({ resolve: ({ state }) => state.checklist.id }),
      title: t.string({ resolve: ({ state }) => state.checklist.title }),
      complete: t.boolean({ description: 'Every required item is complete.', resolve: ({ state }) => state.evaluation.complete }),
      requiredTotal: t.int({ resolve: ({ state }) => state.evaluation.required_total }),
      requiredCompleted: t.int({ resolve: ({ state }) => state.evaluation.required_completed }),
      incompleteItemIds: t.idList({ resolve: ({ state }) => state.evaluation.incomplete.map((item) => item.item_id) }),
      items: t.field({ type: [ItemStateRef], resolve: ({ certification, state }) => itemStates(certification, state) }),
      submittedAt: t.field({ type: 'DateTime', nullable: true, resolve: ({ state }) => state.submission?.submittedAt ?? null }),
    }),
  });

  const Certification = builder.objectRef<PartnerCertification>('Certification').implement({
    description: 'A partner\'s certification for production go-live: both checklists, their items, evidence and status.',
    fields: (t) => ({
      partnerGpid: t.exposeID('partnerGpid'),
      status: t.field({ type: Status, resolve: (c) => certificationStatus(c) }),
      checklists: t.field({ type: [ChecklistStateRef], resolve: (c) => c.checklists.map((state) => ({ certification: c, state })) }),
      evidence: t.field({ type: [Evidence], description: 'Every piece of evidence, oldest first.', resolve: (c) => c.evidence }),
    }),
  });

  builder.objectFields(partnerType, (t) => ({
    certification: t.field({
      type: Certification,
      description: 'Certification progress of this partner (the partner itself, or operators).',
      authScopes: { authenticated: true },
      resolve: (partner, _args, ctx) => {
        if (!actsFor(ctx.principal, partner.gpid)) throw new DomainError('FORBIDDEN', 'Another partner\'s certification is not visible.');
        return loadCertification(ctx.em, partner.gpid);
      },
    }),
  }));

  builder.queryFields((t) => ({
    certificationChecklists: t.field({
      type: [Checklist],
      description: 'The certification checklists: partner_ecosystem (11 required items) and identity (12).',
      resolve: () => [...CERTIFICATION_CHECKLISTS],
    }),
  }));

  builder.mutationFields((t) => ({
    updateCertificationProgress: t.field({
      type: Certification,
      description:
        'Sync the caller\'s checkboxes of one checklist: `items` maps attested item ids to true or false. Observed items cannot be checked off ' +
        '(VALIDATION_ERROR on items.<id>). Portal session, or a partner credential with cms.partner.write.',
      args: { checklistId: t.arg.id({ required: true }), items: t.arg({ type: 'JSONObject', required: true }) },
      authScopes: { authenticated: true },
      resolve: (_root, args, ctx) => {
        const actor = partnerActor(ctx.principal);
        return updateCertificationProgress(ctx.em, actor.partnerGpid, String(args.checklistId), args.items, actor.credentialId);
      },
    }),
    submitCertification: t.field({
      type: Certification,
      description:
        'Submit one checklist. Refused with VALIDATION_ERROR (one field error per incomplete required item, items.<id>) while incomplete, ' +
        'and with CONFLICT once submitted. Emits partner.certification.submitted.',
      args: { checklistId: t.arg.id({ required: true }) },
      authScopes: { authenticated: true },
      resolve: async (_root, args, ctx) => {
        const actor = partnerActor(ctx.principal);
        await submitCertification(ctx.em, actor.partnerGpid, String(args.checklistId), actor.credentialId);
        services.publishCommitted();
        return loadCertification(ctx.em, actor.partnerGpid);
      },
    }),
  }));

  return Certification;
}
