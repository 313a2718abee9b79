import { resourceStore } from '../../entities/resource-store.js';
import { maySee } from '../access.js';
import { create, search, type FhirCall } from '../interactions.js';
import { parseStoredResource } from '../stored-content.js';
import type { FhirResource } from '../validation.js';
import type { Subscriber } from './common.js';
import type { EligibilityAnswer, EligibilityInquiry } from './eligibility.js';
import type { ProfessionalClaim } from './claims.js';
import { STATUS_CATEGORY, STATUS_CODE, type ClaimStanding } from './payer-stub.js';

/**
 * The clearinghouse's records as FHIR R4 resources in this subgraph's store, owned by the partner
 * that sent the transaction (so FHIR tenancy applies: a partner finds only its own):
 *
 * - an eligibility check: CoverageEligibilityRequest + CoverageEligibilityResponse;
 * - a submitted claim: Claim + ClaimResponse (its adjudication; the X12 claim status category and
 *   status codes in `ClaimResponse.extension`, see {@link CLAIM_STATUS_EXTENSION}).
 *
 * The clearinghouse writes them on the partner's behalf under its own velocity.clearinghouse.*
 * scopes: the partner needs no FHIR write scope, and reading them back over /fhir/R4 still takes
 * the usual FHIR read scopes.
 */

/** Identifier systems of our own (X12 identifiers have no canonical FHIR system). */
export const MEMBER_ID_SYSTEM = 'urn:svc:x12:member-id';
export const PATIENT_CONTROL_NUMBER_SYSTEM = 'urn:svc:x12:patient-control-number';
export const PAYER_CLAIM_NUMBER_SYSTEM = 'urn:svc:x12:payer-claim-control-number';
export const PAYER_ID_SYSTEM = 'urn:svc:x12:payer-id';
/** The interchange a claim came in: `<ISA05>:<ISA06>:<ISA13>`, for recognising a resubmitted interchange. */
export const INTERCHANGE_SYSTEM = 'urn:svc:x12:interchange';
const NPI_SYSTEM = 'http://hl7.org/fhir/sid/us-npi';
const ICD10_SYSTEM = 'http://hl7.org/fhir/sid/icd-10-cm';
const CPT_SYSTEM = 'http://www.ama-assn.org/go/cpt';
/** Extension carrying the X12 claim status (STC01-1 category, STC01-2 status). */
export const CLAIM_STATUS_EXTENSION = 'urn:svc:x12:claim-status';
const CATEGORY_SYSTEM = 'https://x12.org/codes/claim-status-category-codes';
const STATUS_SYSTEM = 'https://x12.org/codes/claim-status-codes';

/** The clearinghouse writes and reads its own records with these FHIR scopes, on top of the caller's. */
function asClearinghouse(call: FhirCall): FhirCall {
  return { ...call, principal: { ...call.principal, scopes: [...call.principal.scopes, 'cms.fhir.r4.read', 'cms.fhir.rest.write'] } };
}

function patientRef(s: Subscriber): Record<string, unknown> {
  return { identifier: { system: MEMBER_ID_SYSTEM, value: s.member_id }, display: [s.last_name, s.first_name].filter(Boolean).join(', ') };
}

/** `{ [key]: items }` when there are items: R4 JSON never holds an empty array (json.html). */
function nonEmpty<T>(key: string, items: T[]): Record<string, T[]> {
  return items.length > 0 ? { [key]: items } : {};
}

function money(amount: string): Record<string, unknown> {
  return { value: Number(amount), currency: 'USD' };
}

async function createdId(call: FhirCall, type: string, resource: FhirResource): Promise<string> {
  const outcome = await create(asClearinghouse(call), type, resource);
  return outcome.resource!.id!;
}

