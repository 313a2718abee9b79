import { generateSync, type JsonSchema } from 'json-schema-faker';
import type { FuzzRequest } from './http.js';
import type { Operation, Schema } from './openapi.js';
import { Rng, seedOf } from './random.js';

/** Who a case speaks as. Every operation is tried with each, in turn. */
export type AuthMode = 'anonymous' | 'bad-token' | 'partner' | 'operator';
export const AUTH_MODES: readonly AuthMode[] = ['anonymous', 'bad-token', 'partner', 'operator'];

/** Real values found while setting up (GPIDs, token ids, document names), by field or parameter name. */
export type Dictionary = Record<string, string[]>;

export interface FuzzCase {
  /** `<operationId>#<index>`: with the run's seed, this names the case exactly. */
  id: string;
  operation: Operation;
  auth: AuthMode;
  /** Names of the hostile mutations applied; empty for a valid-looking case. */
  mutations: string[];
  /** Set by a mutation that sends its own Authorization header instead of the mode's. */
  authorization?: string;
  request: FuzzRequest;
}

/** A request being built: path parameters and query pairs are raw (already percent-encoded) text. */
interface Draft {
  method: string;
  pathParams: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  /** A JSON-like value serialised for the media type, or raw bytes sent as they are. */
  body?: { value: unknown } | { raw: Buffer };
  mediaType?: string;
  authorization?: string;
}

// ---------------------------------------------------------------------------------------------
// Valid-looking values

/** A value that conforms to `schema`, seeded; real ids from the dictionary where the names match. */
function conforming(schema: Schema, seed: number, rng: Rng, dictionary: Dictionary): unknown {
  const value = generateSync(schema as JsonSchema, { seed, optionalsProbability: 0.6, maxItems: 4, maxLength: 40, useExamplesValue: true, failOnInvalidTypes: false });
  return withKnownValues(value, rng, dictionary);
}

function known(name: string, rng: Rng, dictionary: Dictionary): string | undefined {
  const pool = dictionary[name] ?? (name.endsWith('gpid') ? dictionary['gpid'] : undefined);
  return pool && pool.length > 0 && rng.chance(0.7) ? rng.pick(pool) : undefined;
}

function withKnownValues(value: unknown, rng: Rng, dictionary: Dictionary): unknown {
  if (Array.isArray(value)) return value.map((item) => withKnownValues(item, rng, dictionary));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const replacement = typeof item === 'string' ? known(key, rng, dictionary) : undefined;
    out[key] = Array.isArray(item) && key.endsWith('gpids') ? item.map(() => known('gpid', rng, dictionary) ?? 'GPID-0') : replacement ?? withKnownValues(item, rng, dictionary);
  }
  return out;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

function validDraft(op: Operation, caseSeed: number, rng: Rng, dictionary: Dictionary): Draft {
  const draft: Draft = { method: op.method, pathParams: {}, query: [], headers: {} };
  op.parameters.forEach((parameter, index) => {
    const generated = () => valueText(conforming(parameter.schema, caseSeed + index + 1, rng, dictionary));
    if (parameter.in === 'path') {
      const value = known(parameter.name, rng, dictionary) ?? generated();
      draft.pathParams[parameter.name] = encodeURIComponent(value === '' ? 'x' : value);
    } else if (parameter.in === 'query' && (parameter.required || rng.chance(0.6))) {
      draft.query.push([parameter.name, encodeURIComponent(known(parameter.name, rng, dictionary) ?? generated())]);
    } else if (parameter.in === 'header' && (parameter.required || rng.chance(0.6))) {
      draft.headers[parameter.name] = generated().replace(/[^\x20-\x7e]/g, '');
    }
  });
  // Identity writes name their source system in a header the document describes in prose.
  if (op.path.startsWith('/api/identity/')) draft.headers['x-svc-source'] = rng.pick(dictionary['x-svc-source'] ?? ['cms']);
  if (op.body && (op.body.required || rng.chance(0.5))) {
    draft.body = { value: conforming(op.body.schema, caseSeed, rng, dictionary) };
    draft.mediaType = op.body.mediaType;
  }
  return draft;
}

// ---------------------------------------------------------------------------------------------
// Hostile mutations

