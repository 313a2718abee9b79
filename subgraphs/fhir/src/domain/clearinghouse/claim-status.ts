import { d8, isoDate, JsonFields, nm1, payerFrom, providerFrom, subscriberFrom, subscriberNm1, type Payer, type Provider, type Subscriber } from './common.js';
import { STATUS_CATEGORY, STATUS_CODE, type ClaimStanding } from './payer-stub.js';
import { el, KIND_276, readInterchange, seg, SegmentChecks, x12DateTime, type Envelope, type Segment } from './x12.js';

/**
 * Health care claim status request and response: ASC X12 005010X212 276 → 277. One claim per
 * inquiry (loop 2200D), identified by the patient control number (REF*EJ) and/or the payer claim
 * control number (REF*1K).
 */

export interface ClaimStatusInquiry {
  reference: string;
  trace_number: string;
  payer: Payer;
  /** Loop 2100B, the information receiver (NM1*41, the submitter); its id is ETIN (46). */
  receiver: { name: string; id: string };
  provider: Provider;
  subscriber: Subscriber;
  patient_control_number?: string;
  payer_claim_number?: string;
  total_charge?: string;
  service_date?: string;
}

export interface ClaimStatusAnswer {
  reference: string;
  trace_number: string;
  payer: Payer;
  receiver: { name: string; id: string };
  provider: Provider;
  subscriber: Subscriber;
  patient_control_number?: string;
  /** The clearinghouse's claim id (a stored FHIR Claim) when the claim was submitted through it. */
  claim_id?: string;
  status: {
    category_code: string;
    category: string;
    status_code: string;
    status: string;
    effective_date: string;
    total_charge: string;
    paid_amount?: string;
    payer_claim_number?: string;
  };
}

