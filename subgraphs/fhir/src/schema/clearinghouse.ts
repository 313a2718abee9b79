import type { SubgraphBuilder, SubgraphContext, SubgraphServices } from '@svc/platform';
import type { FhirCall } from '../domain/interactions.js';
import type { ClearinghouseCall, FhirOffload } from '../jobs.js';
import type { Benefit } from '../domain/clearinghouse/eligibility.js';
import type { ClaimStanding } from '../domain/clearinghouse/payer-stub.js';
import { STATUS_CATEGORY, STATUS_CODE } from '../domain/clearinghouse/payer-stub.js';
import { getClaim, type ClaimStatusResult, type ClaimSubmissionResult, type ClearinghouseInput, type EligibilityResult, type SubmittedClaim } from '../domain/clearinghouse/service.js';
import type { StoredClaim } from '../domain/clearinghouse/records.js';
import { claimStatusJson, eligibilityJson, submissionJson, submittedClaimJson } from '../domain/clearinghouse/present.js';

/** The clearinghouse scopes; `velocity.clearinghouse.*` covers all three. */
export const CLEARINGHOUSE_SCOPES = {
  eligibility: 'velocity.clearinghouse.eligibility',
  claimStatus: 'velocity.clearinghouse.claim-status',
  claims: 'velocity.clearinghouse.claims',
} as const;

/**
 * Clearinghouse transactions (ASC X12 005010) against the sandbox payer: eligibility (270/271),
 * claim status (276/277) and professional claim submission (837P, acknowledged by a 999 and, when
 * asked, a TA1). The REST routes under /velocity/v1/clearinghouse run these fields.
 */
