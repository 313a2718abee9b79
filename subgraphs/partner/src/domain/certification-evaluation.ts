import { DomainError, type FieldError } from '@svc/platform';
import type { CertificationChecklist, CertificationItem, EvidenceKind } from './certification-checklists.js';
import { asRecord } from './input-readers.js';
import { invalid, valid, type ValidationResult } from './validation-result.js';

/** The partner's checkboxes: item id → checked. Only attested items are read from it. */
export type CertificationProgress = Readonly<Record<string, boolean | undefined>>;

/** One piece of evidence the platform recorded for an observed item. */
export interface CertificationEvidence {
  item_id: string;
  /** ISO 8601 UTC timestamp of the observation. */
  observed_at: string;
  /** Short human-readable reference, such as a request id or a delivery id. */
  detail?: string | null;
  /** Observations it stands for: the partner's successful FHIR reads for `fhir_r4_sandbox_read`; 1 otherwise. */
  count?: number;
}

/** Why an item is not complete. */
export type IncompleteReason = 'not_attested' | 'no_evidence';

/** State of one item after evaluation. */
export interface CertificationItemStatus {
  item_id: string;
  title: string;
  evidence: EvidenceKind;
  required: boolean;
  complete: boolean;
  /** Latest evidence of an observed item, when there is some. */
  observed_at: string | null;
  /** Set when the item is not complete. */
  reason: IncompleteReason | null;
}

/** Result of {@link evaluateCertification}. */
export interface CertificationEvaluation {
  checklist_id: string;
  /** True when every required item is complete: the checklist can be submitted. */
  complete: boolean;
  required_total: number;
  required_completed: number;
  items: CertificationItemStatus[];
  /** The required items that are not complete, in checklist order. */
  incomplete: CertificationItemStatus[];
}

function latestEvidence(item: CertificationItem, evidence: readonly CertificationEvidence[]): string | null {
  let latest: string | null = null;
  for (const record of evidence) {
    if (record.item_id !== item.id) continue;
    if (latest === null || Date.parse(record.observed_at) > Date.parse(latest)) latest = record.observed_at;
  }
  return latest;
}

/**
 * Evaluate a checklist. An attested item is complete when the partner checked it; an observed item
 * is complete only when the platform recorded evidence for it: a checkbox never completes it.
 * Progress entries for unknown items are ignored.
 */
export function evaluateCertification(
  checklist: CertificationChecklist,
  progress: CertificationProgress,
  evidence: readonly CertificationEvidence[],
): CertificationEvaluation {
  const items = checklist.items.map((item): CertificationItemStatus => {
    const observedAt = item.evidence === 'observed' ? latestEvidence(item, evidence) : null;
    const complete = item.evidence === 'observed' ? observedAt !== null : progress[item.id] === true;
    return {
      item_id: item.id,
      title: item.title,
      evidence: item.evidence,
      required: item.required,
      complete,
      observed_at: observedAt,
      reason: complete ? null : item.evidence === 'observed' ? 'no_evidence' : 'not_attested',
    };
  });
  const required = items.filter((item) => item.required);
  const incomplete = required.filter((item) => !item.complete);
  return {
    checklist_id: checklist.id,
    complete: incomplete.length === 0,
    required_total: required.length,
    required_completed: required.length - incomplete.length,
    items,
    incomplete,
  };
}

/**
 * Refuse a certification submission while required items are incomplete.
 * @throws DomainError `VALIDATION_ERROR` with one field error per incomplete item (field
 *   `items.<item_id>`) and the incomplete ids in `details.incomplete_items`.
 */
export function assertCertificationComplete(evaluation: CertificationEvaluation): void {
  if (evaluation.complete) return;
  const fieldErrors: FieldError[] = evaluation.incomplete.map((item) => ({
    field: `items.${item.item_id}`,
    message:
      item.reason === 'no_evidence'
        ? `"${item.title}" has not been observed yet; the platform records it when it happens.`
        : `"${item.title}" has not been checked off.`,
  }));
  throw new DomainError(
    'VALIDATION_ERROR',
    `Certification cannot be submitted: ${evaluation.incomplete.length} of ${evaluation.required_total} required items are incomplete.`,
    { fieldErrors, details: { checklist_id: evaluation.checklist_id, incomplete_items: evaluation.incomplete.map((item) => item.item_id) } },
  );
}

/**
 * Validate a progress update from the portal (`{ item_id: boolean }`): every key must be an item of
 * the checklist, every value a boolean, and observed items cannot be set by hand.
 * Field paths are the item ids.
 */
export function validateCertificationProgress(checklist: CertificationChecklist, input: unknown): ValidationResult<Record<string, boolean>> {
  const record = asRecord(input);
  if (!record) return invalid([{ field: '', message: 'Progress must be an object mapping item ids to true or false.' }]);
  const errors: FieldError[] = [];
  const progress: Record<string, boolean> = {};
  for (const [itemId, checked] of Object.entries(record)) {
    const item = checklist.items.find((candidate) => candidate.id === itemId);
    if (!item) errors.push({ field: itemId, message: `"${itemId}" is not an item of the ${checklist.title} checklist.` });
    else if (item.evidence === 'observed') {
      errors.push({ field: itemId, message: `"${item.title}" is verified by the platform from recorded evidence and cannot be checked off.` });
    } else if (typeof checked !== 'boolean') errors.push({ field: itemId, message: 'Must be true or false.' });
    else progress[itemId] = checked;
  }
  return errors.length > 0 ? invalid(errors) : valid(progress);
}