export function read276(text: string): { envelope: Envelope; inquiry: ClaimStatusInquiry } {
  const { envelope, segments } = readInterchange(text, KIND_276);
  const checks = new SegmentChecks();
  checks.hierarchy(segments);
  const bht = segments[0];
  let reference = '';
  if (checks.require(bht?.tag === 'BHT', { segment: 'BHT', position: 2, message: 'BHT (beginning of hierarchical transaction) must follow ST' })) {
    checks.require(el(bht, 1) === '0010', { segment: 'BHT', element: 'BHT01', position: 2, message: 'hierarchical structure code must be 0010' });
    checks.require(el(bht, 2) === '13', { segment: 'BHT', element: 'BHT02', position: 2, message: 'transaction set purpose code must be 13 (request)' });
    reference = checks.element(bht!, 2, 3, 'submitter transaction reference (BHT03)');
  }
  let level = '';
  const levels = new Set<string>();
  let payer: Payer | undefined;
  let receiver: { name: string; id: string } | undefined;
  let provider: Provider | undefined;
  let subscriberNm: { segment: Segment; position: number } | undefined;
  let dmg: { segment: Segment; position: number } | undefined;
  let trace: string | undefined;
  const out: Partial<ClaimStatusInquiry> = {};
  segments.forEach((s, i) => {
    const position = i + 2;
    if (s.tag === 'HL') {
      level = el(s, 3);
      checks.require(['20', '21', '19', '22', '23'].includes(level), { segment: 'HL', element: 'HL03', position, message: `hierarchical level code must be 20, 21, 19, 22 or 23 (found ${level || 'nothing'})` });
      levels.add(level);
    } else if (s.tag === 'NM1' && level === '20') payer = payerFrom(checks, s, position);
    else if (s.tag === 'NM1' && level === '21') {
      checks.require(el(s, 1) === '41', { segment: 'NM1', element: 'NM101', position, message: 'the information receiver must be NM1*41 (submitter)' });
      receiver = { name: checks.element(s, position, 3, 'information receiver name (NM103)'), id: checks.element(s, position, 9, 'information receiver id (NM109)') };
    } else if (s.tag === 'NM1' && level === '19') provider = providerFrom(checks, s, position, 'service provider');
    else if (s.tag === 'DMG' && level === '22') dmg = { segment: s, position };
    else if (s.tag === 'NM1' && level === '22' && el(s, 1) === 'IL') subscriberNm = { segment: s, position };
    else if (s.tag === 'TRN' && (level === '22' || level === '23') && trace === undefined) {
      checks.require(el(s, 1) === '1', { segment: 'TRN', element: 'TRN01', position, message: 'trace type code must be 1' });
      trace = checks.element(s, position, 2, 'claim status tracking number (TRN02)');
    } else if (s.tag === 'REF' && el(s, 1) === '1K') out.payer_claim_number = checks.element(s, position, 2, 'payer claim control number (REF02)');
    else if (s.tag === 'REF' && el(s, 1) === 'EJ') out.patient_control_number = checks.element(s, position, 2, 'patient control number (REF02)');
    else if (s.tag === 'AMT' && el(s, 1) === 'T3') {
      const v = el(s, 2);
      if (checks.require(/^\d{1,8}(\.\d{1,2})?$/.test(v), { segment: 'AMT', element: 'AMT02', position, message: 'total claim charge must be an amount such as 150.00' })) out.total_charge = Number(v).toFixed(2);
    } else if (s.tag === 'DTP' && el(s, 1) === '472') {
      const v = el(s, 3).split('-')[0] ?? '';
      if (checks.require(/^\d{8}$/.test(v), { segment: 'DTP', element: 'DTP03', position, message: 'service date must be CCYYMMDD or CCYYMMDD-CCYYMMDD' })) out.service_date = isoDate(v);
    }
  });
  for (const [code, what] of [['20', 'information source (payer)'], ['21', 'information receiver'], ['19', 'service provider'], ['22', 'subscriber']] as const) {
    checks.require(levels.has(code), { segment: 'HL', element: 'HL03', message: `the ${what} level (HL03 = ${code}) is required` });
  }
  checks.require(payer !== undefined || !levels.has('20'), { segment: 'NM1', element: 'NM101', message: 'the payer name (NM1*PR in loop 2100A) is required' });
  checks.require(receiver !== undefined || !levels.has('21'), { segment: 'NM1', element: 'NM101', message: 'the information receiver name (NM1*41 in loop 2100B) is required' });
  checks.require(provider !== undefined || !levels.has('19'), { segment: 'NM1', element: 'NM101', message: 'the service provider name (NM1*1P in loop 2100C) is required' });
  checks.require(subscriberNm !== undefined || !levels.has('22'), { segment: 'NM1', element: 'NM101', message: 'the subscriber name (NM1*IL in loop 2100D) is required' });
  checks.require(trace !== undefined, { segment: 'TRN', message: 'the claim status tracking number (TRN in loop 2200D) is required' });
  checks.require(out.patient_control_number !== undefined || out.payer_claim_number !== undefined, { segment: 'REF', element: 'REF01', message: 'identify the claim with REF*EJ (patient control number) or REF*1K (payer claim control number) in loop 2200D' });
  const subscriber = subscriberNm ? subscriberFrom(checks, subscriberNm.segment, subscriberNm.position, dmg) : undefined;
  checks.done();
  return { envelope, inquiry: { reference, trace_number: trace!, payer: payer!, receiver: receiver!, provider: provider!, subscriber: subscriber!, ...out } };
}

export function readClaimStatusJson(body: unknown): ClaimStatusInquiry {
  const f = JsonFields.of(body);
  const payer = f.payer('payer');
  const receiver = { name: f.string('receiver.name', true), id: f.string('receiver.id', true, /^[A-Za-z0-9-]{2,80}$/, 'must be 2-80 letters, digits or -') };
  const provider = f.provider('provider');
  const subscriber = f.subscriber('subscriber');
  const pcn = f.string('patient_control_number', false, /^[A-Za-z0-9-]{1,38}$/, 'must be 1-38 letters, digits or -');
  const payerClaim = f.string('payer_claim_number', false, /^[A-Za-z0-9-]{1,50}$/, 'must be 1-50 letters, digits or -');
  if (pcn === undefined && payerClaim === undefined && !f.errors.some((e) => e.field === 'patient_control_number' || e.field === 'payer_claim_number')) {
    f.errors.push({ field: 'patient_control_number', message: 'patient_control_number or payer_claim_number is required' });
  }
  const charge = f.money('total_charge');
  const date = f.date('service_date');
  const trace = f.string('trace_number', false, /^[A-Za-z0-9-]{1,50}$/, 'must be 1-50 letters, digits or -');
  const reference = f.string('reference', false, /^[A-Za-z0-9-]{1,50}$/, 'must be 1-50 letters, digits or -');
  f.done();
  return {
    reference: reference ?? trace ?? (pcn ?? payerClaim)!,
    trace_number: trace ?? reference ?? (pcn ?? payerClaim)!,
    payer,
    receiver,
    provider,
    subscriber,
    ...(pcn ? { patient_control_number: pcn } : {}),
    ...(payerClaim ? { payer_claim_number: payerClaim } : {}),
    ...(charge ? { total_charge: charge } : {}),
    ...(date ? { service_date: date } : {}),
  };
}

