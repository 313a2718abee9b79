import { evalFhirPathTyped, getExpressionForResourceType, parseFhirPath, toTypedValue, type FhirPathAtom, type TypedValue } from '@medplum/core';
import type { SearchParameter } from '@medplum/fhirtypes';
import { searchParametersOf } from './definitions.js';
import { dateRange } from './fhir-dates.js';
import { numericView } from './exact-json.js';
import type { FhirResource } from './validation.js';
import { compositeComponents, compositeRows } from './composite-index.js';
import { compileJsonPath, type JsonPathReader } from './search-index-paths.js';
import { implicitCodeSystem, type ImplicitSystem } from './implicit-code-systems.js';

/** The search-index rows of one resource, by table. Values are already normalised for matching. */
export interface SearchIndexRows {
  string: { param: string; value: string; exact: string }[];
  token: { param: string; system: string | null; code: string | null; text: string | null }[];
  date: { param: string; low: string; high: string }[];
  number: { param: string; value: number }[];
  quantity: { param: string; value: number; system: string | null; code: string | null; unit: string | null }[];
  reference: { param: string; reference: string; target_type: string | null; target_id: string | null }[];
  uri: { param: string; value: string }[];
  /** Composite parameters: one row per combination of the components' cells (see composite-index.ts). */
  composite: ({ param: string } & CompositeCells)[];
}

/** The typed cells of one composite component, prefixed c0_ / c1_ / c2_ in the table. */
export interface ComponentCell {
  system: string | null;
  code: string | null;
  num: number | null;
  unit: string | null;
  low: string | null;
  high: string | null;
}

export type CompositeCells = { [K in `c${0 | 1 | 2}_${keyof ComponentCell}`]: ComponentCell[keyof ComponentCell] };

export type IndexTable = keyof SearchIndexRows;

/** Search parameter types this server indexes, and the table each lives in. */
export const INDEXED_TYPES: Readonly<Record<string, IndexTable>> = {
  string: 'string',
  token: 'token',
  date: 'date',
  number: 'number',
  quantity: 'quantity',
  reference: 'reference',
  uri: 'uri',
  composite: 'composite',
};

/** Parameters answered from the resources table itself, never indexed. */
export const BUILT_IN_PARAMS: ReadonlySet<string> = new Set(['_id', '_lastUpdated']);

/** Lowercase, accents removed, trimmed to the indexed width: how `string` parameters match. */
export function normalizeString(value: string): string {
  return value.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase().slice(0, 256);
}

const cut = (value: string | undefined | null, width = 256): string | null => (value === undefined || value === null ? null : value.slice(0, width));

interface CompiledParam {
  code: string;
  type: IndexTable;
  expression: FhirPathAtom;
  /** The same selection read straight from the JSON, when the expression is a plain path. */
  read: JsonPathReader | null;
  /** Token parameters on bound `code` elements: the system each code implicitly has (implicit-code-systems.ts). */
  implicit: ImplicitSystem | null;
}

const compiled = new Map<string, CompiledParam[]>();

/**
 * A composite's expression for one type: Medplum's getExpressionForResourceType drops a bare
 * `Observation` (the resource itself, as code-value-quantity selects it), so keep it here.
 */
function compositeExpression(resourceType: string, expression: string): string | undefined {
  const parts = expression.split(' | ').map((p) => p.trim()).filter((p) => p === resourceType || p.startsWith(`${resourceType}.`));
  return parts.length > 0 ? parts.join(' | ') : undefined;
}

/** The indexable search parameters of a type with their parsed FHIRPath expressions (cached). */
export function indexedParams(resourceType: string): CompiledParam[] {
  let list = compiled.get(resourceType);
  if (list) return list;
  list = [];
  for (const [code, sp] of Object.entries(searchParametersOf(resourceType)) as [string, SearchParameter][]) {
    const table = INDEXED_TYPES[sp.type];
    if (!table || BUILT_IN_PARAMS.has(code) || !sp.expression) continue;
    if (table === 'composite' && !compositeComponents(sp)) continue;
    const expression = table === 'composite' ? compositeExpression(resourceType, sp.expression) : getExpressionForResourceType(resourceType, sp.expression);
    if (!expression) continue;
    try {
      const implicit = table === 'token' ? implicitCodeSystem(resourceType, code) : null;
      list.push({ code, type: table, expression: parseFhirPath(expression), read: compileJsonPath(resourceType, expression), implicit });
    } catch {
      // An expression FHIRPath cannot parse is not indexed; the CapabilityStatement leaves it out.
    }
  }
  compiled.set(resourceType, list);
  return list;
}

