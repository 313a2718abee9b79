import { DomainError } from '@svc/platform';
import type { FhirCall } from '../interactions.js';
import { stableNumber } from './common.js';
import { read270, readEligibilityJson, segments270, segments271, type EligibilityAnswer, type EligibilityInquiry } from './eligibility.js';
import { claimStatusAnswer, read276, readClaimStatusJson, segments276, segments277, type ClaimStatusAnswer, type ClaimStatusInquiry } from './claim-status.js';
import { read837p, readClaimsJson, rejectingTa1, segments837p, write999, writeTa1, type ClaimSubmission } from './claims.js';
import { adjudicate, answerEligibility, standingOfUnknownClaim, type ClaimStanding } from './payer-stub.js';
import { findClaim, findClaimByNumber, findClaimsOfInterchange, recordClaim, recordEligibility, type StoredClaim } from './records.js';
import { KIND_270, KIND_271, KIND_276, KIND_277, KIND_837P, replyParties, writeInterchange, X12Error, type Envelope, type Parties, type Segment, type TransactionKind } from './x12.js';

/**
 * The clearinghouse's three transactions, free of GraphQL and HTTP. Each takes either X12 text or
 * the JSON form; JSON is first written as the X12 a submitter would send and read back through the
 * same checks, so both doors run one path (and every JSON request exercises the X12 writer).
 */

/** What a caller sends: exactly one of X12 text and the JSON form. */
export interface ClearinghouseInput {
  x12?: string | null;
  request?: Record<string, unknown> | null;
}

type Format = 'x12' | 'json';

function formatOf(input: ClearinghouseInput): Format {
  const hasX12 = input.x12 !== undefined && input.x12 !== null;
  const hasJson = input.request !== undefined && input.request !== null;
  if (hasX12 === hasJson) {
    throw new DomainError('BAD_REQUEST', 'Send exactly one of an X12 interchange (x12) and its JSON form (request).', { fieldErrors: [{ field: hasX12 ? 'request' : 'x12', message: 'exactly one of x12 and request is required' }] });
  }
  if (hasX12 && input.x12!.trim() === '') throw new DomainError('BAD_REQUEST', 'The X12 interchange is empty.', { fieldErrors: [{ field: 'x12', message: 'must not be empty' }] });
  return hasX12 ? 'x12' : 'json';
}

/** The interchange a JSON request stands for: from the partner to the payer, test usage. */
function submitterParties(call: FhirCall, payerId: string): Parties {
  return { senderQualifier: 'ZZ', senderId: (call.principal.partnerGpid ?? 'SUBMITTER').slice(0, 15), receiverQualifier: 'ZZ', receiverId: payerId.slice(0, 15), usage: 'T' };
}

function controlNumber(seed: string): string {
  return String(stableNumber(seed) % 1_000_000_000).padStart(9, '0');
}

function asX12(call: FhirCall, kind: TransactionKind, payerId: string, segments: Segment[], at: Date, seed: string): string {
  return writeInterchange(submitterParties(call, payerId), controlNumber(seed), [{ kind, controlNumber: '0001', segments }], at);
}

function answerX12(envelope: Envelope, kind: TransactionKind, segments: Segment[], at: Date, seed: string): string {
  return writeInterchange(replyParties(envelope), controlNumber(seed), [{ kind, controlNumber: envelope.transactionControlNumber, segments }], at);
}

export interface EligibilityResult {
  format: Format;
  inquiry: EligibilityInquiry;
  answer: EligibilityAnswer;
  /** The 271 interchange. */
  x12: string;
  requestId: string;
  responseId: string;
}

/** 270 → 271 from the sandbox payer, stored as CoverageEligibilityRequest/Response. */
export async function checkEligibility(call: FhirCall, input: ClearinghouseInput, at: Date): Promise<EligibilityResult> {
  const format = formatOf(input);
  let text = input.x12 ?? '';
  if (format === 'json') {
    const inquiry = readEligibilityJson(input.request);
    text = asX12(call, KIND_270, inquiry.payer.id, segments270(inquiry, at), at, `${JSON.stringify(inquiry)}:${at.toISOString()}`);
  }
  const { envelope, inquiry } = read270(text);
  const reply = answerEligibility(inquiry);
  const { requestId, responseId } = await call.em.transactional((em) => recordEligibility({ ...call, em }, inquiry, reply, at));
  return { format, inquiry, answer: reply, x12: answerX12(envelope, KIND_271, segments271(reply, at), at, responseId), requestId, responseId };
}

export interface ClaimStatusResult {
  format: Format;
  inquiry: ClaimStatusInquiry;
  answer: ClaimStatusAnswer;
  /** The 277 interchange. */
  x12: string;
}

/**
 * 276 → 277: a claim the partner submitted here is answered from its stored ClaimResponse; any
 * other from the sandbox payer's table (payer-stub.ts).
 */
export async function claimStatus(call: FhirCall, input: ClearinghouseInput, at: Date): Promise<ClaimStatusResult> {
  const format = formatOf(input);
  let text = input.x12 ?? '';
  if (format === 'json') {
    const inquiry = readClaimStatusJson(input.request);
    text = asX12(call, KIND_276, inquiry.payer.id, segments276(inquiry, at), at, `${JSON.stringify(inquiry)}:${at.toISOString()}`);
  }
  const { envelope, inquiry } = read276(text);
  const stored = await findClaimByNumber(call, { ...(inquiry.patient_control_number ? { patientControlNumber: inquiry.patient_control_number } : {}), ...(inquiry.payer_claim_number ? { payerClaimNumber: inquiry.payer_claim_number } : {}) });
  const standing: ClaimStanding = stored?.standing ?? standingOfUnknownClaim(inquiry.subscriber.member_id, inquiry.total_charge ?? '0.00', `${inquiry.payer.id}:${inquiry.patient_control_number ?? inquiry.payer_claim_number}`);
  const answer = claimStatusAnswer(inquiry, standing, at, stored?.claimId);
  const serviceDate = inquiry.service_date ?? stored?.serviceDate;
  return { format, inquiry, answer, x12: answerX12(envelope, KIND_277, segments277(answer, at, serviceDate), at, `${envelope.interchangeControlNumber}:277`) };
}

