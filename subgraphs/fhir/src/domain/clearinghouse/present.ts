import { STATUS_CATEGORY, STATUS_CODE, type ClaimStanding } from './payer-stub.js';
import type { StoredClaim } from './records.js';
import type { ClaimStatusResult, ClaimSubmissionResult, EligibilityResult, SubmittedClaim } from './service.js';

/** The JSON documents the clearinghouse answers (snake_case, as REST bodies are). */

export function standingJson(s: ClaimStanding): Record<string, unknown> {
  return {
    category_code: s.category,
    category: STATUS_CATEGORY[s.category] ?? s.category,
    status_code: s.status_code,
    status: STATUS_CODE[s.status_code] ?? s.status_code,
    total_charge: s.charge,
    paid_amount: s.paid ?? null,
    payer_claim_number: s.payer_claim_number ?? null,
  };
}

export function eligibilityJson(r: EligibilityResult): Record<string, unknown> {
  return {
    transaction: '271',
    eligibility_request_id: r.requestId,
    eligibility_response_id: r.responseId,
    ...r.answer,
    plan: r.answer.plan ?? null,
  };
}

export function claimStatusJson(r: ClaimStatusResult): Record<string, unknown> {
  return { transaction: '277', ...r.answer, claim_id: r.answer.claim_id ?? null, patient_control_number: r.answer.patient_control_number ?? null };
}

export function submittedClaimJson(c: SubmittedClaim | StoredClaim): Record<string, unknown> {
  return {
    claim_id: c.claimId,
    patient_control_number: c.patientControlNumber,
    member_id: c.memberId,
    ...('submittedAt' in c ? { submitted_at: c.submittedAt } : {}),
    status: standingJson(c.standing),
  };
}

export function submissionJson(r: ClaimSubmissionResult): Record<string, unknown> {
  return {
    transaction: '837P',
    reference: r.submission.reference,
    accepted: true,
    replayed: r.replayed,
    claims: r.claims.map(submittedClaimJson),
    acknowledgement_999: r.acknowledgement999,
    ta1: r.ta1,
  };
}