interface Mutation {
  name: string;
  appliesTo(op: Operation): boolean;
  apply(draft: Draft, op: Operation, rng: Rng): void;
}

/** A placeholder string that serialisation swaps for raw bytes (a bare JSON token, invalid UTF-8). */
const RAW_MARK = '\u0001raw\u0001';

const hasBody = (op: Operation) => op.body !== undefined;
const hasPathParams = (op: Operation) => op.parameters.some((p) => p.in === 'path');
const always = () => true;

/** The body as an object to mutate, created from the schema's valid value when the draft has none. */
function bodyObject(draft: Draft): Record<string, unknown> {
  const current = draft.body && 'value' in draft.body ? draft.body.value : undefined;
  const object = isRecord(current) ? current : {};
  draft.body = { value: object };
  draft.mediaType ??= 'application/json';
  return object;
}

/** The name of a field to mutate: one the body has, one the schema knows, or a made-up one. */
function someField(object: Record<string, unknown>, op: Operation, rng: Rng): string {
  const names = [...Object.keys(object), ...Object.keys(propertiesOf(op.body?.schema ?? {}))];
  return names.length > 0 ? rng.pick(names) : 'value';
}

function propertiesOf(schema: Schema): Record<string, unknown> {
  const own = isRecord(schema['properties']) ? schema['properties'] : {};
  const branches = Array.isArray(schema['oneOf']) ? schema['oneOf'].filter(isRecord) : [];
  return Object.assign({}, ...branches.map((branch) => (isRecord(branch['properties']) ? branch['properties'] : {})), own);
}

function requiredOf(schema: Schema): string[] {
  const branches = Array.isArray(schema['oneOf']) ? schema['oneOf'].filter(isRecord) : [];
  return [...(Array.isArray(schema['required']) ? schema['required'] : []), ...branches.flatMap((b) => (Array.isArray(b['required']) ? b['required'] : []))].map(String);
}

