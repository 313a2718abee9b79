import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { read270, segments270, segments271 } from './eligibility.js';
import { read276, segments276 } from './claim-status.js';
import { read837p, segments837p, write999, writeTa1 } from './claims.js';
import { answerEligibility } from './payer-stub.js';
import { isValidNpi } from './common.js';
import { KIND_270, KIND_271, KIND_276, KIND_837P, KIND_999, readInterchange, writeInterchange, X12Error, type TransactionKind } from './x12.js';

const fixture = (name: string): string => readFileSync(new URL(`../../../../../test/fixtures/x12/${name}`, import.meta.url), 'utf8');

/** Text of one segment per line, without the envelope: what the round trips compare. */
function body(text: string, kind: TransactionKind): string[] {
  return readInterchange(text, kind).segments.map((s) => [s.tag, ...s.el].join('*'));
}

function issuesOf(work: () => unknown): { segment: string; element?: string; message: string }[] {
  try {
    work();
  } catch (e) {
    if (e instanceof X12Error) return [...e.issues];
    throw e;
  }
  throw new Error('expected an X12Error');
}

const PARTIES = { senderQualifier: 'ZZ', senderId: 'SUBMITTER01', receiverQualifier: 'ZZ', receiverId: 'ACMEPAYER', usage: 'T' as const };

