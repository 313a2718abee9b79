import { DomainError } from '@svc/platform';
import { definitions, enumeratedValueSet, isFhirResourceType, searchParametersOf } from './definitions.js';
import { dateRange, type DateRange } from './fhir-dates.js';
import { BUILT_IN_PARAMS, INDEXED_TYPES, indexedParams, type IndexTable } from './search-index.js';
import { decodeCursor, type PageCursor } from './search-cursor.js';
import { compositeComponents } from './composite-index.js';

export const PREFIXES = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'] as const;
export type Prefix = (typeof PREFIXES)[number];

/** One value of a criterion, already parsed for its parameter type. */
export type SearchValue =
  | { kind: 'string'; text: string }
  | { kind: 'token'; system: string | null | undefined; code: string | undefined }
  | { kind: 'date'; prefix: Prefix; range: DateRange }
  | { kind: 'number'; prefix: Prefix; value: number; precision: number }
  | { kind: 'quantity'; prefix: Prefix; value: number; precision: number; system: string | undefined; code: string | undefined }
  | { kind: 'reference'; type: string | undefined; id: string; raw: string }
  | { kind: 'uri'; value: string }
  /** `:in` / `:not-in`: the codes of an enumerated value set, by system. */
  | { kind: 'valueset'; url: string; codes: { system: string; code: string }[] }
  | { kind: 'missing'; missing: boolean }
  /** A composite parameter's `a$b`: one value per component, matched on the same indexed element. */
  | { kind: 'composite'; parts: SearchValue[] };

/** One `param[:modifier]=v1,v2` of the query: its values are alternatives (OR); criteria AND. */
export interface Criterion {
  param: string;
  table: IndexTable | '_id' | '_lastUpdated';
  modifier: string | undefined;
  values: SearchValue[];
  /**
   * Chaining (`subject:Patient.name=x`): a reference of `param` points at a resource of one of the
   * target types that matches that target's criterion. `values` is then empty.
   */
  chain?: { type: string; criterion: Criterion }[];
  /** Reverse chaining (`_has:Observation:patient:code=x`): a `sourceType` whose `param` refers here matches `criterion`. */
  has?: { sourceType: string; criterion: Criterion };
}

/** `_include` / `_revinclude`: `sourceType:param[:targetType]`, `:iterate` to follow included resources too. */
export interface IncludeSpec {
  sourceType: string;
  param: string;
  targetType: string | undefined;
  iterate: boolean;
}

export interface SortKey {
  param: string;
  table: IndexTable | '_id' | '_lastUpdated';
  descending: boolean;
}

export interface SearchRequest {
  resourceType: string;
  criteria: Criterion[];
  sort: SortKey[];
  count: number;
  offset: number;
  /** `_cursor`: the keyset position the page starts after (or, `prev`, ends before). */
  cursor: PageCursor | undefined;
  /** The `_sort` text as given ('' without one): cursors are bound to it. */
  sortText: string;
  /**
   * `_total`. Without one (and with `estimate`) the total is given when at most TOTAL_EXACT_LIMIT
   * resources match and left out beyond (FHIR leaves the default to the server); `accurate` counts
   * every match.
   */
  total: 'none' | 'estimate' | 'accurate' | 'bounded';
  summaryCount: boolean;
  /** _summary=true | text | data: which elements each resource keeps (see summary.ts). */
  summary: 'true' | 'text' | 'data' | undefined;
  elements: string[] | undefined;
  include: IncludeSpec[];
  revinclude: IncludeSpec[];
  /** The query the self link repeats: the recognised parameters, in order. */
  canonical: [string, string][];
  /** Parameters that were not understood and ignored (lenient handling). */
  ignored: string[];
}

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 1000;
/** Without `_total=accurate`, a search counts its matches up to this many (and gives no total beyond). */
export const TOTAL_EXACT_LIMIT = 1000;

