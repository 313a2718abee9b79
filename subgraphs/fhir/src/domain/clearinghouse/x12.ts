import { DomainError, limitExceeded, X12_LIMITS, type LimitCode, type X12Limits } from '@svc/platform';
import { X12Interchange, X12Parser } from 'node-x12';

/**
 * ASC X12 005010 envelopes: reading (ISA/GS/ST … SE/GE/IEA, with node-x12's strict parser and
 * the checks it does not make) and writing (node-x12's generator, which computes the trailers).
 * The transaction modules (eligibility, claim status, claims) see plain segments.
 */

/** One segment: its tag and its elements, `el[0]` being element 01. */
export interface Segment {
  tag: string;
  el: string[];
}

/** One problem with an interchange, named by segment and element as a 999 IK3/IK4 would. */
export interface X12Issue {
  /** Segment id, e.g. `SE`, `NM1`. */
  segment: string;
  /** Element reference, e.g. `SE01`, `NM109`; absent when the whole segment is the problem. */
  element?: string;
  /** 1-based position of the segment within its transaction set (ST is 1), when known. */
  position?: number;
  message: string;
}

/** The control data of a read interchange, for the acknowledgements and for answers. */
export interface Envelope {
  senderQualifier: string;
  senderId: string;
  receiverQualifier: string;
  receiverId: string;
  interchangeControlNumber: string;
  /** ISA09 (YYMMDD) and ISA10 (HHMM), echoed by a TA1. */
  interchangeDate: string;
  interchangeTime: string;
  acknowledgmentRequested: boolean;
  usage: 'P' | 'T';
  functionalId: string;
  groupSender: string;
  groupReceiver: string;
  groupControlNumber: string;
  version: string;
  transactionSetId: string;
  transactionControlNumber: string;
  delimiters: Delimiters;
}

export interface Delimiters {
  element: string;
  segment: string;
  component: string;
  repetition: string;
}

export const DEFAULT_DELIMITERS: Delimiters = { element: '*', segment: '~', component: ':', repetition: '^' };

/** One transaction set read from an interchange: its envelope and the segments between ST and SE. */
export interface ReadTransaction {
  envelope: Envelope;
  /** Segments after ST and before SE; `position` of segments[i] is i + 2. */
  segments: Segment[];
}

/** What each supported transaction set must carry in its envelope. */
export interface TransactionKind {
  transactionSetId: '270' | '271' | '276' | '277' | '837' | '999';
  functionalId: string;
  version: string;
}

export const KIND_270: TransactionKind = { transactionSetId: '270', functionalId: 'HS', version: '005010X279A1' };
export const KIND_271: TransactionKind = { transactionSetId: '271', functionalId: 'HB', version: '005010X279A1' };
export const KIND_276: TransactionKind = { transactionSetId: '276', functionalId: 'HR', version: '005010X212' };
export const KIND_277: TransactionKind = { transactionSetId: '277', functionalId: 'HN', version: '005010X212' };
export const KIND_837P: TransactionKind = { transactionSetId: '837', functionalId: 'HC', version: '005010X222A1' };
export const KIND_999: TransactionKind = { transactionSetId: '999', functionalId: 'FA', version: '005010X231A1' };

/**
 * The limits reading an interchange of `kind` checks: the table's for the transactions partners send
 * (270, 276, 837P); the answers we only write (271, 277, 999), read back by the tests, get the
 * 837P's, the most generous.
 */
export function limitsOf(kind: TransactionKind): X12Limits {
  const id = kind.transactionSetId;
  return id === '270' || id === '276' || id === '837' ? X12_LIMITS[id] : X12_LIMITS['837'];
}

/** Issues listed in a refusal at most (and IK3/IK4 pairs in its 999); the message counts them all. */
export const MAX_REPORTED_ISSUES = 100;

/** A refused interchange: 422 X12_INVALID naming every segment and element at fault (the first 100). */
export class X12Error extends DomainError {
  /** Every issue found (the problem document lists the first {@link MAX_REPORTED_ISSUES}). */
  readonly issues: readonly X12Issue[];
  constructor(issues: readonly X12Issue[], extra: Record<string, unknown> = {}) {
    const first = issues[0]!;
    const listed = issues.slice(0, MAX_REPORTED_ISSUES);
    super('X12_INVALID', `The X12 interchange is not valid: ${describe(first)}${issues.length > 1 ? ` (and ${issues.length - 1} more${issues.length > listed.length ? `; the first ${listed.length} are listed` : ''})` : ''}.`, {
      fieldErrors: listed.map((i) => ({ field: i.element ?? i.segment, message: i.message })),
      details: { x12_errors: listed.map(issueJson), ...(issues.length > listed.length ? { x12_error_count: issues.length } : {}), ...extra },
    });
    this.issues = issues;
  }
}

