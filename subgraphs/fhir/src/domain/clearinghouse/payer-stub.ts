import { stableNumber } from './common.js';
import type { Benefit, EligibilityAnswer, EligibilityInquiry } from './eligibility.js';
import { EB_MEANING } from './eligibility.js';

/**
 * The sandbox payer: deterministic, realistic answers, chosen by the member id so that tests and
 * partners can ask for each case on purpose. The same request always gets the same answer.
 *
 * | member id starts with | eligibility (271) | claim status (277) | claim submission (837P) |
 * |---|---|---|---|
 * | `NF` | not found: AAA*N**75*C | A4 "not found" | rejected (A3/33: subscriber not found) |
 * | `IN` | inactive: EB*6, plan ended 2025-12-31 | F2 denied | accepted, then denied |
 * | `PD` | active | P1 pending, in process | accepted, pending |
 * | anything else | active: EB*1 plan GOLD PPO with deductible, out of pocket, co-insurance, co-payment | F1 finalized, paid | accepted, paid |
 *
 * A claim submitted through the clearinghouse is answered from what was stored for it, not from
 * this table (see claim-status.ts).
 */
export type MemberCase = 'not_found' | 'inactive' | 'pending' | 'active';

export function memberCase(memberId: string): MemberCase {
  const prefix = memberId.slice(0, 2).toUpperCase();
  if (prefix === 'NF') return 'not_found';
  if (prefix === 'IN') return 'inactive';
  if (prefix === 'PD') return 'pending';
  return 'active';
}

const PLAN_NAME = 'GOLD PPO';

function benefit(code: string, serviceTypes: string[], extra: Partial<Benefit> = {}): Benefit {
  return { eligibility_code: code, meaning: EB_MEANING[code] ?? code, coverage_level: 'IND', service_type_codes: serviceTypes, ...extra };
}

/** The 271 the sandbox payer gives for an inquiry. */
export function answerEligibility(inquiry: EligibilityInquiry): EligibilityAnswer {
  const base = { reference: inquiry.reference, trace_number: inquiry.trace_number, payer: inquiry.payer, provider: inquiry.provider, subscriber: inquiry.subscriber };
  const groupNumber = `GRP-${String(stableNumber(inquiry.subscriber.member_id) % 10000).padStart(4, '0')}`;
  switch (memberCase(inquiry.subscriber.member_id)) {
    case 'not_found':
      return { ...base, coverage_status: 'not_found', benefits: [], rejections: [{ code: '75', meaning: 'Subscriber/Insured Not Found', follow_up: 'C' }] };
    case 'inactive':
      return {
        ...base,
        coverage_status: 'inactive',
        plan: { name: PLAN_NAME, group_number: groupNumber, begin_date: '2025-01-01', end_date: '2025-12-31' },
        benefits: [benefit('6', inquiry.service_type_codes)],
        rejections: [],
      };
    default: {
      // A deterministic part of the deductible already met, in whole dollars.
      const met = (stableNumber(`${inquiry.subscriber.member_id}:deductible`) % 16) * 75;
      const year = (inquiry.service_date ?? new Date().toISOString().slice(0, 10)).slice(0, 4);
      return {
        ...base,
        coverage_status: 'active',
        plan: { name: PLAN_NAME, group_number: groupNumber, begin_date: `${year}-01-01` },
        benefits: [
          benefit('1', inquiry.service_type_codes, { insurance_type: 'PR', plan_description: PLAN_NAME }),
          benefit('C', ['30'], { time_period: 'calendar_year', amount: '1500.00', in_network: true }),
          benefit('C', ['30'], { time_period: 'remaining', amount: (1500 - met).toFixed(2), in_network: true }),
          benefit('G', ['30'], { time_period: 'calendar_year', amount: '4000.00', in_network: true }),
          benefit('A', ['30'], { percent: '0.2', in_network: true }),
          benefit('B', ['98'], { time_period: 'visit', amount: '25.00', in_network: true }),
          benefit('B', ['UC'], { time_period: 'visit', amount: '50.00', in_network: true }),
        ],
        rejections: [],
      };
    }
  }
}

/** STC01-1 claim status category codes (code source 507) the sandbox uses. */
export const STATUS_CATEGORY: Readonly<Record<string, string>> = {
  A1: 'Acknowledgement/Receipt - The claim has been received',
  A2: 'Acknowledgement/Acceptance into adjudication system',
  A3: 'Acknowledgement/Returned as unprocessable claim',
  A4: 'Acknowledgement/Not Found',
  P1: 'Pending/In Process',
  F1: 'Finalized/Payment - The claim has been paid',
  F2: 'Finalized/Denial - The claim has been denied',
};

/** STC01-2 claim status codes (code source 508) the sandbox uses. */
export const STATUS_CODE: Readonly<Record<string, string>> = {
  '1': 'For more detailed information, see remittance advice',
  '20': 'Accepted for processing',
  '33': 'Subscriber and subscriber id not found',
  '35': 'Claim/encounter not found',
  '65': 'Claim/line has been paid',
  '85': 'Claim was processed as adjustment to previous claim',
  '88': 'Entity not eligible for benefits for submitted dates of service',
};

/** How a claim stands at the sandbox payer. */
export interface ClaimStanding {
  category: string;
  status_code: string;
  /** STC04, total claim charge. */
  charge: string;
  /** STC05, paid amount (finalized claims). */
  paid?: string;
  /** Payer claim control number (REF*1K). */
  payer_claim_number?: string;
}

/** The payer claim control number the sandbox gives a claim: stable for the same submission. */
export function payerClaimNumber(seed: string): string {
  return `PCN${String(stableNumber(seed)).padStart(10, '0')}`;
}

/** The adjudication the sandbox payer makes of a submitted claim. */
export function adjudicate(memberId: string, charge: string, seed: string): ClaimStanding {
  const paid = (Number(charge) * 0.8).toFixed(2);
  switch (memberCase(memberId)) {
    case 'not_found':
      return { category: 'A3', status_code: '33', charge };
    case 'inactive':
      return { category: 'F2', status_code: '88', charge, paid: '0.00', payer_claim_number: payerClaimNumber(seed) };
    case 'pending':
      return { category: 'P1', status_code: '20', charge, payer_claim_number: payerClaimNumber(seed) };
    default:
      return { category: 'F1', status_code: '65', charge, paid, payer_claim_number: payerClaimNumber(seed) };
  }
}

/** The standing of a claim the clearinghouse never saw, as the sandbox payer reports it. */
export function standingOfUnknownClaim(memberId: string, charge: string, seed: string): ClaimStanding {
  if (memberCase(memberId) === 'not_found') return { category: 'A4', status_code: '35', charge };
  return adjudicate(memberId, charge, seed);
}
