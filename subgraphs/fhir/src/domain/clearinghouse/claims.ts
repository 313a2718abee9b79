import { d8, isoDate, JsonFields, nm1, payerFrom, providerFrom, subscriberFrom, subscriberNm1, type Payer, type Provider, type Subscriber } from './common.js';
import { CLEARINGHOUSE_JSON_LIMITS } from '@svc/platform';
import { component, el, KIND_837P, KIND_999, MAX_REPORTED_ISSUES, readInterchange, seg, SegmentChecks, writeInterchange, X12Error, x12DateTime, replyParties, type Envelope, type Segment, type X12Issue } from './x12.js';

/**
 * Professional claims: ASC X12 005010X222A1 837P, acknowledged with a 999 (005010X231A1) and, when
 * the interchange asks for it (ISA14 = 1), a TA1. One interchange may carry several claims (CLM
 * loops) for one or more subscribers (HL 22); the patient must be the subscriber (no HL 23 loop).
 */

export interface ServiceLine {
  /** SV101: HC:<CPT/HCPCS code>[:modifier…]. */
  procedure_code: string;
  modifiers?: string[];
  charge: string;
  units: string;
  service_date: string;
}

export interface ProfessionalClaim {
  /** CLM01: the provider's patient control number. */
  patient_control_number: string;
  /** CLM02. */
  total_charge: string;
  /** CLM05-1: place of service code (11 office …). */
  place_of_service: string;
  /** CLM05-3: claim frequency (1 original, 7 replacement, 8 void). */
  frequency_code: string;
  /** HI: ICD-10-CM codes, principal first (ABK, then ABF). */
  diagnosis_codes: string[];
  subscriber: Subscriber;
  payer: Payer;
  service_lines: ServiceLine[];
}

export interface ClaimSubmission {
  reference: string;
  submitter: { name: string; id: string };
  receiver: { name: string; id: string };
  billing_provider: Provider & { tax_id: string };
  claims: ProfessionalClaim[];
}

const AMOUNT = /^\d{1,8}(\.\d{1,2})?$/;
const ICD10 = /^[A-TV-Z][0-9][0-9A-Z](\.?[0-9A-Z]{1,4})?$/;

const cents = (amount: string): number => Math.round(Number(amount) * 100);