/** Modifiers understood per parameter type. */
const MODIFIERS: Record<string, readonly string[]> = {
  string: ['exact', 'contains', 'missing'],
  token: ['not', 'text', 'missing', 'in', 'not-in'],
  date: ['missing'],
  number: ['missing'],
  quantity: ['missing'],
  reference: ['missing', 'identifier'],
  uri: ['below', 'above', 'missing'],
  composite: ['missing'],
  _id: ['not'],
  _lastUpdated: [],
};

function bad(param: string, message: string): DomainError {
  return new DomainError('BAD_REQUEST', `Search parameter ${param}: ${message}`, { fieldErrors: [{ field: param, message }] });
}

/** Split on commas not escaped with a backslash, unescaping `\,`, `\|`, `\$`, `\\`. */
function splitValues(raw: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\' && i + 1 < raw.length) {
      current += raw[++i];
    } else if (ch === ',') {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

function prefixed(raw: string): { prefix: Prefix; rest: string } {
  const p = raw.slice(0, 2) as Prefix;
  return (PREFIXES as readonly string[]).includes(p) && /^[a-z]{2}[\d-]/.test(raw) ? { prefix: p, rest: raw.slice(2) } : { prefix: 'eq', rest: raw };
}

function decimals(text: string): number {
  const m = /\.(\d+)$/.exec(text.split(/e/i)[0] ?? text);
  return m?.[1]?.length ?? 0;
}

function splitToken(raw: string): { system: string | null | undefined; code: string | undefined } {
  const bar = raw.indexOf('|');
  if (bar === -1) return { system: undefined, code: raw };
  const system = raw.slice(0, bar);
  const code = raw.slice(bar + 1);
  return { system: system === '' ? null : system, code: code === '' ? undefined : code };
}

function parseValue(param: string, table: Criterion['table'], modifier: string | undefined, raw: string): SearchValue {
  if (modifier === 'missing') {
    if (raw !== 'true' && raw !== 'false') throw bad(param, ':missing takes true or false');
    return { kind: 'missing', missing: raw === 'true' };
  }
  switch (table) {
    case '_id':
      return { kind: 'token', system: undefined, code: raw };
    case 'string':
      return { kind: 'string', text: raw };
    case 'token': {
      if (modifier === 'text') return { kind: 'string', text: raw };
      if (modifier === 'in' || modifier === 'not-in') {
        const set = enumeratedValueSet(raw);
        if (!set) throw bad(param, `${JSON.stringify(raw)} is not a value set this server can expand (only R4 value sets that enumerate their codes)`);
        return { kind: 'valueset', url: raw, codes: [...set].flatMap(([system, codes]) => [...codes].map((code) => ({ system, code }))) };
      }
      return { kind: 'token', ...splitToken(raw) };
    }
    case 'date':
    case '_lastUpdated': {
      const { prefix, rest } = prefixed(raw);
      const range = dateRange(rest);
      if (!range) throw bad(param, `${JSON.stringify(raw)} is not a FHIR date (YYYY, YYYY-MM, YYYY-MM-DD or a dateTime), optionally after a prefix ${PREFIXES.join(' ')}`);
      return { kind: 'date', prefix, range };
    }
    case 'number': {
      const { prefix, rest } = prefixed(raw);
      const value = Number(rest);
      if (rest === '' || !Number.isFinite(value)) throw bad(param, `${JSON.stringify(raw)} is not a number`);
      return { kind: 'number', prefix, value, precision: decimals(rest) };
    }
    case 'quantity': {
      const [num = '', system, code] = raw.split('|');
      const { prefix, rest } = prefixed(num);
      const value = Number(rest);
      if (rest === '' || !Number.isFinite(value)) throw bad(param, `${JSON.stringify(raw)} is not a quantity ([prefix]number[|system|code])`);
      return { kind: 'quantity', prefix, value, precision: decimals(rest), system: system || undefined, code: code || undefined };
    }
    case 'reference': {
      const m = /^(?:.*\/)?(?:([A-Z][A-Za-z]+)\/)?([A-Za-z0-9\-.]{1,64})$/.exec(raw);
      if (!m) throw bad(param, `${JSON.stringify(raw)} is not a reference ([Type/]id or a URL)`);
      const type = modifier && /^[A-Z]/.test(modifier) ? modifier : m[1];
      return { kind: 'reference', type, id: m[2]!, raw };
    }
    case 'uri':
      return { kind: 'uri', value: raw };
    case 'composite':
      throw bad(param, 'a composite value is parsed with its components');
  }
}

/** Split on `separator` where it is not escaped with a backslash, keeping escapes for the next split. */
function splitEscaped(raw: string, separator: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\' && i + 1 < raw.length) current += ch + raw[++i];
    else if (ch === separator) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

/** `token$quantity` (commas OR): each part parsed as its component's parameter type. */
function parseComposite(resourceType: string, key: string, code: string, value: string): SearchValue[] {
  const sp = searchParametersOf(resourceType)[code];
  const components = sp ? compositeComponents(sp) : null;
  if (!components) throw bad(key, 'is not a composite parameter this server indexes');
  return splitEscaped(value, ',').map((alternative) => {
    const parts = splitEscaped(alternative, '$');
    if (parts.length !== components.length) throw bad(key, `${JSON.stringify(alternative)} must have ${components.length} parts separated by $`);
    return { kind: 'composite', parts: parts.map((part, i) => parseValue(key, components[i]!.type, undefined, splitValues(part)[0] ?? '')) };
  });
}

function single(query: Record<string, string[]>, name: string): string | undefined {
  const v = query[name];
  if (!v || v.length === 0) return undefined;
  if (v.length > 1) throw bad(name, 'must be given once');
  return v[0];
}

function tableOf(resourceType: string, code: string): Criterion['table'] | undefined {
  if (code === '_id') return '_id';
  if (code === '_lastUpdated') return '_lastUpdated';
  if (BUILT_IN_PARAMS.has(code)) return undefined;
  const sp = searchParametersOf(resourceType)[code];
  if (!sp || !INDEXED_TYPES[sp.type] || !indexedParams(resourceType).some((p) => p.code === code)) return undefined;
  return INDEXED_TYPES[sp.type];
}

const RESULT_PARAMS = new Set(['_count', '_offset', '_cursor', '_sort', '_total', '_summary', '_elements', '_format', '_pretty', '_include', '_revinclude', '_include:iterate', '_revinclude:iterate']);

/** How deep chains and _has may nest (`a.b.c` is two levels). */
export const MAX_CHAIN_DEPTH = 2;

/** The resource types a reference parameter may point to (its SearchParameter.target). */
function referenceTargets(resourceType: string, code: string): string[] {
  const sp = searchParametersOf(resourceType)[code];
  return sp?.type === 'reference' ? (sp.target ?? []) : [];
}

/**
 * One `key=value` of the query as a criterion on `resourceType`; null when the key is not a
 * parameter this server supports (the caller ignores it or, strict, refuses it).
 */
function parseCriterion(resourceType: string, key: string, value: string, depth: number): Criterion | null {
  if (key.startsWith('_has:')) {
    // _has:Source:param:rest — `rest` is a criterion on Source (itself possibly chained or _has).
    const [, sourceType = '', refParam = '', ...restParts] = key.split(':');
    const rest = restParts.join(':');
    if (depth >= MAX_CHAIN_DEPTH || !rest || !isFhirResourceType(sourceType) || !referenceTargets(sourceType, refParam).includes(resourceType)) return null;
    const criterion = parseCriterion(sourceType, rest, value, depth + 1);
    return criterion ? { param: refParam, table: 'reference', modifier: undefined, values: [], has: { sourceType, criterion } } : null;
  }
  const dot = key.indexOf('.');
  if (dot > 0) {
    const [code = '', typeModifier] = key.slice(0, dot).split(':', 2);
    const rest = key.slice(dot + 1);
    const targets = referenceTargets(resourceType, code);
    if (depth >= MAX_CHAIN_DEPTH || targets.length === 0 || (typeModifier !== undefined && !targets.includes(typeModifier))) return null;
    const chain: { type: string; criterion: Criterion }[] = [];
    for (const type of typeModifier ? [typeModifier] : targets) {
      if (!isFhirResourceType(type)) continue;
      const criterion = parseCriterion(type, rest, value, depth + 1);
      if (criterion) chain.push({ type, criterion });
    }
    return chain.length > 0 ? { param: code, table: 'reference', modifier: typeModifier, values: [], chain } : null;
  }
  const [code = '', modifier] = key.split(':', 2);
  const table = tableOf(resourceType, code);
  const known = table !== undefined && (modifier === undefined || MODIFIERS[table]?.includes(modifier) || (table === 'reference' && /^[A-Z][A-Za-z]+$/.test(modifier)));
  if (!known) return null;
  if (table === 'reference' && modifier === 'identifier') {
    // Reference.identifier is indexed as a token under `param:identifier`.
    return { param: `${code}:identifier`, table: 'token', modifier: undefined, values: splitValues(value).map((v) => parseValue(key, 'token', undefined, v)) };
  }
  if (table === 'composite' && modifier !== 'missing') return { param: code, table, modifier, values: parseComposite(resourceType, key, code, value) };
  return { param: code, table, modifier, values: splitValues(value).map((v) => parseValue(key, table, modifier, v)) };
}

/** Why a key was not understood, for strict handling. */
function unknownReason(resourceType: string, key: string): string {
  if (key.startsWith('_has:')) return `${key} is not a supported reverse chain (_has:Type:reference-param:param, at most ${MAX_CHAIN_DEPTH} levels)`;
  if (key.includes('.')) return `${key} is not a supported chain (reference-param[:Type].param, at most ${MAX_CHAIN_DEPTH} levels)`;
  const [code = '', modifier] = key.split(':', 2);
  return tableOf(resourceType, code) === undefined ? `${resourceType} has no search parameter ${code} this server supports` : `modifier :${modifier} is not supported`;
}

/** `_include=*`: every indexed reference parameter of the searched type. */
function includeAll(resourceType: string): IncludeSpec[] {
  return indexedParams(resourceType)
    .filter((p) => p.type === 'reference')
    .map((p) => ({ sourceType: resourceType, param: p.code, targetType: undefined, iterate: false }));
}

const revincludeCache = new Map<string, IncludeSpec[]>();

/** `_revinclude=*`: every indexed reference parameter of any type whose targets include the searched type. */
function revincludeAll(resourceType: string): IncludeSpec[] {
  let specs = revincludeCache.get(resourceType);
  if (specs) return specs;
  specs = [];
  for (const sourceType of definitions().resourceTypes) {
    for (const p of indexedParams(sourceType)) {
      if (p.type === 'reference' && referenceTargets(sourceType, p.code).includes(resourceType)) specs.push({ sourceType, param: p.code, targetType: resourceType, iterate: false });
    }
  }
  revincludeCache.set(resourceType, specs);
  return specs;
}

function parseIncludes(resourceType: string, query: Record<string, string[]>, name: '_include' | '_revinclude', strict: boolean, canonical: [string, string][], ignored: string[]): IncludeSpec[] {
  const specs: IncludeSpec[] = [];
  for (const key of [name, `${name}:iterate`]) {
    for (const raw of query[key] ?? []) {
      if (raw === '*') {
        // Every reference parameter: of the searched type (_include), or of any type that may refer
        // to it (_revinclude). Not with :iterate, which would follow every reference of every type.
        if (key.endsWith(':iterate')) {
          if (strict) throw bad(key, '* is supported without :iterate only');
          ignored.push(key);
          continue;
        }
        specs.push(...(name === '_include' ? includeAll(resourceType) : revincludeAll(resourceType)));
        canonical.push([key, raw]);
        continue;
      }
      const [sourceType = '', param = '', targetType] = raw.split(':');
      const targets = isFhirResourceType(sourceType) ? referenceTargets(sourceType, param) : [];
      // _include names the matched type as source; _revinclude names the type that refers to the matches.
      const fits = targets.length > 0 && (targetType === undefined || targets.includes(targetType)) && (name === '_revinclude' || key.endsWith(':iterate') || sourceType === resourceType);
      if (!fits) {
        if (strict) throw bad(key, `${JSON.stringify(raw)} is not SourceType:reference-param[:TargetType]${name === '_include' ? ` with SourceType ${resourceType}` : ''}`);
        ignored.push(key);
        continue;
      }
      specs.push({ sourceType, param, targetType, iterate: key.endsWith(':iterate') });
      canonical.push([key, raw]);
    }
  }
  return specs;
}

/**
 * Parse a FHIR search query (`name[:modifier]=value[,value]`, repeated names AND, commas OR) into
 * criteria for the search tables. `strict` (Prefer: handling=strict) refuses unknown parameters
 * with 400; otherwise they are ignored and left out of the self link.
 */
export function parseSearchRequest(resourceType: string, query: Record<string, string[]>, strict: boolean): SearchRequest {
  const criteria: Criterion[] = [];
  const canonical: [string, string][] = [];
  const ignored: string[] = [];
  for (const [key, values] of Object.entries(query)) {
    if (RESULT_PARAMS.has(key)) continue;
    for (const value of values) {
      if (value === '') continue;
      const criterion = parseCriterion(resourceType, key, value, 0);
      if (!criterion) {
        if (strict) throw bad(key, unknownReason(resourceType, key));
        if (!ignored.includes(key)) ignored.push(key);
        continue;
      }
      criteria.push(criterion);
      canonical.push([key, value]);
    }
  }

  const sort: SortKey[] = [];
  const sortParam = single(query, '_sort');
  if (sortParam) {
    for (const raw of sortParam.split(',')) {
      const descending = raw.startsWith('-');
      const param = descending ? raw.slice(1) : raw;
      const table = tableOf(resourceType, param);
      if (!table || table === 'composite') throw bad('_sort', `${resourceType} cannot be sorted by ${param}`);
      sort.push({ param, table, descending });
    }
    canonical.push(['_sort', sortParam]);
  }

  const countText = single(query, '_count');
  const count = countText === undefined ? DEFAULT_COUNT : Number(countText);
  if (!Number.isInteger(count) || count < 0 || count > MAX_COUNT) throw bad('_count', `must be an integer from 0 to ${MAX_COUNT}`);
  const offsetText = single(query, '_offset');
  const offset = offsetText === undefined ? 0 : Number(offsetText);
  if (!Number.isInteger(offset) || offset < 0) throw bad('_offset', 'must be a non-negative integer');
  const cursorText = single(query, '_cursor');
  if (cursorText !== undefined && offsetText !== undefined) throw bad('_cursor', 'cannot be combined with _offset');
  const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText, sortParam ?? '', sort.length);

  const totalGiven = single(query, '_total');
  if (totalGiven !== undefined && !['none', 'estimate', 'accurate'].includes(totalGiven)) throw bad('_total', 'must be none, estimate or accurate');
  if (totalGiven !== undefined) canonical.push(['_total', totalGiven]);
  const totalText = totalGiven === undefined || totalGiven === 'estimate' ? 'bounded' : totalGiven;

  const summary = single(query, '_summary');
  const SUMMARIES = ['count', 'true', 'text', 'data', 'false'];
  if (summary !== undefined && !SUMMARIES.includes(summary)) {
    if (strict) throw bad('_summary', `must be one of ${SUMMARIES.join(', ')}`);
    ignored.push('_summary');
  }
  if (summary !== undefined && summary !== 'false' && SUMMARIES.includes(summary)) canonical.push(['_summary', summary]);

  const elementsText = single(query, '_elements');
  const elements = elementsText ? elementsText.split(',').map((e) => e.trim()).filter(Boolean) : undefined;
  if (elementsText) canonical.push(['_elements', elementsText]);

  const include = parseIncludes(resourceType, query, '_include', strict, canonical, ignored);
  const revinclude = parseIncludes(resourceType, query, '_revinclude', strict, canonical, ignored);

  return {
    resourceType,
    criteria,
    sort,
    count,
    offset,
    cursor,
    sortText: sortParam ?? '',
    total: totalText as SearchRequest['total'],
    summaryCount: summary === 'count',
    summary: summary === 'true' || summary === 'text' || summary === 'data' ? summary : undefined,
    elements,
    include,
    revinclude,
    canonical,
    ignored,
  };
}
