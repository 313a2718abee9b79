import { CLEARINGHOUSE_JSON_LIMITS } from '@svc/platform';
import { d8, JsonFields, nm1, payerFrom, providerFrom, subscriberFrom, subscriberNm1, type Payer, type Provider, type Subscriber } from './common.js';
import { el, KIND_270, readInterchange, seg, SegmentChecks, x12DateTime, type Envelope, type Segment } from './x12.js';

/**
 * Eligibility, benefit inquiry and response: ASC X12 005010X279A1 270 → 271. A request arrives as
 * X12 or JSON and becomes an {@link EligibilityInquiry}; the payer's answer is an
 * {@link EligibilityAnswer}, written back as a 271 or as JSON.
 */

/** A 270 as data. */
export interface EligibilityInquiry {
  /** BHT03: the submitter's reference for this inquiry. */
  reference: string;
  /** TRN02 of the subscriber loop: echoed in the 271. */
  trace_number: string;
  payer: Payer;
  provider: Provider;
  subscriber: Subscriber;
  service_type_codes: string[];
  /** DTP*291: the date of service asked about (default: today). */
  service_date?: string;
}

/** EB01 eligibility or benefit information codes used by the sandbox payer. */
export const EB_MEANING: Readonly<Record<string, string>> = {
  '1': 'Active Coverage',
  '6': 'Inactive',
  A: 'Co-Insurance',
  B: 'Co-Payment',
  C: 'Deductible',
  G: 'Out of Pocket (Stop Loss)',
};

/** EB06 time period qualifiers used. */
const TIME_PERIOD: Readonly<Record<string, string>> = { '23': 'calendar_year', '27': 'visit', '29': 'remaining' };
const TIME_PERIOD_CODE: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(TIME_PERIOD).map(([k, v]) => [v, k]));

/** One EB segment as data. */
export interface Benefit {
  eligibility_code: string;
  meaning: string;
  coverage_level: 'IND' | 'FAM';
  service_type_codes: string[];
  insurance_type?: string;
  plan_description?: string;
  time_period?: 'calendar_year' | 'visit' | 'remaining';
  amount?: string;
  percent?: string;
  in_network?: boolean;
}

/** AAA: a request the payer could not answer (code list 901: 72 invalid member id, 75 not found …). */
export interface RequestRejection {
  code: string;
  meaning: string;
  follow_up: string;
}

/** A 271 as data. */
export interface EligibilityAnswer {
  reference: string;
  trace_number: string;
  payer: Payer;
  provider: Provider;
  subscriber: Subscriber;
  coverage_status: 'active' | 'inactive' | 'not_found';
  plan?: { name: string; group_number: string; begin_date: string; end_date?: string };
  benefits: Benefit[];
  rejections: RequestRejection[];
}