/** Read an 837P: the envelope, the submitter/receiver, the billing provider, each subscriber and its claims. */
export function read837p(text: string): { envelope: Envelope; submission: ClaimSubmission } {
  const { envelope, segments } = readInterchange(text, KIND_837P);
  const checks = new SegmentChecks();
  checks.hierarchy(segments);
  const bht = segments[0];
  let reference = '';
  if (checks.require(bht?.tag === 'BHT', { segment: 'BHT', position: 2, message: 'BHT (beginning of hierarchical transaction) must follow ST' })) {
    checks.require(el(bht, 1) === '0019', { segment: 'BHT', element: 'BHT01', position: 2, message: 'hierarchical structure code must be 0019' });
    checks.require(['00', '18'].includes(el(bht, 2)), { segment: 'BHT', element: 'BHT02', position: 2, message: 'transaction set purpose code must be 00 (original) or 18 (reissue)' });
    reference = checks.element(bht!, 2, 3, 'originator application transaction id (BHT03)');
    checks.require(['CH', 'RP'].includes(el(bht, 6)), { segment: 'BHT', element: 'BHT06', position: 2, message: 'claim or encounter identifier must be CH (chargeable) or RP (reporting)' });
  }
  let level = '';
  let submitter: { name: string; id: string } | undefined;
  let receiver: { name: string; id: string } | undefined;
  let billing: (Provider & { tax_id: string }) | undefined;
  let sawN3 = false;
  let sawN4 = false;
  let subscriber: Subscriber | undefined;
  let subscriberPosition = 0;
  let sawSbr = false;
  let payer: Payer | undefined;
  const claims: (ProfessionalClaim & { position: number })[] = [];
  let claim: (ProfessionalClaim & { position: number }) | undefined;
  let line: (Partial<ServiceLine> & { position: number }) | undefined;
  const closeLine = () => {
    if (line && claim) {
      if (line.procedure_code === undefined) checks.issues.push({ segment: 'SV1', position: line.position, message: 'each service line (LX, loop 2400) needs its SV1 professional service' });
      else if (line.service_date === undefined) checks.issues.push({ segment: 'DTP', element: 'DTP01', position: line.position, message: 'each service line needs its date of service (DTP*472, loop 2400)' });
      else claim.service_lines.push(line as ServiceLine);
    }
    line = undefined;
  };
  const closeClaim = () => {
    closeLine();
    if (claim) claims.push(claim);
    claim = undefined;
  };
  segments.forEach((s, i) => {
    const position = i + 2;
    const isNm1 = s.tag === 'NM1';
    if (isNm1 && el(s, 1) === '41' && level === '') submitter = { name: checks.element(s, position, 3, 'submitter name (NM103)'), id: checks.element(s, position, 9, 'submitter id (NM109)') };
    else if (isNm1 && el(s, 1) === '40' && level === '') receiver = { name: checks.element(s, position, 3, 'receiver name (NM103)'), id: checks.element(s, position, 9, 'receiver id (NM109)') };
    else if (s.tag === 'HL') {
      closeClaim();
      level = el(s, 3);
      checks.require(level === '20' || level === '22', { segment: 'HL', element: 'HL03', position, message: level === '23' ? 'the patient level (HL03 = 23) is not supported: send the patient as the subscriber' : `hierarchical level code must be 20 or 22 (found ${level || 'nothing'})` });
      if (level === '22') {
        subscriber = undefined;
        payer = undefined;
        sawSbr = false;
        subscriberPosition = position;
      }
    } else if (level === '20' && isNm1 && el(s, 1) === '85') billing = { ...providerFrom(checks, s, position, 'billing provider'), tax_id: '' };
    else if (level === '20' && s.tag === 'N3') sawN3 = true;
    else if (level === '20' && s.tag === 'N4') sawN4 = true;
    else if (level === '20' && s.tag === 'REF' && el(s, 1) === 'EI' && billing) billing.tax_id = checks.element(s, position, 2, 'billing provider tax id (REF02)');
    else if (level === '22' && s.tag === 'SBR') {
      sawSbr = true;
      checks.require(['P', 'S', 'T'].includes(el(s, 1)), { segment: 'SBR', element: 'SBR01', position, message: 'payer responsibility sequence must be P, S or T' });
    } else if (level === '22' && isNm1 && el(s, 1) === 'IL' && claim === undefined) {
      const next = segments[i + 1];
      subscriber = subscriberFrom(checks, s, position, next?.tag === 'DMG' ? { segment: next, position: position + 1 } : undefined);
    } else if (level === '22' && isNm1 && el(s, 1) === 'PR' && claim === undefined) payer = payerFrom(checks, s, position);
    else if (level === '22' && s.tag === 'CLM') {
      closeClaim();
      checks.require(sawSbr, { segment: 'SBR', position: subscriberPosition, message: 'the subscriber information (SBR, loop 2000B) is required' });
      checks.require(subscriber !== undefined, { segment: 'NM1', element: 'NM101', position: subscriberPosition, message: 'the subscriber name (NM1*IL, loop 2010BA) is required before CLM' });
      checks.require(payer !== undefined, { segment: 'NM1', element: 'NM101', position: subscriberPosition, message: 'the payer name (NM1*PR, loop 2010BB) is required before CLM' });
      const pcn = checks.element(s, position, 1, 'patient control number (CLM01)');
      const charge = checks.element(s, position, 2, 'total claim charge (CLM02)');
      if (charge) checks.require(AMOUNT.test(charge), { segment: 'CLM', element: 'CLM02', position, message: `total claim charge must be an amount such as 150.00 (found ${charge})` });
      const facility = checks.element(s, position, 5, 'health care service location (CLM05)');
      const pos = component(facility, 1, envelope.delimiters);
      const frequency = component(facility, 3, envelope.delimiters);
      if (facility) {
        checks.require(/^\d{2}$/.test(pos) && component(facility, 2, envelope.delimiters) === 'B', { segment: 'CLM', element: 'CLM05', position, message: 'must be <place of service>:B:<frequency>, e.g. 11:B:1' });
        checks.require(['1', '7', '8'].includes(frequency), { segment: 'CLM', element: 'CLM05', position, message: 'claim frequency code (CLM05-3) must be 1, 7 or 8' });
      }
      claim = { position, patient_control_number: pcn, total_charge: AMOUNT.test(charge) ? Number(charge).toFixed(2) : charge, place_of_service: pos, frequency_code: frequency, diagnosis_codes: [], subscriber: subscriber!, payer: payer!, service_lines: [] };
    } else if (claim && s.tag === 'HI' && line === undefined) {
      s.el.forEach((value, n) => {
        if (value === '') return;
        const qualifier = component(value, 1, envelope.delimiters);
        const code = component(value, 2, envelope.delimiters);
        const element = `HI${String(n + 1).padStart(2, '0')}`;
        if (!checks.require((n === 0 && qualifier === 'ABK') || (n > 0 && qualifier === 'ABF'), { segment: 'HI', element, position, message: n === 0 ? 'the principal diagnosis must be qualified ABK (ICD-10-CM)' : 'other diagnoses must be qualified ABF (ICD-10-CM)' })) return;
        if (checks.require(ICD10.test(code), { segment: 'HI', element, position, message: `${code || 'nothing'} is not an ICD-10-CM code` })) claim!.diagnosis_codes.push(code);
      });
    } else if (claim && s.tag === 'LX') {
      closeLine();
      line = { position };
    } else if (line && s.tag === 'SV1') {
      const procedure = checks.element(s, position, 1, 'procedure (SV101)');
      const qualifier = component(procedure, 1, envelope.delimiters);
      checks.require(qualifier === 'HC', { segment: 'SV1', element: 'SV101', position, message: 'product/service id qualifier must be HC (HCPCS/CPT)' });
      const code = component(procedure, 2, envelope.delimiters);
      const modifiers = procedure.split(envelope.delimiters.component).slice(2).filter(Boolean);
      const charge = checks.element(s, position, 2, 'line item charge (SV102)');
      if (charge) checks.require(AMOUNT.test(charge), { segment: 'SV1', element: 'SV102', position, message: `line item charge must be an amount (found ${charge})` });
      checks.require(['UN', 'MJ'].includes(el(s, 3)), { segment: 'SV1', element: 'SV103', position, message: 'unit basis must be UN (units) or MJ (minutes)' });
      const units = checks.element(s, position, 4, 'service unit count (SV104)');
      if (code && /^[A-Z0-9]{5}$/.test(code)) Object.assign(line, { procedure_code: code, ...(modifiers.length > 0 ? { modifiers } : {}), charge: Number(charge).toFixed(2), units });
      else checks.issues.push({ segment: 'SV1', element: 'SV101', position, message: `${code || 'nothing'} is not a 5-character CPT/HCPCS code` });
    } else if (line && s.tag === 'DTP' && el(s, 1) === '472') {
      const value = el(s, 3).split('-')[0] ?? '';
      if (checks.require(/^\d{8}$/.test(value), { segment: 'DTP', element: 'DTP03', position, message: 'date of service must be CCYYMMDD' })) line.service_date = isoDate(value);
    }
  });
  closeClaim();
  checks.require(submitter !== undefined, { segment: 'NM1', element: 'NM101', message: 'the submitter name (NM1*41, loop 1000A) is required' });
  checks.require(receiver !== undefined, { segment: 'NM1', element: 'NM101', message: 'the receiver name (NM1*40, loop 1000B) is required' });
  checks.require(billing !== undefined, { segment: 'NM1', element: 'NM101', message: 'the billing provider (NM1*85, loop 2010AA) is required' });
  if (billing) {
    checks.require(sawN3, { segment: 'N3', message: 'the billing provider address (N3, loop 2010AA) is required' });
    checks.require(sawN4, { segment: 'N4', message: 'the billing provider city, state, ZIP (N4, loop 2010AA) is required' });
    checks.require(billing.tax_id !== '', { segment: 'REF', element: 'REF01', message: 'the billing provider tax id (REF*EI, loop 2010AA) is required' });
  }
  checks.require(claims.length > 0, { segment: 'CLM', message: 'at least one claim (CLM, loop 2300) is required' });
  for (const c of claims) {
    checks.require(c.diagnosis_codes.length > 0, { segment: 'HI', position: c.position, message: `claim ${c.patient_control_number} needs its diagnosis codes (HI, loop 2300)` });
    checks.require(c.service_lines.length > 0, { segment: 'LX', position: c.position, message: `claim ${c.patient_control_number} needs at least one service line (LX/SV1, loop 2400)` });
    const lines = c.service_lines.reduce((sum, l) => sum + cents(l.charge), 0);
    if (c.service_lines.length > 0 && AMOUNT.test(c.total_charge)) {
      checks.require(lines === cents(c.total_charge), { segment: 'CLM', element: 'CLM02', position: c.position, message: `total claim charge ${c.total_charge} must equal the sum of the line charges (${(lines / 100).toFixed(2)})` });
    }
  }
  // The 999 reports the issues the problem document lists (the first MAX_REPORTED_ISSUES); IK5/AK9 reject the set either way.
  if (checks.issues.length > 0) throw new X12Error(checks.issues, { acknowledgement_999: write999(envelope, checks.issues.slice(0, MAX_REPORTED_ISSUES), new Date()) });
  return {
    envelope,
    submission: { reference, submitter: submitter!, receiver: receiver!, billing_provider: billing!, claims: claims.map(({ position: _p, ...c }) => c) },
  };
}

