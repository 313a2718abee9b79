import { DomainError, type ErrorCode } from './errors.js';

/**
 * The size and complexity limits of every parser of partner input, declared once: the subgraphs
 * enforce them before the expensive work (an X12 interchange is scanned for them before a segment
 * is built), and the facade documents them on each route (the OpenAPI description) and refuses an
 * X12 body over its size before reading it. As with the rate limits (rate-limit/capabilities.ts), a
 * REST route and its GraphQL twin read the same numbers, so they cannot differ.
 *
 * Every refusal is a DomainError whose code names the kind of limit (413), whose message names the
 * limit, its value and the field, and whose `details.limit` is `{ name, max, field }` for programs.
 * Why each number is what it is: subgraphs/fhir/README.md, "Size and complexity limits".
 */

/** What a limit refusal carries in `details.limit` (problem+json member `limit`, GraphQL extension `limit`). */
export interface LimitDetail {
  /** The documented name of the limit, e.g. `x12.segments`, `bundle.entries`. */
  name: string;
  max: number;
  /** The input field (or X12 segment / element) that went over it. */
  field: string;
}

/** The codes of limit refusals; each is 413 Content Too Large. */
export type LimitCode = Extract<ErrorCode, 'PAYLOAD_TOO_LARGE' | 'TOO_MANY_SEGMENTS' | 'TOO_MANY_LOOPS' | 'NESTING_TOO_DEEP' | 'SEGMENT_TOO_LONG' | 'ELEMENT_TOO_LONG' | 'TOO_MANY_REPETITIONS'>;

/** A refusal for going over `limit`, naming it in the message, the field errors and `details.limit`. */
export function limitExceeded(code: LimitCode, limit: LimitDetail, message: string, fieldMessage: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, message, { fieldErrors: [{ field: limit.field, message: fieldMessage }], details: { ...details, limit: { name: limit.name, max: limit.max, field: limit.field } } });
}

// --- ASC X12 --------------------------------------------------------------------------------------

/** A loop that may repeat at most `max` times, counted anew at each `within` segment (null: in the whole transaction set). */
export interface X12LoopLimit {
  name: string;
  /** The segment that begins the loop (EQ, CLM, LX). */
  tag: string;
  /** The loop's id in the implementation guide, e.g. `2300`. */
  loop: string;
  what: string;
  max: number;
  within: 'HL' | 'CLM' | null;
}

/** The limits of reading one interchange of a transaction set. */
export interface X12Limits {
  /** The transaction as partners name it: `270`, `276`, `837P`. */
  transaction: string;
  /** UTF-8 bytes of the whole interchange (`x12.bytes`); also the route's body limit. */
  maxBytes: number;
  /** Segments from ISA to IEA (`x12.segments`). */
  maxSegments: number;
  /** Characters of one segment, its terminator not counted (`x12.segment_length`). */
  maxSegmentLength: number;
  /** Characters of one element, with its components and repetitions (`x12.element_length`). */
  maxElementLength: number;
  /** Values of one repeated element (`x12.repetitions`). */
  maxRepetitions: number;
  /** HL segments, the hierarchical levels (`x12.hl_levels`). */
  maxLevels: number;
  /** How deep HL levels nest, the first level being 1 (`x12.hl_depth`). */
  maxDepth: number;
  loops: readonly X12LoopLimit[];
}

const SEGMENT_AND_ELEMENT = { maxSegmentLength: 2048, maxElementLength: 512, maxRepetitions: 99 } as const;

/**
 * By transaction set id (ST01). The numbers come from the 005010 implementation guides where they
 * set one (loop repeats, hierarchy depth, element repeats, the 837's 5,000 claims) and otherwise
 * leave room of an order of magnitude above the largest real interchange of the kind we read.
 */