export interface SubmittedClaim {
  claimId: string;
  patientControlNumber: string;
  memberId: string;
  standing: ClaimStanding;
}

export interface ClaimSubmissionResult {
  format: Format;
  submission: ClaimSubmission;
  claims: SubmittedClaim[];
  /** The 999 implementation acknowledgment of the 837P. */
  acknowledgement999: string;
  /** The TA1 interchange acknowledgment, when ISA14 asked for one. */
  ta1: string | null;
  /** True when the interchange had been submitted before: its claims are the ones stored then. */
  replayed: boolean;
}

/**
 * The claims stored from an earlier submission of the same interchange, in the order of its CLM
 * loops; null when the earlier interchange had other claims (the control number was reused).
 */
function sameClaims(submission: ClaimSubmission, earlier: StoredClaim[]): SubmittedClaim[] | null {
  if (earlier.length !== submission.claims.length) return null;
  // The stored claims by what identifies one, each key's in stored order: one pass each way (an 837P may carry 5,000 claims).
  const key = (pcn: string, member: string, charge: string): string => JSON.stringify([pcn, member, charge]);
  const unused = new Map<string, StoredClaim[]>();
  for (const e of earlier) {
    const k = key(e.patientControlNumber, e.memberId, e.standing.charge);
    const list = unused.get(k);
    if (list) list.push(e);
    else unused.set(k, [e]);
  }
  const taken = new Map<string, number>();
  const out: SubmittedClaim[] = [];
  for (const claim of submission.claims) {
    const k = key(claim.patient_control_number, claim.subscriber.member_id, claim.total_charge);
    const i = taken.get(k) ?? 0;
    const match = unused.get(k)?.[i];
    if (!match) return null;
    taken.set(k, i + 1);
    out.push({ claimId: match.claimId, patientControlNumber: match.patientControlNumber, memberId: match.memberId, standing: match.standing });
  }
  return out;
}

/** 837P → stored Claim + ClaimResponse per CLM, a 999 (and a TA1 when asked for). */
export async function submitClaims(call: FhirCall, input: ClearinghouseInput, at: Date): Promise<ClaimSubmissionResult> {
  const format = formatOf(input);
  let text = input.x12 ?? '';
  if (format === 'json') {
    const submission = readClaimsJson(input.request);
    text = asX12(call, KIND_837P, submission.claims[0]!.payer.id, segments837p(submission, at), at, `${JSON.stringify(submission)}:${at.toISOString()}`);
  }
  let read: ReturnType<typeof read837p>;
  try {
    read = read837p(text);
  } catch (e) {
    // An interchange refused at the ISA/IEA level is answered with a rejecting TA1 as well.
    const ta1 = e instanceof X12Error ? rejectingTa1(text, e.issues, at) : null;
    if (e instanceof X12Error && ta1) throw new X12Error(e.issues, { ...e.details, ta1 });
    throw e;
  }
  const { envelope, submission } = read;
  const interchangeKey = `${envelope.senderQualifier}:${envelope.senderId}:${envelope.interchangeControlNumber}`;
  const acknowledgements = { acknowledgement999: write999(envelope, [], at), ta1: envelope.acknowledgmentRequested ? writeTa1(envelope, at) : null };
  // A resubmitted interchange (a retry) is answered with the claims stored the first time.
  const earlier = await findClaimsOfInterchange(call, interchangeKey);
  if (earlier.length > 0) {
    const replay = sameClaims(submission, earlier);
    if (!replay) {
      const message = `interchange control number ${envelope.interchangeControlNumber} from ${envelope.senderId} was already used for another interchange; send a new ISA13`;
      const ta1 = rejectingTa1(text, [], at, '025'); // 025: duplicate interchange control number
      throw new DomainError('CONFLICT', `The X12 interchange is a duplicate: ${message}.`, { fieldErrors: [{ field: 'ISA13', message }], details: { x12_errors: [{ segment: 'ISA', element: 'ISA13', message }], ...(ta1 ? { ta1 } : {}) } });
    }
    return { format, submission, claims: replay, ...acknowledgements, replayed: true };
  }
  const claims = await call.em.transactional(async (em) => {
    const tx = { ...call, em };
    const out: SubmittedClaim[] = [];
    for (const claim of submission.claims) {
      const standing = adjudicate(claim.subscriber.member_id, claim.total_charge, `${call.principal.partnerGpid}:${envelope.interchangeControlNumber}:${claim.patient_control_number}`);
      const claimId = await recordClaim(tx, claim, submission.billing_provider, standing, at, interchangeKey);
      out.push({ claimId, patientControlNumber: claim.patient_control_number, memberId: claim.subscriber.member_id, standing });
    }
    return out;
  });
  return { format, submission, claims, ...acknowledgements, replayed: false };
}

/** One of the caller's submitted claims, or NOT_FOUND (also for another partner's). */
export async function getClaim(call: FhirCall, claimId: string): Promise<StoredClaim> {
  const claim = await findClaim(call, claimId);
  if (!claim) throw new DomainError('NOT_FOUND', `Claim ${claimId} does not exist.`);
  return claim;
}