function issueJson(i: X12Issue): Record<string, unknown> {
  return { segment: i.segment, ...(i.element ? { element: i.element } : {}), ...(i.position ? { position: i.position } : {}), message: i.message };
}

/**
 * An interchange over one of its transaction's limits (413, with a code naming the kind of limit):
 * refused by {@link scanLimits} before any segment is built, so it costs one pass over the text.
 */
export class X12LimitError extends DomainError {
  constructor(code: LimitCode, limit: { name: string; max: number }, issue: X12Issue) {
    const field = issue.element ?? issue.segment;
    // The shape of every limit refusal (platform's limitExceeded), plus the X12 issue as the other refusals name one.
    super(code, `The X12 interchange is over the limit ${limit.name} (${limit.max}): ${describe(issue)}.`, {
      fieldErrors: [{ field, message: issue.message }],
      details: { x12_errors: [issueJson(issue)], limit: { name: limit.name, max: limit.max, field } },
    });
  }
}

function describe(issue: X12Issue): string {
  return `${issue.element ?? issue.segment}${issue.position ? ` (segment ${issue.position})` : ''}: ${issue.message}`;
}

/** Element `n` (1-based) of a segment, '' when absent. */
export function el(segment: Segment | undefined, n: number): string {
  return segment?.el[n - 1] ?? '';
}

/** The component `c` (1-based) of a composite element value. */
export function component(value: string, c: number, delimiters: Delimiters): string {
  return value.split(delimiters.component)[c - 1] ?? '';
}

const ENVELOPE_REF = /\b(ISA|IEA|GS|GE|ST|SE)(\d{2})\b/;

/** node-x12's ParserError message ("X12 Standard: The value in SE01 (12) does not match …") as an issue. */
function issueFromParser(message: string): X12Issue {
  const text = message.replace(/^X12 Standard:\s*/, '').replace(/\.$/, '');
  const ref = ENVELOPE_REF.exec(text);
  return ref ? { segment: ref[1]!, element: `${ref[1]}${ref[2]}`, message: text } : { segment: 'ISA', message: text };
}

/** Check the fixed-length ISA before anything else reads it (the delimiters come from it). */
function readIsa(text: string): { delimiters: Delimiters; isa: string[] } {
  if (!text.startsWith('ISA')) throw new X12Error([{ segment: 'ISA', message: 'an interchange must begin with the ISA segment' }]);
  if (text.length < 106) throw new X12Error([{ segment: 'ISA', message: 'the ISA segment is 106 characters long; the interchange is shorter' }]);
  const element = text[3]!;
  const isa = text.slice(0, 105).split(element);
  if (isa.length !== 17) throw new X12Error([{ segment: 'ISA', message: `ISA must have 16 elements of fixed length separated by "${element}" (found ${isa.length - 1})` }]);
  const segment = text[105]!;
  const component = isa[16]!;
  const repetition = isa[11]!;
  const issues: X12Issue[] = [];
  const widths = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1];
  widths.forEach((w, i) => {
    if (isa[i + 1]!.length !== w) issues.push({ segment: 'ISA', element: `ISA${String(i + 1).padStart(2, '0')}`, message: `must be exactly ${w} characters (found ${isa[i + 1]!.length})` });
  });
  if (issues.length > 0) throw new X12Error(issues);
  if (isa[12] !== '00501') issues.push({ segment: 'ISA', element: 'ISA12', message: `interchange control version must be 00501 (found ${isa[12]})` });
  if (!/^\d{9}$/.test(isa[13]!)) issues.push({ segment: 'ISA', element: 'ISA13', message: 'interchange control number must be 9 digits' });
  if (isa[14] !== '0' && isa[14] !== '1') issues.push({ segment: 'ISA', element: 'ISA14', message: 'acknowledgment requested must be 0 or 1' });
  if (isa[15] !== 'P' && isa[15] !== 'T') issues.push({ segment: 'ISA', element: 'ISA15', message: 'usage indicator must be P or T' });
  if (/[A-Za-z0-9 ]/.test(segment)) issues.push({ segment: 'ISA', element: 'ISA16', message: 'the character after ISA16 must be the segment terminator' });
  if (issues.length > 0) throw new X12Error(issues);
  return { delimiters: { element, segment, component, repetition }, isa };
}