/** Read the JSON form of a submission. */
export function readClaimsJson(body: unknown): ClaimSubmission {
  const f = JsonFields.of(body);
  const submitter = { name: f.string('submitter.name', true), id: f.string('submitter.id', true, /^[A-Za-z0-9-]{2,80}$/, 'must be 2-80 letters, digits or -') };
  const receiver = { name: f.string('receiver.name', true), id: f.string('receiver.id', true, /^[A-Za-z0-9-]{2,80}$/, 'must be 2-80 letters, digits or -') };
  const billing = { ...f.provider('billing_provider'), tax_id: f.string('billing_provider.tax_id', true, /^\d{9}$/, 'must be a 9-digit EIN') };
  const list = f.array('claims', true, CLEARINGHOUSE_JSON_LIMITS.claims) ?? [];
  if (list.length === 0 && !f.errors.some((e) => e.field === 'claims')) f.errors.push({ field: 'claims', message: 'must list at least one claim' });
  const claims: ProfessionalClaim[] = list.map((_, i) => {
    const p = `claims.${i}`;
    const codes = f.array(`${p}.diagnosis_codes`, true, CLEARINGHOUSE_JSON_LIMITS.diagnosisCodes) ?? [];
    if (codes.length === 0 && !f.errors.some((e) => e.field === `${p}.diagnosis_codes`)) f.errors.push({ field: `${p}.diagnosis_codes`, message: 'must list at least one ICD-10-CM code' });
    codes.forEach((c, n) => {
      if (typeof c !== 'string' || !ICD10.test(c)) f.errors.push({ field: `${p}.diagnosis_codes.${n}`, message: 'must be an ICD-10-CM code such as J06.9' });
    });
    const lines = f.array(`${p}.service_lines`, true, CLEARINGHOUSE_JSON_LIMITS.serviceLines) ?? [];
    if (lines.length === 0 && !f.errors.some((e) => e.field === `${p}.service_lines`)) f.errors.push({ field: `${p}.service_lines`, message: 'must list at least one service line' });
    const serviceLines: ServiceLine[] = lines.map((__, n) => {
      const q = `${p}.service_lines.${n}`;
      const mods = f.array(`${q}.modifiers`, false, CLEARINGHOUSE_JSON_LIMITS.modifiers) ?? [];
      mods.forEach((m, k) => {
        if (typeof m !== 'string' || !/^[A-Z0-9]{2}$/.test(m)) f.errors.push({ field: `${q}.modifiers.${k}`, message: 'must be a 2-character modifier' });
      });
      return {
        procedure_code: f.string(`${q}.procedure_code`, true, /^[A-Z0-9]{5}$/, 'must be a 5-character CPT/HCPCS code'),
        ...(mods.length > 0 ? { modifiers: mods as string[] } : {}),
        charge: f.money(`${q}.charge`, true) ?? '0.00',
        units: f.string(`${q}.units`, false, /^\d{1,4}(\.\d{1,3})?$/, 'must be a number of units') ?? '1',
        service_date: f.date(`${q}.service_date`, true) ?? '',
      };
    });
    const total = f.money(`${p}.total_charge`, true);
    if (total !== undefined && serviceLines.every((l) => AMOUNT.test(l.charge))) {
      const sum = serviceLines.reduce((s, l) => s + cents(l.charge), 0);
      if (sum !== cents(total)) f.errors.push({ field: `${p}.total_charge`, message: `must equal the sum of the line charges (${(sum / 100).toFixed(2)})` });
    }
    return {
      patient_control_number: f.string(`${p}.patient_control_number`, true, /^[A-Za-z0-9-]{1,38}$/, 'must be 1-38 letters, digits or -'),
      total_charge: total ?? '0.00',
      place_of_service: f.string(`${p}.place_of_service`, false, /^\d{2}$/, 'must be a 2-digit place of service code') ?? '11',
      frequency_code: f.string(`${p}.frequency_code`, false, /^[178]$/, 'must be 1, 7 or 8') ?? '1',
      diagnosis_codes: codes.map((c) => String(c).replace('.', '')),
      subscriber: f.subscriber(`${p}.subscriber`),
      payer: f.payer(`${p}.payer`),
      service_lines: serviceLines,
    };
  });
  const reference = f.string('reference', false, /^[A-Za-z0-9-]{1,30}$/, 'must be 1-30 letters, digits or -');
  f.done();
  return { reference: reference ?? claims[0]!.patient_control_number, submitter, receiver, billing_provider: billing, claims };
}