function nestedText(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const WRONG_TYPES: readonly unknown[] = [0, -1, 1.5, true, false, [], {}, 'text', ['a', 1], { nested: { x: 1 } }];
const ODD_STRINGS: readonly string[] = [
  'søren.40@exämple.org', 'Ĳ名前🙂', '\u0000', 'a\u0000b', '\u202eevil', '\ud800', '\udfff\ud800', 'line\r\nbreak: yes', '\u0007\u001b[31mred', '\ufeffbom',
  'Ｃａｆé', 'e\u0301', "' OR '1'='1", '"}){__typename}', '${jndi:ldap://127.0.0.1/x}', '{{7*7}}', '../../etc/passwd', '%00', '\\', '',
];
const ODD_NUMBERS: readonly string[] = ['1e309', '-1e309', '-0', '1e-400', '9007199254740993', '-9007199254740993', '0.1e1', '1E2', 'NaN', 'Infinity', '"NaN"', '"1e309"', '"-0"', '-1', '0'];
const MALFORMED_JSON: readonly string[] = [
  '{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', '', ' ', 'null', 'undefined', '[', '"\\uZZZZ"', '{"a":"\\ud800"}', '\ufeff{}', '{"a":1}\u0000',
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"a":1,"a":2}', '[]', '123', '"text"', 'true', '{"a":01}', '{"a":.5}', '{"a":+1}',
];
const CONTENT_TYPES: readonly (string | null)[] = [
  null, 'text/plain', 'application/xml', 'multipart/form-data; boundary=xyz', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/JSON',
  'application/json;;', 'application/vnd.api+json', '*/*', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/json-patch+json',
  'application/fhir+json', 'application/merge-patch+json', 'text/html; charset=utf-8', 'application', ';', 'application/json; boundary=x; charset=utf-8',
];
const ODD_FORMS: readonly string[] = ['a=1&a=2', '%zz=1', '=', '&&&', 'grant_type=client_credentials&grant_type=password', 'a[b]=1&a[c]=2', 'x=%00', 'x=%ff%fe', `x=${'A'.repeat(20_000)}`, '+=+'];
const TRAVERSALS: readonly string[] = ['..', '.', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e%2f', '....%2F%2F', '..;', '%252e%252e%252f', '%2F', '..%5C..%5Cwindows', '.%00.'];
const ENCODINGS: readonly string[] = ['%00', 'a%00b', '%ff', '%C3%28', '%', '%zz', '%E2%80%AE', '%F0%9F%99%82', '%u0041', '+', '%20', "'", '%22', '%3Cscript%3E', '\u00c3\u00a9', '%C0%AE', '%EF%BF%BF', '%ED%A0%80'];
const METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH', 'MKCOL', 'LOCK', 'PURGE'];
const QUERY_NAMES: readonly string[] = ['cursor', 'after', 'first', 'limit', 'partner_gpid', 'token_id', 'product', 'status', 'reason', 'access_token'];
const QUERY_VALUES: readonly string[] = ['', '%00', '%ff', 'A'.repeat(10_000), '-1', '0', '1e309', 'NaN', 'null', '%5B%5D', '%7B%7D', 'true', '%E2%80%AE', 'AA', '..%2F'];
const AUTHORIZATIONS: readonly string[] = [
  'Bearer', 'Bearer ', 'Bearer  x y', 'Basic Zm9vOmJhcg==', 'Basic !!!', 'Basic', 'Token abc', `Bearer ${'A'.repeat(8_000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
  'Bearer eyJhbGciOiJIUzI1NiIsImtpZCI6Ii4uLy4uIn0.e30.AA', 'Bearer a.b.c', 'Bearer ....', 'Bearer \u00e9\u00e8', 'Bearer op_', 'Bearer tok_', 'bearer x', 'Bearer %00',
];

function replaceField(rng: Rng, op: Operation, draft: Draft, value: unknown): void {
  const object = bodyObject(draft);
  object[someField(object, op, rng)] = value;
}

const MUTATIONS: readonly Mutation[] = [
  { name: 'wrong-type', appliesTo: hasBody, apply: (d, op, rng) => replaceField(rng, op, d, rng.pick(WRONG_TYPES)) },
  {
    name: 'missing-required',
    appliesTo: hasBody,
    apply: (d, op, rng) => {
      const object = bodyObject(d);
      const required = requiredOf(op.body!.schema);
      const names = required.length > 0 ? required : Object.keys(object);
      for (const name of rng.chance(0.5) ? names : [rng.pick(names.length > 0 ? names : ['x'])]) delete object[name];
    },
  },
  {
    name: 'extra-field',
    appliesTo: always,
    apply: (d, _op, rng) => {
      const key = rng.pick(['unexpected', '__proto__', 'constructor', 'x'.repeat(1_000), 'ü', '', 'toString', 'hasOwnProperty']);
      Object.defineProperty(bodyObject(d), key, { value: rng.pick([...WRONG_TYPES, ...ODD_STRINGS]), enumerable: true, configurable: true, writable: true });
    },
  },
  {
    name: 'null',
    appliesTo: always,
    apply: (d, op, rng) => {
      if (rng.chance(0.3)) d.body = { value: null };
      else replaceField(rng, op, d, null);
      d.mediaType ??= 'application/json';
    },
  },
  { name: 'empty-string', appliesTo: hasBody, apply: (d, op, rng) => replaceField(rng, op, d, '') },
  { name: 'huge-string', appliesTo: always, apply: (d, op, rng) => replaceField(rng, op, d, 'A'.repeat(rng.pick([10_000, 300_000, 1_000_000]))) },
  {
    name: 'huge-array',
    appliesTo: always,
    apply: (d, op, rng) => {
      const items = Array.from({ length: rng.pick([1_000, 100_000]) }, (_, i) => (rng.chance(0.5) ? 'x' : i));
      if (rng.chance(0.3)) d.body = { value: items };
      else replaceField(rng, op, d, items);
      d.mediaType ??= 'application/json';
    },
  },
  {
    name: 'deep-nesting',
    appliesTo: always,
    apply: (d, op, rng) => {
      // Written as text: JSON.stringify itself would run out of stack at these depths.
      replaceField(rng, op, d, RAW_MARK);
      d.headers['x-raw'] = nestedText(rng.pick([64, 1_000, 10_000, 100_000]), rng.pick(['array', 'object'] as const));
    },
  },
  { name: 'odd-string', appliesTo: always, apply: (d, op, rng) => replaceField(rng, op, d, rng.pick(ODD_STRINGS)) },
  {
    name: 'invalid-utf8',
    appliesTo: always,
    apply: (d, op, rng) => {
      replaceField(rng, op, d, RAW_MARK);
      d.headers['x-raw'] = rng.pick(['"\xff\xfe"', '"\xc3\x28"', '"\xed\xa0\x80"', '"a\xc0\xafb"', '"\xf8\x88\x80\x80\x80"']);
    },
  },
  {
    name: 'odd-number',
    appliesTo: always,
    apply: (d, op, rng) => {
      replaceField(rng, op, d, RAW_MARK);
      d.headers['x-raw'] = rng.pick(ODD_NUMBERS);
    },
  },
  {
    name: 'malformed-json',
    appliesTo: always,
    apply: (d, op, rng) => {
      d.body = { raw: Buffer.from(rng.pick(MALFORMED_JSON)) };
      d.mediaType = rng.chance(0.7) || !op.body ? 'application/json' : op.body.mediaType;
    },
  },
  {
    name: 'content-type',
    appliesTo: always,
    apply: (d, _op, rng) => {
      bodyObject(d);
      const type = rng.pick(CONTENT_TYPES);
      d.mediaType = type ?? 'none';
    },
  },
  {
    name: 'form-body',
    appliesTo: always,
    apply: (d, op, rng) => {
      const current = d.body && 'value' in d.body ? d.body.value : {};
      const asForm = op.body?.mediaType !== 'application/x-www-form-urlencoded';
      d.body = { raw: Buffer.from(asForm && rng.chance(0.6) ? formText(current) : asForm ? rng.pick(ODD_FORMS) : JSON.stringify(current ?? {})) };
      d.mediaType = asForm || rng.chance(0.5) ? 'application/x-www-form-urlencoded' : 'application/json';
    },
  },
  {
    name: 'oversized-body',
    appliesTo: hasBody,
    apply: (d) => {
      d.body = { raw: Buffer.from(`{"a":"${'A'.repeat(5 * 1024 * 1024 + 10)}"}`) };
      d.mediaType = 'application/json';
    },
  },
  { name: 'path-traversal', appliesTo: hasPathParams, apply: (d, _op, rng) => setPathParam(d, rng, rng.pick(TRAVERSALS)) },
  { name: 'path-encoding', appliesTo: hasPathParams, apply: (d, _op, rng) => setPathParam(d, rng, rng.pick(ENCODINGS)) },
  { name: 'path-long', appliesTo: hasPathParams, apply: (d, _op, rng) => setPathParam(d, rng, 'a'.repeat(rng.pick([101, 1_000, 10_000]))) },
  {
    name: 'repeated-query',
    appliesTo: always,
    apply: (d, op, rng) => {
      const documented = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      const name = rng.pick(documented.length > 0 ? documented : QUERY_NAMES);
      d.query.push([name, 'a'], [name, rng.pick(['b', '', 'a'])]);
    },
  },
  {
    name: 'odd-query',
    appliesTo: always,
    apply: (d, op, rng) => {
      const documented = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      const name = rng.pick([...documented, ...QUERY_NAMES]);
      if (rng.chance(0.2)) d.query.push([rng.pick([`${name}[]`, `${name}[a]`, '', '%zz', '%00']), rng.pick(QUERY_VALUES)]);
      else d.query.push([name, rng.pick(QUERY_VALUES)]);
    },
  },
  { name: 'odd-method', appliesTo: always, apply: (d, op, rng) => (d.method = rng.pick(METHODS.filter((m) => m !== op.method))) },
  { name: 'odd-authorization', appliesTo: always, apply: (d, _op, rng) => (d.authorization = rng.pick(AUTHORIZATIONS)) },
  {
    name: 'odd-headers',
    appliesTo: always,
    apply: (d, op, rng) => {
      const header = rng.pick(['x-request-id', 'accept', 'x-forwarded-for', 'x-svc-source', 'if-none-match', 'accept-encoding', 'x-svc-principal']);
      const values: Record<string, readonly string[]> = {
        'x-request-id': ['', 'a'.repeat(500), '../../x', '\u00e9', '<script>', 'req id'],
        accept: ['application/xml', 'text/html', '*/*;q=0', 'application/fhir+xml', 'garbage', ''],
        'x-forwarded-for': ['not-an-ip', '999.1.1.1', '::1, 1.2.3.4', '', '127.0.0.1'.repeat(500)],
        'x-svc-source': ['', 'pulse', 'unknown', 'A'.repeat(1_000), 'pulse, provider', 'CMS'],
        'if-none-match': ['*', '"x"', 'W/"x"', 'A'.repeat(2_000)],
        'accept-encoding': ['gzip;q=2', 'br, zstd, unknown', 'identity;q=0', '*;q=0'],
        'x-svc-principal': ['eyJhbGciOiJIUzI1NiJ9.e30.AA', 'garbage', ''],
      };
      d.headers[header] = rng.pick(values[header]!);
      if (header === 'x-svc-source' && !op.path.startsWith('/api/identity/')) d.headers[header] = 'cms';
    },
  },
];

export const MUTATION_NAMES: readonly string[] = MUTATIONS.map((m) => m.name);

function setPathParam(d: Draft, rng: Rng, value: string): void {
  const names = Object.keys(d.pathParams);
  if (names.length > 0) d.pathParams[rng.pick(names)] = value;
}

function formText(value: unknown): string {
  const form = new URLSearchParams();
  for (const [key, item] of Object.entries(isRecord(value) ? value : { value })) {
    for (const one of Array.isArray(item) ? item : [item]) form.append(key, valueText(one));
  }
  return form.toString();
}

// ---------------------------------------------------------------------------------------------
// Serialisation

function serialise(draft: Draft): Buffer | undefined {
  if (!draft.body) return undefined;
  if ('raw' in draft.body) return draft.body.raw;
  const raw = draft.headers['x-raw'];
  if (draft.mediaType === 'application/x-www-form-urlencoded' && raw === undefined) return Buffer.from(formText(draft.body.value));
  const text = JSON.stringify(draft.body.value) ?? 'null';
  if (raw === undefined) return Buffer.from(text);
  // Swap the placeholder for raw bytes: a bare JSON token, or a string with invalid UTF-8 (latin1 keeps bytes as they are).
  const marker = JSON.stringify(RAW_MARK);
  const at = text.indexOf(marker);
  return at === -1 ? Buffer.from(text) : Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(raw, 'latin1'), Buffer.from(text.slice(at + marker.length))]);
}

function toRequest(op: Operation, draft: Draft): FuzzRequest {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => draft.pathParams[name] ?? 'x');
  const query = draft.query.map(([name, value]) => `${name}=${value}`).join('&');
  const body = serialise(draft);
  const { 'x-raw': _raw, ...headers } = draft.headers;
  if (body && draft.mediaType !== 'none') headers['content-type'] = draft.mediaType ?? 'application/json';
  return { method: draft.method, path: query ? `${path}?${query}` : path, headers, ...(body ? { body } : {}) };
}

/**
 * Case `index` of an operation: valid-looking for the first half of the indices, hostile (one or two
 * mutations) for the rest; the credential turns through every mode. Deterministic in (seed, index).
 */
export function generateCase(op: Operation, index: number, runSeed: number, casesPerOperation: number, dictionary: Dictionary): FuzzCase {
  const caseSeed = seedOf(runSeed, op.id, index);
  const rng = new Rng(caseSeed);
  const draft = validDraft(op, caseSeed, rng, dictionary);
  const mutations: string[] = [];
  if (index >= Math.ceil(casesPerOperation / 2)) {
    const applicable = MUTATIONS.filter((m) => m.appliesTo(op));
    const count = rng.chance(0.25) ? 2 : 1;
    for (let i = 0; i < count; i++) {
      const mutation = rng.pick(applicable);
      mutation.apply(draft, op, rng);
      mutations.push(mutation.name);
    }
  }
  return {
    id: `${op.id}#${index}`,
    operation: op,
    auth: AUTH_MODES[index % AUTH_MODES.length]!,
    mutations,
    ...(draft.authorization !== undefined ? { authorization: draft.authorization } : {}),
    request: toRequest(op, draft),
  };
}