/**
 * Read one interchange holding one functional group with one transaction set of `kind`, checking
 * the envelope: ISA fields, control numbers (ISA13 = IEA02, GS06 = GE02, ST02 = SE02), counts
 * (SE01 segments, GE01 transaction sets, IEA01 groups), GS01/GS08/ST01/ST03 for the kind.
 */
export function readInterchange(raw: string, kind: TransactionKind, limits: X12Limits = limitsOf(kind)): ReadTransaction {
  checkSize(raw, limits);
  // Line breaks after segment terminators are common in files; they are not data.
  const text = raw.replace(/^\uFEFF/, '').trim();
  const { delimiters, isa } = readIsa(text);
  scanLimits(text, delimiters, limits);
  let stripped = text.split(delimiters.segment).map((s) => s.replace(/^[\r\n]+/, '')).join(delimiters.segment);
  // Trimming takes a line-break terminator off the last segment (IEA): put it back.
  if (!stripped.endsWith(delimiters.segment)) stripped += delimiters.segment;
  let interchange: X12Interchange;
  try {
    const parsed = new X12Parser(true).parse(stripped, { elementDelimiter: delimiters.element, segmentTerminator: delimiters.segment, subElementDelimiter: delimiters.component, repetitionDelimiter: delimiters.repetition });
    if (!(parsed instanceof X12Interchange)) throw new X12Error([{ segment: 'ISA', message: 'send one interchange per request' }]);
    interchange = parsed;
  } catch (caught) {
    if (caught instanceof DomainError) throw caught;
    throw new X12Error([issueFromParser(caught instanceof Error ? caught.message : String(caught))]);
  }
  const values = (s: { tag: string; elements: { value: string }[] }): Segment => ({ tag: s.tag, el: s.elements.map((e) => e.value) });
  const issues: X12Issue[] = [];
  // node-x12 leaves a trailer undefined when the segment never came.
  const closed = (trailer: unknown, segment: string, what: string): void => {
    if (trailer === undefined || trailer === null) throw new X12Error([{ segment, message: `the ${what} trailer ${segment} is missing` }]);
  };
  closed(interchange.trailer, 'IEA', 'interchange');
  for (const group of interchange.functionalGroups) {
    closed(group.trailer, 'GE', 'functional group');
    for (const transaction of group.transactions) closed(transaction.trailer, 'SE', 'transaction set');
  }
  const iea = values(interchange.trailer);
  const groups = interchange.functionalGroups;
  if (el(iea, 1) !== String(groups.length)) issues.push({ segment: 'IEA', element: 'IEA01', message: `number of included functional groups is ${el(iea, 1)} but the interchange has ${groups.length}` });
  if (groups.length !== 1) {
    issues.push({ segment: 'GS', message: `send exactly one functional group per interchange (found ${groups.length})` });
    throw new X12Error(issues);
  }
  const group = groups[0]!;
  const gs = values(group.header);
  const ge = values(group.trailer);
  if (el(gs, 1) !== kind.functionalId) issues.push({ segment: 'GS', element: 'GS01', message: `functional identifier code must be ${kind.functionalId} for a ${kind.transactionSetId} (found ${el(gs, 1) || 'nothing'})` });
  if (!/^\d{1,9}$/.test(el(gs, 6))) issues.push({ segment: 'GS', element: 'GS06', message: 'group control number must be 1 to 9 digits' });
  if (el(gs, 8) !== kind.version) issues.push({ segment: 'GS', element: 'GS08', message: `version must be ${kind.version} (found ${el(gs, 8) || 'nothing'})` });
  if (el(ge, 1) !== String(group.transactions.length)) issues.push({ segment: 'GE', element: 'GE01', message: `number of transaction sets is ${el(ge, 1)} but the group has ${group.transactions.length}` });
  if (group.transactions.length !== 1) {
    issues.push({ segment: 'ST', message: `send exactly one transaction set per functional group (found ${group.transactions.length})` });
    throw new X12Error(issues);
  }
  const transaction = group.transactions[0]!;
  const st = values(transaction.header);
  const se = values(transaction.trailer);
  if (el(st, 1) !== kind.transactionSetId) issues.push({ segment: 'ST', element: 'ST01', position: 1, message: `transaction set identifier must be ${kind.transactionSetId} (found ${el(st, 1) || 'nothing'})` });
  if (!/^[A-Za-z0-9]{4,9}$/.test(el(st, 2))) issues.push({ segment: 'ST', element: 'ST02', position: 1, message: 'transaction set control number must be 4 to 9 characters' });
  if (el(st, 3) !== el(gs, 8)) issues.push({ segment: 'ST', element: 'ST03', position: 1, message: `implementation convention reference must equal GS08 (${el(gs, 8)})` });
  if (el(se, 2) !== el(st, 2)) issues.push({ segment: 'SE', element: 'SE02', position: transaction.segments.length + 2, message: `must equal ST02 (${el(st, 2)})` });
  if (issues.length > 0) throw new X12Error(issues);
  return {
    envelope: {
      senderQualifier: isa[5]!,
      senderId: isa[6]!.trim(),
      receiverQualifier: isa[7]!,
      receiverId: isa[8]!.trim(),
      interchangeControlNumber: isa[13]!,
      interchangeDate: isa[9]!,
      interchangeTime: isa[10]!,
      acknowledgmentRequested: isa[14] === '1',
      usage: isa[15] as 'P' | 'T',
      functionalId: el(gs, 1),
      groupSender: el(gs, 2),
      groupReceiver: el(gs, 3),
      groupControlNumber: el(gs, 6),
      version: el(gs, 8),
      transactionSetId: el(st, 1),
      transactionControlNumber: el(st, 2),
      delimiters,
    },
    segments: transaction.segments.map(values),
  };
}