/** Store an eligibility check; answers the ids of the request and response resources. */
export async function recordEligibility(call: FhirCall, inquiry: EligibilityInquiry, answer: EligibilityAnswer, at: Date): Promise<{ requestId: string; responseId: string }> {
  const created = at.toISOString();
  const insurer = { identifier: { system: PAYER_ID_SYSTEM, value: inquiry.payer.id }, display: inquiry.payer.name };
  const requestId = await createdId(call, 'CoverageEligibilityRequest', {
    resourceType: 'CoverageEligibilityRequest',
    identifier: [{ system: 'urn:svc:x12:trace-number', value: inquiry.trace_number }],
    status: 'active',
    purpose: ['benefits'],
    patient: patientRef(inquiry.subscriber),
    ...(inquiry.service_date ? { servicedDate: inquiry.service_date } : {}),
    created,
    provider: { identifier: { system: NPI_SYSTEM, value: inquiry.provider.npi }, display: inquiry.provider.name },
    insurer,
    ...nonEmpty('item', inquiry.service_type_codes.map((code) => ({ category: { coding: [{ system: 'https://x12.org/codes/service-type-codes', code }] } }))),
  });
  const responseId = await createdId(call, 'CoverageEligibilityResponse', {
    resourceType: 'CoverageEligibilityResponse',
    status: 'active',
    purpose: ['benefits'],
    patient: patientRef(inquiry.subscriber),
    created,
    request: { reference: `CoverageEligibilityRequest/${requestId}` },
    outcome: answer.coverage_status === 'not_found' ? 'error' : 'complete',
    disposition: answer.coverage_status === 'active' ? 'Active coverage' : answer.coverage_status === 'inactive' ? 'Coverage inactive' : 'Subscriber not found',
    insurer,
    ...(answer.plan
      ? {
          insurance: [
            {
              coverage: { display: `${answer.plan.name} (group ${answer.plan.group_number})` },
              inforce: answer.coverage_status === 'active',
              benefitPeriod: { start: answer.plan.begin_date, ...(answer.plan.end_date ? { end: answer.plan.end_date } : {}) },
              ...nonEmpty('item', answer.benefits
                .filter((b) => b.amount !== undefined || b.percent !== undefined)
                .map((b) => ({
                  ...(b.service_type_codes.length > 0 ? { category: { coding: b.service_type_codes.map((code) => ({ system: 'https://x12.org/codes/service-type-codes', code })) } } : {}),
                  ...(b.in_network === undefined ? {} : { network: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/benefit-network', code: b.in_network ? 'in' : 'out' }] } }),
                  unit: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/benefit-unit', code: b.coverage_level === 'FAM' ? 'family' : 'individual' }] },
                  ...(b.time_period === 'calendar_year' || b.time_period === 'remaining' ? { term: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/benefit-term', code: 'annual' }] } } : {}),
                  benefit: [
                    {
                      type: { coding: [{ system: 'https://x12.org/codes/eligibility-benefit-information', code: b.eligibility_code, display: b.meaning }] },
                      ...(b.amount !== undefined ? (b.time_period === 'remaining' ? { usedMoney: money(b.amount) } : { allowedMoney: money(b.amount) }) : { allowedString: b.percent! }),
                    },
                  ],
                }))),
            },
          ],
        }
      : {}),
    ...(answer.rejections.length > 0 ? { error: answer.rejections.map((r) => ({ code: { coding: [{ system: 'https://x12.org/codes/reject-reason-codes', code: r.code, display: r.meaning }] } })) } : {}),
  });
  return { requestId, responseId };
}

function claimStatusExtension(standing: ClaimStanding): Record<string, unknown> {
  return {
    url: CLAIM_STATUS_EXTENSION,
    valueCodeableConcept: {
      coding: [
        { system: CATEGORY_SYSTEM, code: standing.category, display: STATUS_CATEGORY[standing.category] },
        { system: STATUS_SYSTEM, code: standing.status_code, display: STATUS_CODE[standing.status_code] },
      ],
    },
  };
}

/** Store a submitted claim and the payer's standing of it; answers the Claim's id (the claim id partners use). */
export async function recordClaim(call: FhirCall, claim: ProfessionalClaim, billing: { npi: string; name: string }, standing: ClaimStanding, at: Date, interchangeKey: string): Promise<string> {
  const created = at.toISOString();
  const insurer = { identifier: { system: PAYER_ID_SYSTEM, value: claim.payer.id }, display: claim.payer.name };
  const claimId = await createdId(call, 'Claim', {
    resourceType: 'Claim',
    identifier: [
      { system: PATIENT_CONTROL_NUMBER_SYSTEM, value: claim.patient_control_number },
      { system: INTERCHANGE_SYSTEM, value: interchangeKey },
    ],
    status: 'active',
    type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'professional' }] },
    use: 'claim',
    patient: patientRef(claim.subscriber),
    created,
    insurer,
    provider: { identifier: { system: NPI_SYSTEM, value: billing.npi }, display: billing.name },
    priority: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/processpriority', code: 'normal' }] },
    ...nonEmpty('diagnosis', claim.diagnosis_codes.map((code, i) => ({ sequence: i + 1, diagnosisCodeableConcept: { coding: [{ system: ICD10_SYSTEM, code }] } }))),
    insurance: [{ sequence: 1, focal: true, coverage: { identifier: { system: MEMBER_ID_SYSTEM, value: claim.subscriber.member_id }, display: claim.payer.name } }],
    item: claim.service_lines.map((l, i) => ({
      sequence: i + 1,
      productOrService: { coding: [{ system: CPT_SYSTEM, code: l.procedure_code }] },
      ...(l.modifiers?.length ? { modifier: l.modifiers.map((code) => ({ coding: [{ system: CPT_SYSTEM, code }] })) } : {}),
      servicedDate: l.service_date,
      locationCodeableConcept: { coding: [{ system: 'https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set', code: claim.place_of_service }] },
      quantity: { value: Number(l.units) },
      net: money(l.charge),
    })),
    total: money(claim.total_charge),
  });
  await createdId(call, 'ClaimResponse', {
    resourceType: 'ClaimResponse',
    extension: [claimStatusExtension(standing)],
    ...(standing.payer_claim_number ? { identifier: [{ system: PAYER_CLAIM_NUMBER_SYSTEM, value: standing.payer_claim_number }] } : {}),
    status: 'active',
    type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'professional' }] },
    use: 'claim',
    patient: patientRef(claim.subscriber),
    created,
    insurer,
    request: { reference: `Claim/${claimId}` },
    outcome: standing.category.startsWith('F') ? 'complete' : standing.category === 'A3' ? 'error' : 'queued',
    disposition: `${standing.category}:${standing.status_code} ${STATUS_CATEGORY[standing.category] ?? ''}`.trim(),
    total: [
      { category: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/adjudication', code: 'submitted' }] }, amount: money(standing.charge) },
      ...(standing.paid !== undefined ? [{ category: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/adjudication', code: 'benefit' }] }, amount: money(standing.paid) }] : []),
    ],
  });
  return claimId;
}

/** A stored claim as the clearinghouse reports it. */
export interface StoredClaim {
  claimId: string;
  patientControlNumber: string;
  memberId: string;
  serviceDate?: string;
  standing: ClaimStanding;
  submittedAt: string;
}

function standingOf(claim: FhirResource, response: FhirResource | undefined): ClaimStanding {
  const total = (claim as { total?: { value: number } }).total?.value ?? 0;
  const ext = (response as { extension?: { url: string; valueCodeableConcept?: { coding?: { system: string; code: string }[] } }[] } | undefined)?.extension?.find((e) => e.url === CLAIM_STATUS_EXTENSION);
  const codings = ext?.valueCodeableConcept?.coding ?? [];
  const paid = (response as { total?: { category: { coding: { code: string }[] }; amount: { value: number } }[] } | undefined)?.total?.find((t) => t.category.coding[0]?.code === 'benefit');
  const pcn = (response as { identifier?: { system: string; value: string }[] } | undefined)?.identifier?.find((i) => i.system === PAYER_CLAIM_NUMBER_SYSTEM)?.value;
  return {
    category: codings.find((c) => c.system === CATEGORY_SYSTEM)?.code ?? 'A1',
    status_code: codings.find((c) => c.system === STATUS_SYSTEM)?.code ?? '20',
    charge: total.toFixed(2),
    ...(paid ? { paid: paid.amount.value.toFixed(2) } : {}),
    ...(pcn ? { payer_claim_number: pcn } : {}),
  };
}

async function withResponse(call: FhirCall, claim: FhirResource): Promise<StoredClaim> {
  const responses = await search(asClearinghouse(call), 'ClaimResponse', { request: [`Claim/${claim.id}`], _sort: ['-_lastUpdated'], _count: ['20'] }, false);
  return storedClaim(claim, (await firstOwn(call, 'ClaimResponse', responses.resource)) ?? undefined);
}

function storedClaim(claim: FhirResource, response: FhirResource | undefined): StoredClaim {
  const c = claim as unknown as { id: string; identifier?: { system: string; value: string }[]; patient: { identifier: { value: string } }; item?: { servicedDate?: string }[]; created: string };
  const serviceDate = c.item?.[0]?.servicedDate;
  return {
    claimId: c.id,
    patientControlNumber: c.identifier?.find((i) => i.system === PATIENT_CONTROL_NUMBER_SYSTEM)?.value ?? '',
    memberId: c.patient.identifier.value,
    ...(serviceDate ? { serviceDate } : {}),
    standing: standingOf(claim, response),
    submittedAt: c.created,
  };
}

/**
 * A resource of the caller's own partner (operators: any), or null. The clearinghouse answers only
 * from the partner's own records, even where FHIR sharing rules would show another's.
 */
async function own(call: FhirCall, type: string, id: string): Promise<FhirResource | null> {
  if (!/^[A-Za-z0-9\-.]{1,64}$/.test(id)) return null;
  const stored = await resourceStore.current(call.em, type, id);
  if (!stored || stored.deleted || !stored.content || !maySee(call.principal, stored.partnerGpid)) return null;
  return parseStoredResource(stored.content);
}

/** One of the caller's claims by id; null when missing or another partner's (indistinguishable). */
export async function findClaim(call: FhirCall, claimId: string): Promise<StoredClaim | null> {
  const claim = await own(call, 'Claim', claimId);
  return claim ? withResponse(call, claim) : null;
}

async function firstOwn(call: FhirCall, type: string, bundle: FhirResource | null): Promise<FhirResource | null> {
  for (const entry of (bundle as { entry?: { resource: FhirResource }[] } | null)?.entry ?? []) {
    const mine = await own(call, type, entry.resource.id!);
    if (mine) return mine;
  }
  return null;
}

/** The caller's most recent claim with this patient control number (or payer claim number), if any. */
export async function findClaimByNumber(call: FhirCall, by: { patientControlNumber?: string; payerClaimNumber?: string }): Promise<StoredClaim | null> {
  if (by.patientControlNumber) {
    const found = await search(asClearinghouse(call), 'Claim', { identifier: [`${PATIENT_CONTROL_NUMBER_SYSTEM}|${by.patientControlNumber}`], _sort: ['-_lastUpdated'], _count: ['20'] }, false);
    const claim = await firstOwn(call, 'Claim', found.resource);
    if (claim) return withResponse(call, claim);
  }
  if (by.payerClaimNumber) {
    const found = await search(asClearinghouse(call), 'ClaimResponse', { identifier: [`${PAYER_CLAIM_NUMBER_SYSTEM}|${by.payerClaimNumber}`], _count: ['20'] }, false);
    const response = (await firstOwn(call, 'ClaimResponse', found.resource)) as { request?: { reference?: string } } | null;
    const ref = response?.request?.reference?.split('/')[1];
    if (ref) return findClaim(call, ref);
  }
  return null;
}

/** The caller's claims stored from one interchange (see {@link INTERCHANGE_SYSTEM}). */
export async function findClaimsOfInterchange(call: FhirCall, interchangeKey: string): Promise<StoredClaim[]> {
  const out: StoredClaim[] = [];
  // An 837P may carry 5,000 claims: pages of 500 with their ClaimResponses (_revinclude, at most
  // 1000 a page), following the next links; one search a page rather than one a claim.
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const query: Record<string, string[]> = { identifier: [`${INTERCHANGE_SYSTEM}|${interchangeKey}`], _count: ['500'], _revinclude: ['ClaimResponse:request'], ...(cursor === null ? {} : { _cursor: [cursor] }) };
    type Page = { entry?: { resource: FhirResource; search?: { mode?: string } }[]; link?: { relation: string; url: string }[] } | null;
    const page = (await search(asClearinghouse(call), 'Claim', query, false)).resource as Page;
    const entries = page?.entry ?? [];
    const responses = new Map<string, FhirResource[]>();
    for (const { resource, search: how } of entries) {
      const claimId = (resource as { request?: { reference?: string } }).request?.reference?.split('/')[1];
      if (how?.mode !== 'include' || resource.resourceType !== 'ClaimResponse' || !claimId) continue;
      responses.set(claimId, [...(responses.get(claimId) ?? []), resource]);
    }
    for (const { resource, search: how } of entries) {
      if (how?.mode === 'include') continue;
      const mine = await own(call, 'Claim', resource.id!);
      if (!mine) continue;
      // The newest of the caller's own responses, as withResponse finds it; none here: look it up.
      const newest = [...(responses.get(mine.id!) ?? [])].sort((a, b) => String(b.meta?.lastUpdated ?? '').localeCompare(String(a.meta?.lastUpdated ?? '')));
      let response: FhirResource | undefined;
      for (const candidate of newest) {
        response = (await own(call, 'ClaimResponse', candidate.id!)) ?? undefined;
        if (response) break;
      }
      out.push(response ? storedClaim(mine, response) : await withResponse(call, mine));
    }
    const next = page?.link?.find((l) => l.relation === 'next')?.url;
    cursor = next ? new URL(next).searchParams.get('_cursor') : null;
  }
  return out;
}