export function strings(v: TypedValue): string[] {
  const value = v.value as Record<string, unknown> | string | number | boolean;
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  const out: string[] = [];
  const take = (x: unknown) => {
    if (typeof x === 'string') out.push(x);
    else if (Array.isArray(x)) x.forEach(take);
  };
  if (v.type === 'HumanName') ['text', 'family', 'given', 'prefix', 'suffix'].forEach((k) => take(value[k]));
  else if (v.type === 'Address') ['text', 'line', 'city', 'district', 'state', 'postalCode', 'country'].forEach((k) => take(value[k]));
  else Object.values(value).forEach(take);
  return out;
}

/** `implicit`: the system of a `code` element's codes, from its required value set (R4 search.html, token on `code`). */
export function addTokens(rows: SearchIndexRows['token'], param: string, v: TypedValue, implicit: ImplicitSystem | null = null): void {
  const value = v.value as Record<string, unknown> | string | number | boolean;
  const push = (system: unknown, code: unknown, text: unknown): void => {
    rows.push({ param, system: cut(typeof system === 'string' ? system : null), code: cut(typeof code === 'string' ? code : null), text: typeof text === 'string' ? normalizeString(text) : null });
  };
  if (typeof value === 'boolean' || typeof value === 'number') return push(null, String(value), null);
  if (typeof value === 'string') return push(v.type === 'code' && implicit ? implicit(value) : null, value, null);
  if (typeof value !== 'object' || value === null) return;
  switch (v.type) {
    case 'Coding':
      return push(value['system'], value['code'], value['display']);
    case 'CodeableConcept': {
      const codings = Array.isArray(value['coding']) ? (value['coding'] as Record<string, unknown>[]) : [];
      for (const c of codings) push(c['system'], c['code'], c['display'] ?? value['text']);
      if (codings.length === 0 && typeof value['text'] === 'string') push(null, null, value['text']);
      return;
    }
    case 'Identifier':
      return push(value['system'], value['value'], (value['type'] as Record<string, unknown> | undefined)?.['text']);
    case 'ContactPoint':
      return push(value['system'], value['value'], null);
    default:
      if (typeof value['code'] === 'string') push(value['system'], value['code'], value['display']);
  }
}