/** `x12.bytes`: the interchange's UTF-8 size, before anything else reads it (413 PAYLOAD_TOO_LARGE). */
export function checkSize(raw: string, limits: X12Limits): void {
  // Every character takes at least one byte: only a text that could be over is measured.
  if (raw.length <= limits.maxBytes / 3) return;
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes <= limits.maxBytes) return;
  const message = `an X12 ${limits.transaction} may be at most ${limits.maxBytes} bytes, this one is ${bytes} (limit x12.bytes)`;
  throw limitExceeded('PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'x12' }, `The X12 interchange is over the limit x12.bytes (${limits.maxBytes}): ${message}.`, message);
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The next position of `char` at or after a position, for positions that only grow: each search
 * starts where the last one found, so all of them together read the text once (a plain indexOf
 * per element would read on to the next occurrence, maybe the end, every time: quadratic).
 */
function forwardFinder(text: string, char: string): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found !== -1 && found < from) found = text.indexOf(char, from);
    return found;
  };
}

/**
 * One pass over the text (after the ISA gave the delimiters), before node-x12 builds a segment:
 * the segment count, each segment's and element's length, each element's repetitions, the HL
 * levels, how deep they nest, and the loops the transaction bounds (EQ per level, claims, lines
 * per claim). The first limit crossed is refused at once, so the pass stops there. Every search
 * moves forward only and the one structure kept is the depth of each HL id (a Map), so the work
 * is linear in the text whatever its shape.
 */