/** The segments of an 837P for a submission (what a submitter would send). */
export function segments837p(x: ClaimSubmission, at: Date): Segment[] {
  const { date, time } = x12DateTime(at);
  const out: Segment[] = [
    seg('BHT', '0019', '00', x.reference, date, time, 'CH'),
    nm1('41', { name: x.submitter.name }, '46', x.submitter.id),
    seg('PER', 'IC', 'BILLING OFFICE', 'TE', '5555551234'),
    nm1('40', { name: x.receiver.name }, '46', x.receiver.id),
    seg('HL', '1', '', '20', '1'),
    nm1('85', x.billing_provider, 'XX', x.billing_provider.npi),
    seg('N3', '100 MAIN STREET'),
    seg('N4', 'SPRINGFIELD', 'IL', '627010000'),
    seg('REF', 'EI', x.billing_provider.tax_id),
  ];
  let hl = 1;
  for (const c of x.claims) {
    hl += 1;
    const s = c.subscriber;
    out.push(seg('HL', String(hl), '1', '22', '0'), seg('SBR', 'P', '18', '', '', '', '', '', '', 'CI'), subscriberNm1(s));
    if (s.birth_date || s.gender) out.push(seg('DMG', s.birth_date ? 'D8' : '', s.birth_date ? d8(s.birth_date) : '', s.gender));
    out.push(nm1('PR', c.payer, 'PI', c.payer.id));
    out.push(seg('CLM', c.patient_control_number, c.total_charge, '', '', `${c.place_of_service}:B:${c.frequency_code}`, 'Y', 'A', 'Y', 'Y'));
    out.push(seg('HI', ...c.diagnosis_codes.map((code, i) => `${i === 0 ? 'ABK' : 'ABF'}:${code}`)));
    c.service_lines.forEach((l, i) => {
      out.push(seg('LX', String(i + 1)), seg('SV1', ['HC', l.procedure_code, ...(l.modifiers ?? [])].join(':'), l.charge, 'UN', l.units, '', '', '1'), seg('DTP', '472', 'D8', d8(l.service_date)));
    });
  }
  return out;
}