/** Read a 270 interchange: envelope, then the loops 2000A (payer), 2000B (provider), 2000C (subscriber). */
export function read270(text: string): { envelope: Envelope; inquiry: EligibilityInquiry } {
  const { envelope, segments } = readInterchange(text, KIND_270);
  const checks = new SegmentChecks();
  checks.hierarchy(segments);
  const at = (i: number) => i + 2;
  const bht = segments[0];
  let reference = '';
  if (checks.require(bht?.tag === 'BHT', { segment: 'BHT', position: 2, message: 'BHT (beginning of hierarchical transaction) must follow ST' })) {
    checks.require(el(bht, 1) === '0022', { segment: 'BHT', element: 'BHT01', position: 2, message: 'hierarchical structure code must be 0022' });
    checks.require(el(bht, 2) === '13', { segment: 'BHT', element: 'BHT02', position: 2, message: 'transaction set purpose code must be 13 (request)' });
    reference = checks.element(bht!, 2, 3, 'submitter transaction reference (BHT03)');
  }
  let level = '';
  const found: { payer?: Payer; provider?: Provider; subscriber?: Subscriber; trace?: string; serviceTypes: string[]; serviceDate?: string; levels: Set<string> } = { serviceTypes: [], levels: new Set() };
  let subscriberNm: { segment: Segment; position: number } | undefined;
  let dmg: { segment: Segment; position: number } | undefined;
  segments.forEach((s, i) => {
    const position = at(i);
    if (s.tag === 'HL') {
      level = el(s, 3);
      checks.require(['20', '21', '22', '23'].includes(level), { segment: 'HL', element: 'HL03', position, message: `hierarchical level code must be 20, 21, 22 or 23 (found ${level || 'nothing'})` });
      found.levels.add(level);
      return;
    }
    if (s.tag === 'NM1' && level === '20') found.payer = payerFrom(checks, s, position);
    else if (s.tag === 'NM1' && level === '21') found.provider = providerFrom(checks, s, position, 'information receiver');
    else if (s.tag === 'NM1' && level === '22' && el(s, 1) === 'IL') subscriberNm = { segment: s, position };
    else if (s.tag === 'DMG' && level === '22') dmg = { segment: s, position };
    else if (s.tag === 'TRN' && (level === '22' || level === '23') && found.trace === undefined) {
      checks.require(el(s, 1) === '1', { segment: 'TRN', element: 'TRN01', position, message: 'trace type code must be 1 (current transaction trace number)' });
      found.trace = checks.element(s, position, 2, 'trace number (TRN02)');
    } else if (s.tag === 'DTP' && el(s, 1) === '291') {
      checks.require(el(s, 2) === 'D8', { segment: 'DTP', element: 'DTP02', position, message: 'date format qualifier must be D8' });
      const v = el(s, 3);
      if (checks.require(/^\d{8}$/.test(v), { segment: 'DTP', element: 'DTP03', position, message: 'plan date must be CCYYMMDD' })) found.serviceDate = `${v.slice(0, 4)}-${v.slice(4, 6)}-${v.slice(6, 8)}`;
    } else if (s.tag === 'EQ') {
      const codes = el(s, 1).split(envelope.delimiters.repetition).filter(Boolean);
      if (checks.require(codes.length > 0, { segment: 'EQ', element: 'EQ01', position, message: 'service type code is required' })) found.serviceTypes.push(...codes);
    }
  });
  for (const [code, what] of [['20', 'information source (payer)'], ['21', 'information receiver (provider)'], ['22', 'subscriber']] as const) {
    checks.require(found.levels.has(code), { segment: 'HL', element: 'HL03', message: `the ${what} level (HL03 = ${code}) is required` });
  }
  if (found.levels.has('20')) checks.require(found.payer !== undefined, { segment: 'NM1', element: 'NM101', message: 'the payer name (NM1*PR in loop 2100A) is required' });
  if (found.levels.has('21')) checks.require(found.provider !== undefined, { segment: 'NM1', element: 'NM101', message: 'the information receiver name (NM1*1P in loop 2100B) is required' });
  if (found.levels.has('22')) checks.require(subscriberNm !== undefined, { segment: 'NM1', element: 'NM101', message: 'the subscriber name (NM1*IL in loop 2100C) is required' });
  checks.require(found.serviceTypes.length > 0, { segment: 'EQ', message: 'at least one eligibility or benefit inquiry (EQ in loop 2110C) is required' });
  const subscriber = subscriberNm ? subscriberFrom(checks, subscriberNm.segment, subscriberNm.position, dmg) : undefined;
  checks.done();
  return {
    envelope,
    inquiry: {
      reference,
      trace_number: found.trace ?? reference,
      payer: found.payer!,
      provider: found.provider!,
      subscriber: subscriber!,
      service_type_codes: found.serviceTypes,
      ...(found.serviceDate ? { service_date: found.serviceDate } : {}),
    },
  };
}

/** Read the JSON form of an inquiry (see the facade's schema); problems come back as one 422 naming each field. */
export function readEligibilityJson(body: unknown): EligibilityInquiry {
  const f = JsonFields.of(body);
  const payer = f.payer('payer');
  const provider = f.provider('provider');
  const subscriber = f.subscriber('subscriber');
  const codes = f.array('service_type_codes', false, CLEARINGHOUSE_JSON_LIMITS.serviceTypeCodes) ?? ['30'];
  codes.forEach((c, i) => {
    if (typeof c !== 'string' || !/^[A-Z0-9]{1,2}$/.test(c)) f.errors.push({ field: `service_type_codes.${i}`, message: 'must be an X12 service type code such as 30' });
  });
  const serviceDate = f.date('service_date');
  const reference = f.string('reference', false, /^[A-Za-z0-9-]{1,50}$/, 'must be 1-50 letters, digits or -');
  const trace = f.string('trace_number', false, /^[A-Za-z0-9-]{1,50}$/, 'must be 1-50 letters, digits or -');
  f.done();
  return {
    reference: reference ?? trace ?? subscriber.member_id,
    trace_number: trace ?? reference ?? subscriber.member_id,
    payer,
    provider,
    subscriber,
    service_type_codes: codes as string[],
    ...(serviceDate ? { service_date: serviceDate } : {}),
  };
}