export const X12_LIMITS: Readonly<Record<'270' | '276' | '837', X12Limits>> = {
  '270': {
    transaction: '270',
    maxBytes: 100_000,
    maxSegments: 2_000,
    ...SEGMENT_AND_ELEMENT,
    maxLevels: 100,
    maxDepth: 4,
    loops: [{ name: 'x12.eq_per_level', tag: 'EQ', loop: '2110C', what: 'eligibility or benefit inquiries (EQ)', max: 99, within: 'HL' }],
  },
  '276': {
    transaction: '276',
    maxBytes: 100_000,
    maxSegments: 2_000,
    ...SEGMENT_AND_ELEMENT,
    maxLevels: 100,
    maxDepth: 5,
    loops: [],
  },
  '837': {
    transaction: '837P',
    maxBytes: 5_000_000,
    maxSegments: 200_000,
    ...SEGMENT_AND_ELEMENT,
    maxLevels: 15_000,
    maxDepth: 3,
    loops: [
      { name: 'x12.claims', tag: 'CLM', loop: '2300', what: 'claims (CLM)', max: 5_000, within: null },
      { name: 'x12.claims_per_level', tag: 'CLM', loop: '2300', what: 'claims (CLM)', max: 100, within: 'HL' },
      { name: 'x12.lines_per_claim', tag: 'LX', loop: '2400', what: 'service lines (LX)', max: 50, within: 'CLM' },
    ],
  },
};

const n = (value: number): string => value.toLocaleString('en-US');

/** The limits of one transaction as a sentence, for a route's description. */
export function describeX12Limits(limits: X12Limits): string {
  const loops = limits.loops.map((l) => `${n(l.max)} ${l.what} ${l.within === null ? 'in all' : l.within === 'HL' ? 'per HL level' : 'per claim'} (loop ${l.loop}, ${l.name})`);
  return [
    `An X12 ${limits.transaction} may be at most ${n(limits.maxBytes)} bytes (x12.bytes, PAYLOAD_TOO_LARGE)`,
    `${n(limits.maxSegments)} segments from ISA to IEA (x12.segments, TOO_MANY_SEGMENTS)`,
    `${n(limits.maxSegmentLength)} characters a segment (x12.segment_length, SEGMENT_TOO_LONG)`,
    `${n(limits.maxElementLength)} characters an element (x12.element_length, ELEMENT_TOO_LONG)`,
    `${n(limits.maxRepetitions)} repetitions of an element (x12.repetitions, TOO_MANY_REPETITIONS)`,
    `${n(limits.maxLevels)} HL levels (x12.hl_levels, TOO_MANY_LOOPS)`,
    `HL levels nested ${limits.maxDepth} deep (x12.hl_depth, NESTING_TOO_DEEP)`,
    ...(loops.length > 0 ? [`${loops.join(', ')} (TOO_MANY_LOOPS)`] : []),
  ].join('; ') + '; each refused with 413 before a segment is built';
}

// --- JSON and NDJSON ------------------------------------------------------------------------------

/** Entries of one transaction or batch Bundle, synchronous or asynchronous (`bundle.entries`). */
export const MAX_BUNDLE_ENTRIES = 1000;
/** Resources (non-blank lines) of one NDJSON push (`ndjson.lines`). */
export const MAX_NDJSON_LINES = 10_000;
/** Characters of one NDJSON line, i.e. one resource (`ndjson.line_length`). */
export const MAX_NDJSON_LINE_LENGTH = 1_048_576;
/** Readings of one wearable batch (`wearables.events`). */
export const MAX_WEARABLE_EVENTS = 1000;

/** The JSON forms of the clearinghouse transactions: each array at most what the X12 it becomes may hold. */
export const CLEARINGHOUSE_JSON_LIMITS = {
  /** `service_type_codes`: EQ01 repeats at most 99 times. */
  serviceTypeCodes: 99,
  /** `claims` of one JSON submission (larger batches go as X12). */
  claims: 100,
  /** `claims[].service_lines`: loop 2400 repeats at most 50 times. */
  serviceLines: 50,
  /** `claims[].diagnosis_codes`: one HI segment holds 12. */
  diagnosisCodes: 12,
  /** `claims[].service_lines[].modifiers`: SV101 has 4 modifier components. */
  modifiers: 4,
  /** Any text field: the longest X12 element it becomes (NM109, REF02 … are at most 80). */
  textLength: 80,
} as const;