export function addDates(rows: SearchIndexRows['date'], param: string, v: TypedValue): void {
  const value = v.value as Record<string, unknown> | string;
  if (typeof value === 'string') {
    const r = dateRange(value);
    if (r) rows.push({ param, ...r });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (v.type === 'Period') {
    const start = typeof value['start'] === 'string' ? dateRange(value['start']) : null;
    const end = typeof value['end'] === 'string' ? dateRange(value['end']) : null;
    if (start || end) rows.push({ param, low: start?.low ?? '0001-01-01T00:00:00.000Z', high: end?.high ?? '9999-12-31T23:59:59.999Z' });
  } else if (v.type === 'Timing' && Array.isArray(value['event'])) {
    for (const e of value['event']) if (typeof e === 'string') addDates(rows, param, { type: 'dateTime', value: e });
  }
}

/** Rows past `from` that equal an earlier one are dropped (rows are flat: strings, numbers, nulls). */
function dropRepeatedRows(table: object[], from: number): void {
  const added = table.length - from;
  if (added < 2) return;
  // A union adds a few rows: comparing them pairwise costs less than serializing each.
  const seen = added > 16 ? new Set<string>() : null;
  let kept = from;
  for (let i = from; i < table.length; i++) {
    const row = table[i] as Record<string, unknown>;
    if (seen) {
      const key = JSON.stringify(row);
      if (seen.has(key)) continue;
      seen.add(key);
    } else if (keptBefore(table, from, kept, row)) continue;
    table[kept++] = row;
  }
  table.length = kept;
}

/** Whether one of `table[from..kept)` equals `row`. */
function keptBefore(table: object[], from: number, kept: number, row: Record<string, unknown>): boolean {
  for (let j = from; j < kept; j++) if (sameRow(table[j] as Record<string, unknown>, row)) return true;
  return false;
}

function sameRow(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (a[key] !== b[key] || !(key in b)) return false;
  return true;
}

export function addReference(rows: SearchIndexRows['reference'], param: string, v: TypedValue): void {
  const value = v.value as Record<string, unknown> | string;
  const raw = typeof value === 'string' ? value : typeof value?.['reference'] === 'string' ? (value['reference'] as string) : null;
  if (!raw || raw.startsWith('#')) return;
  const m = /(?:^|\/)([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]+)?$/.exec(raw);
  rows.push({ param, reference: raw.slice(0, 512), target_type: m?.[1] ?? null, target_id: m?.[2] ?? null });
}

/**
 * Evaluate every search parameter of the resource's type (FHIRPath from the official
 * SearchParameters; plain paths read straight from the JSON, see search-index-paths.ts, unless
 * `jsonPaths` is false) and turn the values into index rows. Composite parameters of two or three
 * components are indexed by composite-index.ts; special parameters are not indexed.
 */
export function extractSearchIndex(resource: FhirResource, options: { jsonPaths?: boolean } = {}): SearchIndexRows {
  const rows: SearchIndexRows = { string: [], token: [], date: [], number: [], quantity: [], reference: [], uri: [], composite: [] };
  // FHIRPath reads exact number literals (125.00) as the numbers they denote.
  const view = numericView(resource);
  const input = [toTypedValue(view)];
  const jsonPaths = options.jsonPaths ?? true;
  for (const p of indexedParams(resource.resourceType)) {
    let values: TypedValue[];
    const fromJson = jsonPaths && p.read !== null;
    try {
      values = fromJson ? p.read!(view) : evalFhirPathTyped(p.expression, input, {});
    } catch {
      continue;
    }
    const before = fromJson && p.read!.union ? rows[p.type].length : -1;
    for (const v of values) {
      if (v.value === undefined || v.value === null) continue;
      switch (p.type) {
        case 'string':
          for (const s of strings(v)) rows.string.push({ param: p.code, value: normalizeString(s), exact: s.slice(0, 1024) });
          break;
        case 'token':
          addTokens(rows.token, p.code, v, p.implicit);
          break;
        case 'date':
          addDates(rows.date, p.code, v);
          break;
        case 'number':
          if (typeof v.value === 'number') rows.number.push({ param: p.code, value: v.value });
          break;
        case 'quantity': {
          const q = v.value as Record<string, unknown>;
          if (typeof q['value'] === 'number') {
            const currency = v.type === 'Money' ? { system: 'urn:iso:std:iso:4217', code: cut(q['currency'] as string | undefined) } : null;
            rows.quantity.push({
              param: p.code,
              value: q['value'],
              system: currency?.system ?? cut(q['system'] as string | undefined),
              code: currency?.code ?? cut(q['code'] as string | undefined),
              unit: cut(q['unit'] as string | undefined),
            });
          }
          break;
        }
        case 'reference': {
          addReference(rows.reference, p.code, v);
          // Reference.identifier, for the :identifier modifier, as a token under `param:identifier`.
          const identifier = (v.value as Record<string, unknown>)['identifier'];
          if (typeof v.value === 'object' && identifier && typeof identifier === 'object') addTokens(rows.token, `${p.code}:identifier`, { type: 'Identifier', value: identifier });
          break;
        }
        case 'uri':
          if (typeof v.value === 'string') rows.uri.push({ param: p.code, value: v.value.slice(0, 512) });
          break;
        case 'composite':
          rows.composite.push(...compositeRows(p.code, searchParametersOf(resource.resourceType)[p.code], v, input[0]!, { jsonPaths }));
          break;
      }
    }
    // A union read from the JSON keeps each row once, as FHIRPath's union keeps each item once.
    if (before >= 0) dropRepeatedRows(rows[p.type] as object[], before);
  }
  return rows;
}
