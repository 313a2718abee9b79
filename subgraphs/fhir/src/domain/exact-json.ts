import { randomUUID } from 'node:crypto';
import { DomainError, jsonStringEnd, MAX_JSON_DEPTH } from '@svc/platform';

/**
 * JSON with every number kept exactly as written. R4 makes a decimal's written precision significant
 * (`125.00` is not `125`), and integers beyond 2^53 or long decimals
 * (`0.1000000000000000055511151231257827`) do not survive a JavaScript number, so a resource's JSON
 * text is parsed here, not with a bare `JSON.parse`:
 *
 * - a number whose JavaScript value writes back the same literal (`72`, `0.5`, `-3`) stays a plain
 *   `number`; any other (`125.00`, `1e2`, `-0.0`, `9007199254740993`) becomes an {@link ExactNumber}
 *   holding its literal, so most resources are plain JSON and the rest carry a few objects;
 * - {@link stringifyExactJson} writes ExactNumbers back as their literal;
 * - {@link numericView} is the same value with every ExactNumber as a number, for the code that
 *   needs numbers (Medplum's validator, FHIRPath for the search index, GraphQL `Float` and `JSON`).
 *
 * How: a scan of the text (strings skipped) finds the number tokens that a JavaScript number would
 * rewrite; none (the common case) is a plain `JSON.parse`; otherwise each such token is replaced by
 * a string token carrying a per-call random nonce, the text is parsed by `JSON.parse`, and the
 * tokens become ExactNumbers. Writing is `JSON.stringify` with the reverse substitution. The JSON
 * grammar, its errors and duplicate keys stay V8's own, and speed stays native: the pure-JavaScript
 * lossless parsers (`lossless-json`, `json-bigint`) measured 20 to 40 times slower than `JSON.parse`
 * on the multi-megabyte Bundles a transaction carries. `JSON.parse` with source text access
 * (`JSON.rawJSON`, the reviver's `context.source`) would do this natively but needs Node 21.
 */

/** The nonce of the stringifyExactJson call running now (JSON.stringify is synchronous), else null. */
let writingNonce: string | null = null;

/** A JSON number kept as its literal. Behaves as a number where JavaScript asks for one. */
export class ExactNumber {
  constructor(readonly literal: string) {}

  valueOf(): number {
    return Number(this.literal);
  }

  /**
   * Inside {@link stringifyExactJson}, a token the output is rewritten from; for any other caller of
   * JSON.stringify the number (its precision lost, never an object).
   */
  toJSON(): number | string {
    return writingNonce === null ? Number(this.literal) : `\u0000${writingNonce}:${this.literal}`;
  }

  toString(): string {
    return this.literal;
  }
}

/** A JSON number token (RFC 8259), anchored. */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The [start, end) of each number token that a JavaScript number would not write back identically;
 * null when objects and arrays nest deeper than {@link MAX_JSON_DEPTH} (one scan for both). Only a
 * complete token in value position (after `:` `[` `,` or at the start, before `,` `]` `}` or the
 * end) counts: anything else is left for `JSON.parse` to refuse.
 */
function inexactNumbers(text: string): [number, number][] | null {
  const found: [number, number][] = [];
  let previous = -1; // the last non-space character outside a token, as a char code (-1: none)
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = jsonStringEnd(text, i);
      previous = 0x22;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return null;
      previous = c;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      previous = c;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      const end = m ? i + m[0].length : i + 1;
      let next = end;
      while (next < text.length && isSpace(text.charCodeAt(next))) next++;
      const after = next < text.length ? text.charCodeAt(next) : -1;
      const inValuePosition = previous === -1 || previous === 0x3a || previous === 0x5b || previous === 0x2c;
      const delimited = after === -1 || after === 0x2c || after === 0x5d || after === 0x7d;
      if (m && inValuePosition && delimited && String(Number(m[0])) !== m[0]) found.push([i, end]);
      i = end - 1;
      previous = 0x30;
    } else if (!isSpace(c)) previous = c;
  }
  return found;
}

