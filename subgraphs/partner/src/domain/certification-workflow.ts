import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { DomainError, makeEvent, recordEvent } from '@svc/platform';
import { apiTokens } from '../entities/api-tokens.js';
import { certificationRecords } from '../entities/certification-records.js';
import type { CertificationEvidenceRow } from '../entities/certification-evidence.js';
import type { CertificationSubmission } from '../entities/certification-submission.js';
import { oauthClients } from '../entities/oauth-clients.js';
import { partners } from '../entities/partners.js';
import { CERTIFICATION_CHECKLISTS, findCertificationChecklist, type CertificationChecklist } from './certification-checklists.js';
import {
  assertCertificationComplete,
  evaluateCertification,
  validateCertificationProgress,
  type CertificationEvaluation,
  type CertificationEvidence,
} from './certification-evaluation.js';
import { assessLeastPrivilege, type LeastPrivilegeAssessment } from './certification-least-privilege.js';
import { prefixFieldErrors } from './validation-result.js';

/** One checklist as it stands for a partner. */
export interface ChecklistState {
  checklist: CertificationChecklist;
  evaluation: CertificationEvaluation;
  submission: CertificationSubmission | null;
}

/** A partner's certification: both checklists, the evidence behind them and the checkboxes. */
export interface PartnerCertification {
  partnerGpid: string;
  checklists: ChecklistState[];
  /** Recorded evidence plus the live least-privilege observation, oldest first. */
  evidence: CertificationEvidence[];
  /** Item id → checked, for attested items. */
  progress: Record<string, boolean>;
  leastPrivilege: LeastPrivilegeAssessment;
}

/** Overall certification status of a partner. */
export type CertificationStatus = 'in_progress' | 'ready' | 'submitted';

/** `submitted` once every checklist is submitted; `ready` when one can be; else `in_progress`. */
export function certificationStatus(certification: PartnerCertification): CertificationStatus {
  if (certification.checklists.every((state) => state.submission !== null)) return 'submitted';
  if (certification.checklists.some((state) => state.submission === null && state.evaluation.complete)) return 'ready';
  return 'in_progress';
}

function checklistOrThrow(id: string): CertificationChecklist {
  const checklist = findCertificationChecklist(id);
  if (!checklist) {
    throw new DomainError('VALIDATION_ERROR', 'Unknown checklist.', {
      fieldErrors: [{ field: 'checklist_id', message: `Must be one of ${CERTIFICATION_CHECKLISTS.map((c) => c.id).join(', ')}.` }],
    });
  }
  return checklist;
}

async function assertPartner(em: EntityManager, partnerGpid: string): Promise<void> {
  if (!(await partners.byGpid(em, partnerGpid))) throw new DomainError('NOT_FOUND', `Partner ${partnerGpid} does not exist.`);
}

const toEvidence = (row: CertificationEvidenceRow): CertificationEvidence => ({ item_id: row.itemId, observed_at: row.observedAt.toISOString(), detail: row.detail, count: row.count ?? 1 });

/**
 * Evaluate both checklists for a partner. Observed items come from recorded evidence; the
 * least-privilege item is observed live from the partner's active API tokens and OAuth clients.
 */
export async function loadCertification(em: EntityManager, partnerGpid: string, now = new Date()): Promise<PartnerCertification> {
  const [rows, attestations, submissions, tokens, clients] = await Promise.all([
    certificationRecords.evidenceFor(em, partnerGpid),
    certificationRecords.attestationsFor(em, partnerGpid),
    certificationRecords.submissionsFor(em, partnerGpid),
    apiTokens.active(em, partnerGpid, now),
    oauthClients.active(em, partnerGpid),
  ]);
  const leastPrivilege = assessLeastPrivilege([
    ...tokens.filter((token) => token.principalKind === 'partner').map((token) => ({ id: token.id, scopes: token.scopes })),
    ...clients.map((client) => ({ id: client.id, scopes: client.scopes })),
  ]);
  const evidence = rows.map(toEvidence);
  if (leastPrivilege.satisfied) evidence.push({ item_id: 'least_privilege_scopes', observed_at: now.toISOString(), detail: leastPrivilege.detail });
  const progress = Object.fromEntries(attestations.map((row) => [row.itemId, row.checked]));
  const checklists = CERTIFICATION_CHECKLISTS.map((checklist) => ({
    checklist,
    evaluation: evaluateCertification(checklist, progress, evidence),
    submission: submissions.find((row) => row.checklistId === checklist.id) ?? null,
  }));
  return { partnerGpid, checklists, evidence, progress, leastPrivilege };
}