/** IK304 segment syntax error codes (005010X231A1) used in a rejecting 999. */
const IK3_REQUIRED_SEGMENT_MISSING = '3';
const IK3_DATA_ELEMENT_ERRORS = '8';
/** IK403 element error codes used. */
const IK4_REQUIRED_ELEMENT_MISSING = '1';
const IK4_INVALID_CODE_VALUE = '7';
const IK4_INVALID_DATE = '8';
const IK4_PATTERN_MATCH_FAILURE = 'I12';

function ik4Code(issue: X12Issue): string {
  if (/is required/.test(issue.message)) return IK4_REQUIRED_ELEMENT_MISSING;
  if (/date/i.test(issue.message)) return IK4_INVALID_DATE;
  if (/code|qualifier|must be (?:[A-Z0-9]{1,4}(?:,| or|$))/.test(issue.message)) return IK4_INVALID_CODE_VALUE;
  return IK4_PATTERN_MATCH_FAILURE;
}

/**
 * A 999 implementation acknowledgment for a read 837P: accepted (IK5*A) or rejected with one
 * IK3/IK4 pair per issue naming the segment, its position and the element.
 */
export function write999(envelope: Envelope, issues: readonly X12Issue[], at: Date): string {
  const accepted = issues.length === 0;
  const segments: Segment[] = [seg('AK1', envelope.functionalId, envelope.groupControlNumber, envelope.version), seg('AK2', envelope.transactionSetId, envelope.transactionControlNumber, envelope.version)];
  for (const issue of issues) {
    // An issue naming no element, or no position, is a segment (or loop) that is missing.
    const missing = issue.element === undefined || issue.position === undefined;
    segments.push(seg('IK3', issue.segment, issue.position ?? '', '', missing ? IK3_REQUIRED_SEGMENT_MISSING : IK3_DATA_ELEMENT_ERRORS));
    if (issue.element && !missing) {
      const position = Number(issue.element.slice(issue.segment.length));
      segments.push(seg('IK4', Number.isFinite(position) ? String(position) : '', '', ik4Code(issue)));
    }
  }
  segments.push(seg('IK5', accepted ? 'A' : 'R', accepted ? '' : '5'));
  segments.push(seg('AK9', accepted ? 'A' : 'R', '1', '1', accepted ? '1' : '0'));
  return writeInterchange(replyParties(envelope), envelope.interchangeControlNumber, [{ kind: KIND_999, controlNumber: '0001', segments }], at);
}