export function scanLimits(text: string, d: Delimiters, limits: X12Limits): void {
  const end = text.length;
  const nextTerminator = forwardFinder(text, d.segment);
  const nextElement = forwardFinder(text, d.element);
  // A letter or digit in ISA11 is no repetition separator (X12 before 00501 put a U there).
  const nextRepetition = /[A-Za-z0-9 ]/.test(d.repetition) ? () => -1 : forwardFinder(text, d.repetition);
  const depths = new Map<string, number>();
  const loopCounts = limits.loops.map(() => 0);
  let segments = 0;
  let levels = 0;
  /** Index (1-based, in the interchange) of the ST segment, 0 before it: positions count from ST = 1, as in the other issues. */
  let stAt = 0;
  let start = 0;
  while (start < end) {
    // Line breaks between segments are not data (readInterchange drops them too).
    while (start < end && (text.charCodeAt(start) === LF || text.charCodeAt(start) === CR)) start++;
    if (start >= end) break;
    let stop = nextTerminator(start);
    if (stop === -1) stop = end;
    segments++;
    const position = stAt > 0 ? segments - stAt + 1 : undefined;
    const at = position === undefined ? {} : { position };
    let tagEnd = nextElement(start);
    if (tagEnd === -1 || tagEnd > stop) tagEnd = stop;
    const tag = text.slice(start, Math.min(tagEnd, start + 3));
    if (segments > limits.maxSegments) {
      throw new X12LimitError('TOO_MANY_SEGMENTS', { name: 'x12.segments', max: limits.maxSegments }, { segment: tag, ...at, message: `an X12 ${limits.transaction} may have at most ${limits.maxSegments} segments from ISA to IEA` });
    }
    if (stop - start > limits.maxSegmentLength) {
      throw new X12LimitError('SEGMENT_TOO_LONG', { name: 'x12.segment_length', max: limits.maxSegmentLength }, { segment: tag, ...at, message: `a segment may be at most ${limits.maxSegmentLength} characters (this one is ${stop - start})` });
    }
    if (tag === 'ST') stAt = segments;
    // The elements: their length and repetitions (ISA11 is the separator itself, not a repeated value); HL01 and HL02 are kept.
    let hlId = '';
    let hlParent = '';
    for (let from = tagEnd + 1, index = 1; tagEnd < stop && from <= stop; index++) {
      let next = nextElement(from);
      if (next === -1 || next > stop) next = stop;
      if (next - from > limits.maxElementLength) {
        throw new X12LimitError('ELEMENT_TOO_LONG', { name: 'x12.element_length', max: limits.maxElementLength }, { segment: tag, element: elementName(tag, index), ...at, message: `an element may be at most ${limits.maxElementLength} characters (this one is ${next - from})` });
      }
      let repetitions = 1;
      for (let r = nextRepetition(from); tag !== 'ISA' && r !== -1 && r < next; r = nextRepetition(r + 1)) {
        if (++repetitions > limits.maxRepetitions) {
          throw new X12LimitError('TOO_MANY_REPETITIONS', { name: 'x12.repetitions', max: limits.maxRepetitions }, { segment: tag, element: elementName(tag, index), ...at, message: `an element may repeat at most ${limits.maxRepetitions} times` });
        }
      }
      if (tag === 'HL' && index === 1) hlId = text.slice(from, next);
      else if (tag === 'HL' && index === 2) hlParent = text.slice(from, next);
      from = next + 1;
    }
    if (tag === 'HL') {
      if (++levels > limits.maxLevels) {
        throw new X12LimitError('TOO_MANY_LOOPS', { name: 'x12.hl_levels', max: limits.maxLevels }, { segment: 'HL', ...at, message: `an X12 ${limits.transaction} may have at most ${limits.maxLevels} hierarchical levels (HL)` });
      }
      // A parent that names no earlier level counts as the top; the hierarchy check reports it.
      const depth = (hlParent === '' ? 0 : (depths.get(hlParent) ?? 0)) + 1;
      if (depth > limits.maxDepth) {
        throw new X12LimitError('NESTING_TOO_DEEP', { name: 'x12.hl_depth', max: limits.maxDepth }, { segment: 'HL', element: 'HL02', ...at, message: `HL ${hlId} would be level ${depth} of its hierarchy; an X12 ${limits.transaction} nests at most ${limits.maxDepth} levels deep` });
      }
      depths.set(hlId, depth);
    }
    for (let i = 0; i < limits.loops.length; i++) {
      const loop = limits.loops[i]!;
      if (tag === loop.within) loopCounts[i] = 0;
      if (tag === loop.tag && ++loopCounts[i]! > loop.max) {
        const scope = loop.within === null ? `an X12 ${limits.transaction}` : loop.within === 'HL' ? 'one hierarchical level (HL)' : 'one claim (CLM)';
        throw new X12LimitError('TOO_MANY_LOOPS', { name: loop.name, max: loop.max }, { segment: loop.tag, ...at, message: `${scope} may have at most ${loop.max} ${loop.what} (loop ${loop.loop})` });
      }
    }
    start = stop + 1;
  }
}

const elementName = (tag: string, index: number): string => `${tag}${String(index).padStart(2, '0')}`;

/** Who sends and receives an interchange we write, and when. */
export interface Parties {
  senderQualifier: string;
  senderId: string;
  receiverQualifier: string;
  receiverId: string;
  usage: 'P' | 'T';
}

export interface TransactionToWrite {
  kind: TransactionKind;
  controlNumber: string;
  segments: Segment[];
}

const pad = (value: string, width: number): string => value.slice(0, width).padEnd(width, ' ');

