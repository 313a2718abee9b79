import { randomUUID } from 'node:crypto';
import { LosslessNumber, isLosslessNumber, parse as losslessParse, stringify as losslessStringify } from 'lossless-json';
import { DomainError } from '@svc/platform';

/**
 * JSON with every number kept exactly as written. R4 makes a decimal's written precision significant
 * (`125.00` is not `125`), and integers beyond 2^53 or long decimals
 * (`0.1000000000000000055511151231257827`) do not survive a JavaScript number, so a resource's JSON
 * text is parsed here, not with `JSON.parse`:
 *
 * - a number whose JavaScript value writes back the same literal (`72`, `0.5`, `-3`) stays a plain
 *   `number`; any other (`125.00`, `1e2`, `-0`, `9007199254740993`) becomes an {@link ExactNumber}
 *   holding its literal, so most resources are plain JSON and the rest carry only a few objects;
 * - {@link stringifyExactJson} writes ExactNumbers back as their literal;
 * - {@link numericView} is the same value with every ExactNumber as a number, for the code that
 *   needs numbers (Medplum's validator, FHIRPath for the search index, GraphQL `Float`).
 *
 * Parsing uses `lossless-json` (MIT, no dependencies, ESM, runs on Node 20): a maintained,
 * spec-complete JSON parser that hands each number literal to a callback. `JSON.parse` with source
 * text access (`JSON.rawJSON`, the reviver's `context.source`) would do it natively but needs Node 21.
 * A text without any inexact number literal takes `JSON.parse` itself (the common case, and fast).
 */

/** A JSON number kept as its literal. Behaves as a number where JavaScript asks for one. */
export class ExactNumber extends LosslessNumber {
  override valueOf(): number {
    return Number(this.value);
  }

  /** Code that does not know this type and calls JSON.stringify gets the number (its precision lost, never an object). */
  toJSON(): number {
    return Number(this.value);
  }
}

export function isExactNumber(value: unknown): value is LosslessNumber {
  return isLosslessNumber(value);
}

/** A literal that a JavaScript number writes back identically stays a number. */
function parseNumber(literal: string): number | ExactNumber {
  const n = Number(literal);
  return String(n) === literal ? n : new ExactNumber(literal);
}

/**
 * Whether the text may hold a number literal that a JavaScript number would rewrite. A number token
 * in JSON follows `:`, `[` or `,` (and whitespace); a match inside a string only costs the slower
 * exact parse, never a wrong answer.
 */
const NUMBER_TOKEN = /[:,[]\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
function mayHaveInexactNumber(text: string): boolean {
  for (const m of text.matchAll(NUMBER_TOKEN)) {
    const literal = m[1]!;
    if (String(Number(literal)) !== literal) return true;
  }
  return false;
}

/**
 * Parse JSON text, keeping inexact number literals as ExactNumbers. Invalid JSON is a 400 naming
 * `field`. A repeated key keeps its last value, as `JSON.parse` does.
 */
export function parseExactJson(text: string, field: string): unknown {
  try {
    if (!mayHaveInexactNumber(text)) return JSON.parse(text) as unknown;
    return losslessParse(text, null, { parseNumber, onDuplicateKey: ({ newValue }) => newValue });
  } catch (err) {
    const reason = err instanceof Error ? err.message.slice(0, 200) : 'invalid JSON';
    throw new DomainError('BAD_REQUEST', `${field} is not valid JSON: ${reason}`, { fieldErrors: [{ field, message: 'is not valid JSON' }] });
  }
}

/** Does the value hold an ExactNumber anywhere? */
function holdsExact(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (isLosslessNumber(value)) return true;
  if (Array.isArray(value)) return value.some(holdsExact);
  for (const key in value) if (holdsExact((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** JSON text of a value, every ExactNumber written as its literal. */
export function stringifyExactJson(value: unknown): string {
  return holdsExact(value) ? (losslessStringify(value) as string) : JSON.stringify(value);
}

/** A deep copy with every ExactNumber replaced by `replace(it)`; the value itself when it holds none. */
function mapExact(value: unknown, replace: (n: LosslessNumber) => unknown): unknown {
  if (!holdsExact(value)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    if (isLosslessNumber(v)) return replace(v);
    if (Array.isArray(v)) return v.map(walk);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x);
    return out;
  };
  return walk(value);
}

/** The value with every ExactNumber as a JavaScript number (for validation, FHIRPath, GraphQL). */
export function numericView<T>(value: T): T {
  return mapExact(value, (n) => Number(n.value)) as T;
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
  const copies = values.map((v) => (holdsExact(v) ? mapExact(v, (n) => `${prefix}${n.value}`) : structuredClone(v))) as A;
  const result = work(...copies);
  const revive = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith(prefix) ? new ExactNumber(v.slice(prefix.length)) : v;
    if (typeof v !== 'object' || v === null) return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = revive(v[i]);
      return v;
    }
    for (const [k, x] of Object.entries(v)) (v as Record<string, unknown>)[k] = revive(x);
    return v;
  };
  return revive(result) as R;
}