/** The segments of a 270 (between ST and SE) for an inquiry: what a submitter would send. */
export function segments270(inquiry: EligibilityInquiry, at: Date): Segment[] {
  const { date, time } = x12DateTime(at);
  const s = inquiry.subscriber;
  return [
    seg('BHT', '0022', '13', inquiry.reference, date, time),
    seg('HL', '1', '', '20', '1'),
    nm1('PR', inquiry.payer, 'PI', inquiry.payer.id),
    seg('HL', '2', '1', '21', '1'),
    nm1('1P', inquiry.provider, 'XX', inquiry.provider.npi),
    seg('HL', '3', '2', '22', '0'),
    seg('TRN', '1', inquiry.trace_number, '9877281234'),
    subscriberNm1(s),
    ...(s.birth_date || s.gender ? [seg('DMG', s.birth_date ? 'D8' : '', s.birth_date ? d8(s.birth_date) : '', s.gender)] : []),
    ...(inquiry.service_date ? [seg('DTP', '291', 'D8', d8(inquiry.service_date))] : []),
    seg('EQ', inquiry.service_type_codes.join('^')),
  ];
}

/** The segments of the 271 answering an inquiry. */
export function segments271(answer: EligibilityAnswer, at: Date): Segment[] {
  const { date, time } = x12DateTime(at);
  const s = answer.subscriber;
  const out: Segment[] = [
    seg('BHT', '0022', '11', answer.reference, date, time),
    seg('HL', '1', '', '20', '1'),
    nm1('PR', answer.payer, 'PI', answer.payer.id),
    seg('HL', '2', '1', '21', '1'),
    nm1('1P', answer.provider, 'XX', answer.provider.npi),
    seg('HL', '3', '2', '22', '0'),
    seg('TRN', '2', answer.trace_number, '9877281234'),
    subscriberNm1(s),
  ];
  for (const r of answer.rejections) out.push(seg('AAA', 'N', '', r.code, r.follow_up));
  if (answer.plan) out.push(seg('REF', '6P', answer.plan.group_number, answer.plan.name));
  if (s.birth_date || s.gender) out.push(seg('DMG', s.birth_date ? 'D8' : '', s.birth_date ? d8(s.birth_date) : '', s.gender));
  if (answer.plan) {
    out.push(seg('DTP', '346', 'D8', d8(answer.plan.begin_date)));
    if (answer.plan.end_date) out.push(seg('DTP', '347', 'D8', d8(answer.plan.end_date)));
  }
  for (const b of answer.benefits) {
    out.push(
      seg(
        'EB',
        b.eligibility_code,
        b.coverage_level,
        b.service_type_codes.join('^'),
        b.insurance_type,
        b.plan_description,
        b.time_period ? TIME_PERIOD_CODE[b.time_period] : '',
        b.amount,
        b.percent,
        '',
        '',
        '',
        b.in_network === undefined ? '' : b.in_network ? 'Y' : 'N',
      ),
    );
  }
  return out;
}

/** Read the EB segments of a 271 back into benefits (used to check what we write). */
export function benefitsOf271(segments: Segment[], repetition: string): Benefit[] {
  return segments
    .filter((s) => s.tag === 'EB')
    .map((s) => {
      const period = TIME_PERIOD[el(s, 6)];
      const network = el(s, 12);
      return {
        eligibility_code: el(s, 1),
        meaning: EB_MEANING[el(s, 1)] ?? el(s, 1),
        coverage_level: el(s, 2) as 'IND' | 'FAM',
        service_type_codes: el(s, 3).split(repetition).filter(Boolean),
        ...(el(s, 4) ? { insurance_type: el(s, 4) } : {}),
        ...(el(s, 5) ? { plan_description: el(s, 5) } : {}),
        ...(period ? { time_period: period as Benefit['time_period'] & string } : {}),
        ...(el(s, 7) ? { amount: el(s, 7) } : {}),
        ...(el(s, 8) ? { percent: el(s, 8) } : {}),
        ...(network ? { in_network: network === 'Y' } : {}),
      };
    });
}