/**
 * Sync the partner's checkboxes for one checklist (`{ item_id: boolean }`). Observed items cannot be
 * checked off; unknown items are refused. Field paths are `items.<item_id>`.
 * @throws DomainError `VALIDATION_ERROR`, `NOT_FOUND` (partner).
 */
export async function updateCertificationProgress(
  em: EntityManager,
  partnerGpid: string,
  checklistId: string,
  items: unknown,
  updatedBy: string | null,
  now = new Date(),
): Promise<PartnerCertification> {
  const checklist = checklistOrThrow(checklistId);
  const result = validateCertificationProgress(checklist, items);
  if (!result.ok) throw new DomainError('VALIDATION_ERROR', 'The progress update is invalid.', { fieldErrors: prefixFieldErrors('items', result.errors) });
  await assertPartner(em, partnerGpid);
  await certificationRecords.setAttestations(em, partnerGpid, result.value, updatedBy, now);
  await em.flush();
  return loadCertification(em, partnerGpid, now);
}

/**
 * Submit one checklist. Refused while a required item is incomplete (`VALIDATION_ERROR`, one field
 * error per item) and when the checklist was already submitted (`CONFLICT`). Emits
 * `partner.certification.submitted`.
 */
export async function submitCertification(em: EntityManager, partnerGpid: string, checklistId: string, submittedBy: string | null, now = new Date()): Promise<CertificationSubmission> {
  const checklist = checklistOrThrow(checklistId);
  await assertPartner(em, partnerGpid);
  const certification = await loadCertification(em, partnerGpid, now);
  const state = certification.checklists.find((candidate) => candidate.checklist.id === checklist.id)!;
  if (state.submission) {
    throw new DomainError('CONFLICT', `The ${checklist.title} checklist was already submitted on ${state.submission.submittedAt.toISOString()}.`, {
      details: { checklist_id: checklist.id },
    });
  }
  assertCertificationComplete(state.evaluation);
  try {
    return await em.transactional(async (tx) => {
      const submission = certificationRecords.addSubmission(tx, {
        partnerGpid,
        checklistId: checklist.id,
        submittedAt: now,
        submittedBy,
        evaluation: { ...state.evaluation } as unknown as Record<string, unknown>,
      });
      recordEvent(
        tx,
        makeEvent(
          'partner.certification.submitted',
          partnerGpid,
          {
            event: 'partner.certification.submitted',
            partner_gpid: partnerGpid,
            checklist_id: checklist.id,
            required_total: state.evaluation.required_total,
            submitted_at: now.toISOString(),
          },
          now,
        ),
      );
      return submission;
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw new DomainError('CONFLICT', `The ${checklist.title} checklist was already submitted.`, { details: { checklist_id: checklist.id } });
    }
    throw err;
  }
}

/**
 * Record evidence for an observed item, once per (partner, item, source). Unknown partners are
 * ignored (events may name a partner this database never had). Returns true when a row was added.
 */
export async function recordCertificationEvidence(
  em: EntityManager,
  evidence: { partnerGpid: string; itemId: string; source: string; detail: string | null; observedAt: Date },
): Promise<boolean> {
  const key = { partnerGpid: evidence.partnerGpid, itemId: evidence.itemId, source: evidence.source.slice(0, 120) };
  if (await certificationRecords.hasEvidence(em, key)) return false;
  if (!(await partners.exists(em, evidence.partnerGpid))) return false;
  certificationRecords.addEvidence(em, { ...key, detail: evidence.detail?.slice(0, 500) ?? null, observedAt: evidence.observedAt });
  try {
    await em.flush();
    return true;
  } catch (err) {
    // A concurrent consumer recorded the same observation first: the idempotent outcome.
    if (err instanceof UniqueConstraintViolationException) return false;
    throw err;
  }
}