/** A TA1 interchange acknowledgment (accepted, note code 000) for an interchange that asked for one (ISA14 = 1). */
export function writeTa1(envelope: Envelope, at: Date): string {
  // An interchange holding only a TA1: ISA, TA1, IEA (IEA01 = 0 functional groups).
  const empty = writeInterchange(replyParties(envelope), envelope.interchangeControlNumber, [], at);
  const ta1 = seg('TA1', envelope.interchangeControlNumber, envelope.interchangeDate, envelope.interchangeTime, 'A', '000');
  const isaEnd = empty.indexOf('~') + 1;
  return `${empty.slice(0, isaEnd)}TA1*${ta1.el.join('*')}~${empty.slice(isaEnd)}`;
}

/** TA105 interchange note codes for the interchange-level problems we report. */
const TA1_NOTE: Readonly<Record<string, string>> = {
  IEA02: '001', // control numbers in header and trailer do not match
  ISA16: '004', // segment terminator invalid
  ISA06: '006',
  ISA08: '008',
  ISA09: '014',
  ISA10: '015',
  ISA12: '017', // interchange version id
  ISA13: '018', // interchange control number
  ISA14: '019', // acknowledgment requested
  ISA15: '020', // test indicator
  IEA01: '021', // number of included groups
  IEA: '023', // premature end of file (trailer missing)
};

/** The TA1 note code of an interchange-level issue, or undefined when the issue is below the interchange. */
function ta1Note(issue: X12Issue): string | undefined {
  if (issue.segment !== 'ISA' && issue.segment !== 'IEA') return undefined;
  return TA1_NOTE[issue.element ?? issue.segment] ?? '022'; // 022: invalid control structure
}

/**
 * A rejecting TA1 for an interchange refused at the interchange level (ISA/IEA), when its ISA can
 * still be read for the control number, date and parties; null otherwise.
 */
export function rejectingTa1(raw: string, issues: readonly X12Issue[], at: Date, note?: string): string | null {
  const code = note ?? issues.map(ta1Note).find((n) => n !== undefined);
  const text = raw.replace(/^\uFEFF/, '').trimStart();
  if (code === undefined || !text.startsWith('ISA') || text.length < 106) return null;
  const isa = text.slice(0, 105).split(text[3]!);
  if (isa.length !== 17 || !/^\d{9}$/.test(isa[13]!) || !/^\d{6}$/.test(isa[9]!) || !/^\d{4}$/.test(isa[10]!)) return null;
  const usage = isa[15] === 'P' ? 'P' : 'T';
  const parties = { senderQualifier: isa[7]!, senderId: isa[8]!.trim(), receiverQualifier: isa[5]!, receiverId: isa[6]!.trim(), usage } as const;
  const empty = writeInterchange(parties, isa[13]!, [], at);
  const isaEnd = empty.indexOf('~') + 1;
  return `${empty.slice(0, isaEnd)}TA1*${[isa[13], isa[9], isa[10], 'R', code].join('*')}~${empty.slice(isaEnd)}`;
}