describe('X12 005010 reading and writing', () => {
  it('reads a 270 and writes the same transaction back, segment for segment', () => {
    const text = fixture('270-eligibility.x12');
    const { envelope, inquiry } = read270(text);
    expect(envelope).toMatchObject({ senderId: 'SUBMITTER01', receiverId: 'ACMEPAYER', interchangeControlNumber: '000000101', groupControlNumber: '101', transactionControlNumber: '0001', version: '005010X279A1', usage: 'T' });
    expect(inquiry).toEqual({
      reference: '10001234',
      trace_number: '93175-012547',
      payer: { id: '12345', name: 'ACME HEALTH PLAN' },
      provider: { npi: '1234567893', name: 'RIVERSIDE CLINIC' },
      subscriber: { member_id: 'W123456789', last_name: 'DOE', first_name: 'JANE', birth_date: '1980-01-01', gender: 'F' },
      service_type_codes: ['30'],
      service_date: '2026-11-23',
    });
    const written = writeInterchange(PARTIES, '000000101', [{ kind: KIND_270, controlNumber: '0001', segments: segments270(inquiry, new Date('2026-11-23T12:00:00Z')) }], new Date('2026-11-23T12:00:00Z'));
    expect(body(written, KIND_270)).toEqual(body(text, KIND_270));
    expect(read270(written).inquiry).toEqual(inquiry);
  });

  it('writes a 271 with valid envelope counts and the EB benefits of the plan', () => {
    const { inquiry } = read270(fixture('270-eligibility.x12'));
    const answer = answerEligibility(inquiry);
    const text = writeInterchange({ ...PARTIES, senderId: 'ACMEPAYER', receiverId: 'SUBMITTER01' }, '000000900', [{ kind: KIND_271, controlNumber: '0001', segments: segments271(answer, new Date('2026-11-23T12:00:00Z')) }], new Date());
    const lines = body(text, KIND_271);
    expect(lines).toContain('TRN*2*93175-012547*9877281234');
    expect(lines).toContain('EB*1*IND*30*PR*GOLD PPO');
    expect(lines).toContain('EB*C*IND*30***23*1500.00*****Y');
    expect(lines).toContain('EB*B*IND*98***27*25.00*****Y');
    expect(text).toMatch(/SE\*\d+\*0001~GE\*1\*900~IEA\*1\*000000900~$/);
  });

  it('reads a 276 and writes it back unchanged', () => {
    const text = fixture('276-claim-status.x12');
    const { inquiry } = read276(text);
    expect(inquiry).toMatchObject({ reference: 'ABC276001', trace_number: 'STATUS-0001', patient_control_number: 'PCN-1001', total_charge: '150.00', service_date: '2026-11-01', receiver: { name: 'RIVERSIDE CLINIC', id: 'S123456' } });
    const written = writeInterchange(PARTIES, '000000102', [{ kind: KIND_276, controlNumber: '0002', segments: segments276(inquiry, new Date('2026-11-23T14:30:00Z')) }], new Date());
    expect(body(written, KIND_276)).toEqual(body(text, KIND_276));
  });

  it('reads an 837P with two subscribers and claims, and the written 837P reads back to the same claims', () => {
    const { envelope, submission } = read837p(fixture('837p-claims.x12'));
    expect(envelope.acknowledgmentRequested).toBe(true);
    expect(submission.billing_provider).toEqual({ npi: '1234567893', name: 'RIVERSIDE CLINIC', tax_id: '123456789' });
    expect(submission.claims.map((c) => [c.patient_control_number, c.total_charge, c.subscriber.member_id, c.diagnosis_codes, c.service_lines.map((l) => [l.procedure_code, l.modifiers ?? [], l.charge, l.service_date])])).toEqual([
      ['PCN-1001', '150.00', 'W123456789', ['J069', 'R509'], [['99213', [], '100.00', '2026-11-01'], ['87880', [], '50.00', '2026-11-01']]],
      ['PCN-1002', '85.50', 'PD5550001', ['M545'], [['97110', ['GP'], '85.50', '2026-11-02']]],
    ]);
    const written = writeInterchange(PARTIES, '000000103', [{ kind: KIND_837P, controlNumber: '0003', segments: segments837p(submission, new Date()) }], new Date());
    expect(read837p(written).submission).toEqual(submission);
  });

  it('acknowledges an 837P with a 999 and a TA1 that echo its control numbers', () => {
    const { envelope } = read837p(fixture('837p-claims.x12'));
    const ack = write999(envelope, [], new Date('2026-11-23T10:30:00Z'));
    expect(body(ack, KIND_999)).toEqual(['AK1*HC*103*005010X222A1', 'AK2*837*0003*005010X222A1', 'IK5*A', 'AK9*A*1*1*1']);
    const ta1 = writeTa1(envelope, new Date('2026-11-23T10:30:00Z'));
    expect(ta1).toMatch(/^ISA\*.{101}~TA1\*000000103\*261123\*1023\*A\*000~IEA\*0\*000000103~$/);
  });

  it('reads the delimiters from the ISA: other element separators, line-break terminators, CRLF after segments', () => {
    const text = fixture('270-eligibility.x12');
    const expected = read270(text).inquiry;
    expect(read270(text.replaceAll('*', '|').replaceAll('~\n', '\n')).inquiry).toEqual(expected);
    expect(read270(text.replaceAll('~\n', '~\r\n')).inquiry).toEqual(expected);
    expect(read270(text.replaceAll('\n', '')).inquiry).toEqual(expected);
    const repeated = read270(text.replace('EQ*30~', 'EQ*30^98^UC~'));
    expect(repeated.inquiry.service_type_codes).toEqual(['30', '98', 'UC']);
  });

  it('refuses broken envelopes, naming the segment and element', () => {
    const text = fixture('270-eligibility.x12');
    expect(issuesOf(() => read270(text.replace('SE*13*0001', 'SE*12*0001')))).toEqual([expect.objectContaining({ segment: 'SE', element: 'SE01' })]);
    expect(issuesOf(() => read270(text.replace('SE*13*0001', 'SE*13*0009')))[0]).toMatchObject({ segment: 'SE', element: 'SE02' });
    expect(issuesOf(() => read270(text.replace('GE*1*101', 'GE*1*999')))[0]).toMatchObject({ segment: 'GE', element: 'GE02' });
    expect(issuesOf(() => read270(text.replace('GE*1*101', 'GE*2*101')))[0]).toMatchObject({ segment: 'GE', element: 'GE01' });
    expect(issuesOf(() => read270(text.replace('IEA*1*000000101', 'IEA*1*000000999')))[0]).toMatchObject({ segment: 'IEA', element: 'IEA02' });
    expect(issuesOf(() => read270(text.replace('IEA*1*', 'IEA*3*')))[0]).toMatchObject({ segment: 'IEA', element: 'IEA01' });
    expect(issuesOf(() => read270(text.replace('*00501*', '*00401*')))[0]).toMatchObject({ segment: 'ISA', element: 'ISA12' });
    expect(issuesOf(() => read270(text.replace('SUBMITTER01    *ZZ', 'SUBMITTER01 *ZZ')))[0]).toMatchObject({ segment: 'ISA', element: 'ISA06' });
    expect(issuesOf(() => read270(text.replace('GS*HS*', 'GS*HC*')))[0]).toMatchObject({ segment: 'GS', element: 'GS01' });
    expect(issuesOf(() => read270('GS*HS*X~'))[0]).toMatchObject({ segment: 'ISA' });
    const truncated = text.slice(0, text.indexOf('SE*13'));
    expect(issuesOf(() => read270(truncated))[0]).toMatchObject({ segment: expect.stringMatching(/^(SE|GE|IEA)$/) });
    expect(issuesOf(() => read276(fixture('270-eligibility.x12'))).map((i) => i.element)).toEqual(expect.arrayContaining(['GS01', 'GS08', 'ST01']));
  });

  it('refuses transactions that lack required segments or elements, by segment, element and position', () => {
    const text = fixture('270-eligibility.x12');
    const noSubscriber = text.replace('NM1*IL*1*DOE*JANE****MI*W123456789~\n', '').replace('SE*13*', 'SE*12*');
    expect(issuesOf(() => read270(noSubscriber))).toEqual([expect.objectContaining({ segment: 'NM1', message: expect.stringContaining('NM1*IL') })]);
    const noMember = text.replace('MI*W123456789', 'MI*');
    expect(issuesOf(() => read270(noMember))).toEqual([expect.objectContaining({ segment: 'NM1', element: 'NM109', position: 9 })]);
    expect(issuesOf(() => read270(text.replace('HL*3*2*22*0', 'HL*3*7*22*0')))).toEqual([expect.objectContaining({ segment: 'HL', element: 'HL02', position: 7 })]);
    expect(issuesOf(() => read270(text.replace('HL*2*1*21*1', 'HL*5*1*21*1')))[0]).toMatchObject({ segment: 'HL', element: 'HL01', position: 5 });
    const badNpi = text.replace('XX*1234567893', 'XX*1234567890');
    expect(issuesOf(() => read270(badNpi))).toEqual([expect.objectContaining({ element: 'NM109', message: expect.stringContaining('not a valid NPI') })]);

    const claims = fixture('837p-claims.x12');
    const wrongTotal = claims.replace('CLM*PCN-1001*150*', 'CLM*PCN-1001*160*');
    let error: X12Error | undefined;
    try {
      read837p(wrongTotal);
    } catch (e) {
      error = e as X12Error;
    }
    expect(error?.issues).toEqual([expect.objectContaining({ segment: 'CLM', element: 'CLM02', position: 16 })]);
    // The rejecting 999 names the segment and position (IK3) and the element (IK4).
    const ack = String(error?.details['acknowledgement_999']);
    expect(body(ack, KIND_999)).toEqual(expect.arrayContaining(['IK3*CLM*16**8', 'IK4*2**I12', 'IK5*R*5', 'AK9*R*1*1*0']));
    const noDiagnosis = claims.replace('HI*ABK:M545~\n', '').replace('SE*34*', 'SE*33*');
    let missing: X12Error | undefined;
    try {
      read837p(noDiagnosis);
    } catch (e) {
      missing = e as X12Error;
    }
    expect(missing?.issues).toEqual([expect.objectContaining({ segment: 'HI', position: 29, message: expect.stringContaining('PCN-1002') })]);
    expect(body(String(missing?.details['acknowledgement_999']), KIND_999)).toEqual(expect.arrayContaining(['IK3*HI*29**3', 'IK5*R*5']));
  });

  it('checks NPI check digits as CMS publishes them', () => {
    expect(isValidNpi('1234567893')).toBe(true);
    expect(isValidNpi('1234567890')).toBe(false);
    expect(isValidNpi('123456789')).toBe(false);
  });
});