function hierarchy(x: { payer: Payer; receiver: { name: string; id: string }; provider: Provider }): Segment[] {
  return [
    seg('HL', '1', '', '20', '1'),
    nm1('PR', x.payer, 'PI', x.payer.id),
    seg('HL', '2', '1', '21', '1'),
    nm1('41', { name: x.receiver.name }, '46', x.receiver.id),
    seg('HL', '3', '2', '19', '1'),
    nm1('1P', x.provider, 'XX', x.provider.npi),
    seg('HL', '4', '3', '22', '0'),
  ];
}

/** The segments of a 276 for an inquiry. */
export function segments276(q: ClaimStatusInquiry, at: Date): Segment[] {
  const { date, time } = x12DateTime(at);
  const s = q.subscriber;
  return [
    seg('BHT', '0010', '13', q.reference, date, time),
    ...hierarchy(q),
    ...(s.birth_date || s.gender ? [seg('DMG', s.birth_date ? 'D8' : '', s.birth_date ? d8(s.birth_date) : '', s.gender)] : []),
    subscriberNm1(s),
    seg('TRN', '1', q.trace_number),
    ...(q.payer_claim_number ? [seg('REF', '1K', q.payer_claim_number)] : []),
    ...(q.patient_control_number ? [seg('REF', 'EJ', q.patient_control_number)] : []),
    ...(q.total_charge ? [seg('AMT', 'T3', q.total_charge)] : []),
    ...(q.service_date ? [seg('DTP', '472', 'RD8', `${d8(q.service_date)}-${d8(q.service_date)}`)] : []),
  ];
}

/** The answer to an inquiry from a claim's standing. */
export function claimStatusAnswer(q: ClaimStatusInquiry, standing: ClaimStanding, at: Date, claimId?: string): ClaimStatusAnswer {
  return {
    reference: q.reference,
    trace_number: q.trace_number,
    payer: q.payer,
    receiver: q.receiver,
    provider: q.provider,
    subscriber: q.subscriber,
    ...(q.patient_control_number ? { patient_control_number: q.patient_control_number } : {}),
    ...(claimId ? { claim_id: claimId } : {}),
    status: {
      category_code: standing.category,
      category: STATUS_CATEGORY[standing.category] ?? standing.category,
      status_code: standing.status_code,
      status: STATUS_CODE[standing.status_code] ?? standing.status_code,
      effective_date: at.toISOString().slice(0, 10),
      total_charge: standing.charge,
      ...(standing.paid !== undefined ? { paid_amount: standing.paid } : {}),
      ...(standing.payer_claim_number ? { payer_claim_number: standing.payer_claim_number } : {}),
    },
  };
}

/** The segments of the 277 answering an inquiry. */
export function segments277(a: ClaimStatusAnswer, at: Date, serviceDate?: string): Segment[] {
  const { date, time } = x12DateTime(at);
  const st = a.status;
  return [
    seg('BHT', '0010', '08', a.reference, date, time, 'DG'),
    ...hierarchy(a),
    subscriberNm1(a.subscriber),
    seg('TRN', '2', a.trace_number),
    seg('STC', `${st.category_code}:${st.status_code}`, d8(st.effective_date), '', st.total_charge, st.paid_amount),
    ...(st.payer_claim_number ? [seg('REF', '1K', st.payer_claim_number)] : []),
    ...(a.patient_control_number ? [seg('REF', 'EJ', a.patient_control_number)] : []),
    ...(serviceDate ? [seg('DTP', '472', 'RD8', `${d8(serviceDate)}-${d8(serviceDate)}`)] : []),
  ];
}