/** CCYYMMDD and HHMM of a date in UTC. */
export function x12DateTime(at: Date): { date: string; time: string } {
  const iso = at.toISOString();
  return { date: iso.slice(0, 10).replaceAll('-', ''), time: iso.slice(11, 16).replace(':', '') };
}

/**
 * Write one interchange with one functional group of `transactions` (all of the same functional
 * group). node-x12 computes SE01, GE01 and IEA01 and copies the control numbers into the trailers.
 */
export function writeInterchange(parties: Parties, interchangeControlNumber: string, transactions: TransactionToWrite[], at: Date, options: { acknowledgmentRequested?: boolean; delimiters?: Delimiters } = {}): string {
  const d = options.delimiters ?? DEFAULT_DELIMITERS;
  const { date, time } = x12DateTime(at);
  const serialization = { elementDelimiter: d.element, segmentTerminator: d.segment, subElementDelimiter: d.component, repetitionDelimiter: d.repetition };
  const interchange = new X12Interchange(serialization);
  interchange.setHeader([
    '00',
    pad('', 10),
    '00',
    pad('', 10),
    parties.senderQualifier,
    pad(parties.senderId, 15),
    parties.receiverQualifier,
    pad(parties.receiverId, 15),
    date.slice(2),
    time,
    d.repetition,
    '00501',
    interchangeControlNumber.padStart(9, '0').slice(-9),
    options.acknowledgmentRequested ? '1' : '0',
    parties.usage,
    d.component,
  ]);
  if (transactions.length > 0) {
    const kind = transactions[0]!.kind;
    const group = interchange.addFunctionalGroup();
    const groupControl = String(Number(interchangeControlNumber) || 1);
    group.setHeader([kind.functionalId, parties.senderId, parties.receiverId, date, time, groupControl, 'X', kind.version]);
    for (const t of transactions) {
      const tx = group.addTransaction();
      tx.setHeader([t.kind.transactionSetId, t.controlNumber, t.kind.version]);
      for (const s of t.segments) tx.addSegment(s.tag, s.el);
    }
  }
  return interchange.toString();
}

/** Parties of an answer: the request's, swapped. */
export function replyParties(envelope: Envelope): Parties {
  return { senderQualifier: envelope.receiverQualifier, senderId: envelope.receiverId, receiverQualifier: envelope.senderQualifier, receiverId: envelope.senderId, usage: envelope.usage };
}

/** Segment helper: drops trailing empty elements, as X12 requires. */
export function seg(tag: string, ...elements: (string | number | undefined | null)[]): Segment {
  const values = elements.map((e) => (e === undefined || e === null ? '' : String(e)));
  while (values.length > 0 && values[values.length - 1] === '') values.pop();
  return { tag, el: values };
}

/** A tracker of required segments: collects issues that name the segment, element and position. */
export class SegmentChecks {
  readonly issues: X12Issue[] = [];

  require(condition: boolean, issue: X12Issue): boolean {
    if (!condition) this.issues.push(issue);
    return condition;
  }

  /** Element `n` of `segment` at `position` must be present. */
  element(segment: Segment, position: number, n: number, what: string): string {
    const value = el(segment, n);
    if (value.trim() === '') this.issues.push({ segment: segment.tag, element: `${segment.tag}${String(n).padStart(2, '0')}`, position, message: `${what} is required` });
    return value.trim();
  }

  /**
   * The HL hierarchy: HL01 numbers the levels 1, 2, 3 … in order, and HL02 names an earlier level
   * (empty only for the first).
   */
  hierarchy(segments: readonly Segment[]): void {
    const seen = new Set<string>();
    segments.forEach((s, i) => {
      if (s.tag !== 'HL') return;
      const position = i + 2;
      const id = el(s, 1);
      const expected = String(seen.size + 1);
      this.require(id === expected, { segment: 'HL', element: 'HL01', position, message: `hierarchical id number must be ${expected} (found ${id || 'nothing'})` });
      const parent = el(s, 2);
      if (seen.size === 0) this.require(parent === '', { segment: 'HL', element: 'HL02', position, message: 'the first level has no parent' });
      else this.require(seen.has(parent), { segment: 'HL', element: 'HL02', position, message: `hierarchical parent id ${parent || 'nothing'} names no earlier HL` });
      seen.add(id);
    });
  }

  done(): void {
    if (this.issues.length > 0) throw new X12Error(this.issues);
  }
}