describe('X12 reading of damaged interchanges', () => {
  /** A small seeded generator (mulberry32), so a failure names a reproducible case. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('answers every damaged interchange with a result or an X12Error, never another error', () => {
    const readers: [string, (text: string) => unknown][] = [
      ['270-eligibility.x12', read270],
      ['276-claim-status.x12', read276],
      ['837p-claims.x12', read837p],
    ];
    const alphabet = '*~:^ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\n';
    for (const [name, read] of readers) {
      const text = fixture(name);
      const next = random(name.length);
      for (let i = 0; i < 300; i++) {
        let damaged = text;
        for (let edits = 1 + Math.floor(next() * 3); edits > 0; edits--) {
          const at = Math.floor(next() * damaged.length);
          const kind = next();
          if (kind < 0.4) damaged = damaged.slice(0, at) + damaged.slice(at + 1 + Math.floor(next() * 8));
          else if (kind < 0.8) damaged = damaged.slice(0, at) + alphabet[Math.floor(next() * alphabet.length)] + damaged.slice(at + 1);
          else damaged = damaged.slice(0, at) + damaged.slice(at).split('~').slice(1).join('~');
        }
        try {
          read(damaged);
        } catch (e) {
          if (!(e instanceof X12Error)) throw new Error(`${name} case ${i}: ${(e as Error).stack}\n${JSON.stringify(damaged)}`);
          expect(e.issues.length, `${name} case ${i}`).toBeGreaterThan(0);
          for (const issue of e.issues) expect(issue.message).not.toMatch(/undefined|Cannot read/);
        }
      }
    }
  });
});