/** Replace string tokens `<prefix><literal>` anywhere in a parsed value by ExactNumbers, in place. */
function reviveTokens(value: unknown, prefix: string): unknown {
  if (typeof value === 'string') return value.startsWith(prefix) ? new ExactNumber(value.slice(prefix.length)) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = reviveTokens(value[i], prefix);
    return value;
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) obj[key] = reviveTokens(obj[key], prefix);
  return value;
}

/**
 * Parse JSON text, keeping inexact number literals as ExactNumbers. Invalid JSON is a 400 naming
 * `field`. A repeated key keeps its last value, as `JSON.parse` does.
 */
export function parseExactJson(text: string, field: string): unknown {
  // JSON text in a GraphQL string (`resourceText`) is not seen by the HTTP layer's nesting check.
  const inexact = inexactNumbers(text);
  if (inexact === null) {
    throw new DomainError('BAD_REQUEST', `${field} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`, { fieldErrors: [{ field, message: `nested deeper than ${MAX_JSON_DEPTH} levels` }] });
  }
  try {
    if (inexact.length === 0) return JSON.parse(text) as unknown;
    const prefix = `\u0000${randomUUID()}:`;
    let rewritten = '';
    let from = 0;
    for (const [start, end] of inexact) {
      rewritten += `${text.slice(from, start)}"\\u0000${prefix.slice(1)}${text.slice(start, end)}"`;
      from = end;
    }
    rewritten += text.slice(from);
    return reviveTokens(JSON.parse(rewritten) as unknown, prefix);
  } catch (err) {
    const reason = (err instanceof Error ? err.message : 'invalid JSON').replace(/\u0000[0-9a-f-]{36}:/g, '').slice(0, 200);
    throw new DomainError('BAD_REQUEST', `${field} is not valid JSON: ${reason}`, { fieldErrors: [{ field, message: 'is not valid JSON' }] });
  }
}

/** Does the value hold an ExactNumber anywhere? */
function holdsExact(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof ExactNumber) return true;
  if (Array.isArray(value)) return value.some(holdsExact);
  for (const key in value) if (holdsExact((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** JSON text of a value, every ExactNumber written as its literal. */
export function stringifyExactJson(value: unknown): string {
  if (!holdsExact(value)) return JSON.stringify(value);
  const nonce = randomUUID();
  writingNonce = nonce;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    writingNonce = null;
  }
  return text.replaceAll(new RegExp(`"\\\\u0000${nonce}:([-+.0-9eE]+)"`, 'g'), '$1');
}

/** A deep copy with every ExactNumber replaced by `replace(it)`; the value itself when it holds none. */
function mapExact(value: unknown, replace: (n: ExactNumber) => unknown): unknown {
  if (!holdsExact(value)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    if (v instanceof ExactNumber) return replace(v);
    if (Array.isArray(v)) return v.map(walk);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x);
    return out;
  };
  return walk(value);
}

/** The value with every ExactNumber as a JavaScript number (for validation, FHIRPath, GraphQL). */
export function numericView<T>(value: T): T {
  return mapExact(value, (n) => Number(n.literal)) as T;
}

/**
 * Run `work` on copies of `values` in which each ExactNumber is an opaque string token, and turn the
 * tokens of its result back into ExactNumbers. For libraries that copy values by hand and would
 * turn an ExactNumber into a plain object (rfc6902's `clone`). The same literal gets the same token,
 * so equal literals compare equal; the token carries a per-call random nonce, so no string a client
 * sends can be mistaken for one.
 */
export function withExactNumbersAsTokens<A extends unknown[], R>(values: A, work: (...copies: A) => R): R {
  const prefix = `\u0000${randomUUID()}:`;
  const copies = values.map((v) => (holdsExact(v) ? mapExact(v, (n) => `${prefix}${n.literal}`) : structuredClone(v))) as A;
  return reviveTokens(work(...copies), prefix) as R;
}