export function defineClearinghouse(builder: SubgraphBuilder, services: SubgraphServices, offload: FhirOffload) {
  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const call = (ctx: SubgraphContext): FhirCall => ({ em: ctx.em, principal: ctx.principal, requestId: ctx.requestId, source: null, fhirBase });
  // Parsing and storing an interchange runs on the subgraph's job thread (jobs.ts).
  const clearinghouseCall = (ctx: SubgraphContext, input: ClearinghouseInput): ClearinghouseCall => ({ principal: ctx.principal, requestId: ctx.requestId, input, at: new Date().toISOString() });

  const BenefitRef = builder.objectRef<Benefit>('ClearinghouseBenefit').implement({
    description: 'One EB segment of a 271: a benefit or coverage fact of the plan.',
    fields: (t) => ({
      code: t.string({ description: 'EB01 eligibility or benefit information code (1 active, 6 inactive, A co-insurance, B co-payment, C deductible, G out of pocket).', resolve: (b) => b.eligibility_code }),
      meaning: t.exposeString('meaning'),
      coverageLevel: t.string({ description: 'EB02: IND or FAM.', resolve: (b) => b.coverage_level }),
      serviceTypeCodes: t.stringList({ description: 'EB03 service type codes (30 health benefit plan coverage, 98 office visit …).', resolve: (b) => b.service_type_codes }),
      timePeriod: t.string({ nullable: true, description: 'EB06: calendar_year, visit or remaining.', resolve: (b) => b.time_period ?? null }),
      amount: t.string({ nullable: true, description: 'EB07 monetary amount, as written (e.g. 1500.00).', resolve: (b) => b.amount ?? null }),
      percent: t.string({ nullable: true, description: 'EB08 percent as a decimal fraction (0.2 = 20 %).', resolve: (b) => b.percent ?? null }),
      inNetwork: t.boolean({ nullable: true, description: 'EB12 in-plan network indicator.', resolve: (b) => b.in_network ?? null }),
    }),
  });

  const Eligibility = builder.objectRef<EligibilityResult>('ClearinghouseEligibility').implement({
    description: 'The payer’s 271 answer to an eligibility inquiry, stored as a CoverageEligibilityRequest and CoverageEligibilityResponse.',
    fields: (t) => ({
      coverageStatus: t.string({ description: 'active, inactive or not_found.', resolve: (r) => r.answer.coverage_status }),
      memberId: t.string({ resolve: (r) => r.answer.subscriber.member_id }),
      planName: t.string({ nullable: true, resolve: (r) => r.answer.plan?.name ?? null }),
      benefits: t.field({ type: [BenefitRef], resolve: (r) => r.answer.benefits }),
      eligibilityRequestId: t.id({ description: 'The stored CoverageEligibilityRequest.', resolve: (r) => r.requestId }),
      eligibilityResponseId: t.id({ description: 'The stored CoverageEligibilityResponse.', resolve: (r) => r.responseId }),
      x12: t.string({ description: 'The 271 interchange (ASC X12 005010X279A1).', resolve: (r) => r.x12 }),
      document: t.field({ type: 'JSONObject', description: 'The whole answer in its JSON form (the REST body).', resolve: (r) => eligibilityJson(r) }),
    }),
  });

  const Standing = builder.objectRef<ClaimStanding>('ClearinghouseClaimStanding').implement({
    description: 'Where a claim stands at the payer, in X12 claim status terms (STC).',
    fields: (t) => ({
      categoryCode: t.string({ description: 'STC01-1 claim status category code (A1, A2, A3, A4, P1, F1, F2 …).', resolve: (s) => s.category }),
      category: t.string({ resolve: (s) => STATUS_CATEGORY[s.category] ?? s.category }),
      statusCode: t.string({ description: 'STC01-2 claim status code.', resolve: (s) => s.status_code }),
      status: t.string({ resolve: (s) => STATUS_CODE[s.status_code] ?? s.status_code }),
      totalCharge: t.string({ resolve: (s) => s.charge }),
      paidAmount: t.string({ nullable: true, resolve: (s) => s.paid ?? null }),
      payerClaimNumber: t.string({ nullable: true, description: 'The payer claim control number (REF*1K).', resolve: (s) => s.payer_claim_number ?? null }),
    }),
  });

  const Claim = builder.objectRef<SubmittedClaim | StoredClaim>('ClearinghouseClaim').implement({
    description: 'A professional claim submitted through the clearinghouse, stored as a FHIR Claim with its ClaimResponse.',
    fields: (t) => ({
      claimId: t.id({ description: 'The stored Claim’s id: use it with clearinghouseClaim and GET …/claims/{id}.', resolve: (c) => c.claimId }),
      patientControlNumber: t.string({ description: 'CLM01.', resolve: (c) => c.patientControlNumber }),
      memberId: t.string({ resolve: (c) => c.memberId }),
      status: t.field({ type: Standing, resolve: (c) => c.standing }),
      document: t.field({ type: 'JSONObject', description: 'The claim in its JSON form (the REST body).', resolve: (c) => submittedClaimJson(c) }),
    }),
  });

  const Status = builder.objectRef<ClaimStatusResult>('ClearinghouseClaimStatus').implement({
    description: 'The payer’s 277 answer to a claim status inquiry.',
    fields: (t) => ({
      claimId: t.id({ nullable: true, description: 'Set when the claim was submitted through the clearinghouse by the caller.', resolve: (r) => r.answer.claim_id ?? null }),
      status: t.field({
        type: Standing,
        resolve: (r) => ({
          category: r.answer.status.category_code,
          status_code: r.answer.status.status_code,
          charge: r.answer.status.total_charge,
          ...(r.answer.status.paid_amount !== undefined ? { paid: r.answer.status.paid_amount } : {}),
          ...(r.answer.status.payer_claim_number ? { payer_claim_number: r.answer.status.payer_claim_number } : {}),
        }),
      }),
      x12: t.string({ description: 'The 277 interchange (ASC X12 005010X212).', resolve: (r) => r.x12 }),
      document: t.field({ type: 'JSONObject', description: 'The whole answer in its JSON form (the REST body).', resolve: (r) => claimStatusJson(r) }),
    }),
  });

  const Submission = builder.objectRef<ClaimSubmissionResult>('ClearinghouseClaimSubmission').implement({
    description: 'An accepted 837P: its claims as stored and the acknowledgements.',
    fields: (t) => ({
      claims: t.field({ type: [Claim], resolve: (r) => r.claims }),
      acknowledgement999: t.string({ description: 'The 999 implementation acknowledgment (ASC X12 005010X231A1).', resolve: (r) => r.acknowledgement999 }),
      ta1: t.string({ nullable: true, description: 'The TA1 interchange acknowledgment, when the interchange asked for one (ISA14 = 1).', resolve: (r) => r.ta1 }),
      replayed: t.boolean({ description: 'True when the same interchange (ISA05/ISA06/ISA13) was submitted before: nothing new was stored, and the claims are those stored then.', resolve: (r) => r.replayed }),
      document: t.field({ type: 'JSONObject', description: 'The whole answer in its JSON form (the REST body).', resolve: (r) => submissionJson(r) }),
    }),
  });


  builder.queryFields((t) => ({
    clearinghouseClaimStatus: t.field({
      type: Status,
      description: 'Claim status inquiry (276 → 277). Send exactly one of `x12` (a 276 interchange) and `request` (its JSON form). Needs velocity.clearinghouse.claim-status.',
      authScopes: { scope: CLEARINGHOUSE_SCOPES.claimStatus },
      args: { x12: t.arg.string({ description: 'A 276 interchange (ASC X12 005010X212).' }), request: t.arg({ type: 'JSONObject', description: 'The inquiry in JSON (see the REST route’s schema).' }) },
      resolve: async (_r, a, ctx) => {
        const result = await offload('claim-status', clearinghouseCall(ctx, { x12: a.x12 ?? null, request: a.request ?? null }));
        services.publishCommitted();
        return result;
      },
    }),
    clearinghouseClaim: t.field({
      type: Claim,
      description: "One of the caller's submitted claims with its current status (another partner's answers NOT_FOUND, like a missing one). Needs velocity.clearinghouse.claims or velocity.clearinghouse.claim-status.",
      authScopes: { anyScope: [CLEARINGHOUSE_SCOPES.claims, CLEARINGHOUSE_SCOPES.claimStatus] },
      args: { id: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => getClaim(call(ctx), String(a.id)),
    }),
  }));

  builder.mutationFields((t) => ({
    clearinghouseEligibility: t.field({
      type: Eligibility,
      description: 'Eligibility and benefit inquiry (270 → 271) to the sandbox payer. Send exactly one of `x12` (a 270 interchange) and `request` (its JSON form). Needs velocity.clearinghouse.eligibility.',
      authScopes: { scope: CLEARINGHOUSE_SCOPES.eligibility },
      args: { x12: t.arg.string({ description: 'A 270 interchange (ASC X12 005010X279A1).' }), request: t.arg({ type: 'JSONObject', description: 'The inquiry in JSON (see the REST route’s schema).' }) },
      resolve: async (_r, a, ctx) => {
        const result = await offload('eligibility', clearinghouseCall(ctx, { x12: a.x12 ?? null, request: a.request ?? null }));
        services.publishCommitted();
        return result;
      },
    }),
    clearinghouseSubmitClaims: t.field({
      type: Submission,
      description: 'Professional claim submission (837P) to the sandbox payer, acknowledged with a 999 (and a TA1 when ISA14 = 1). Send exactly one of `x12` and `request`. Resubmitting the same interchange returns the claims stored the first time (`replayed`); reusing its control number for other claims is a CONFLICT. Needs velocity.clearinghouse.claims.',
      authScopes: { scope: CLEARINGHOUSE_SCOPES.claims },
      args: { x12: t.arg.string({ description: 'An 837P interchange (ASC X12 005010X222A1).' }), request: t.arg({ type: 'JSONObject', description: 'The claims in JSON (see the REST route’s schema).' }) },
      resolve: async (_r, a, ctx) => {
        const result = await offload('submit-claims', clearinghouseCall(ctx, { x12: a.x12 ?? null, request: a.request ?? null }));
        services.publishCommitted();
        return result;
      },
    }),
  }));
}
