import { randomUUID } from 'node:crypto';
import { DomainError, eventLoopSlices, hasAnyScope, limitExceeded, MAX_BUNDLE_ENTRIES, newFhirResourceId, operationOutcomeFor, type FieldError, type Principal } from '@svc/platform';
import { create, history, inTransaction, matchOne, PendingCreates, queryFromString, read, remove, search, update, vread, type FhirCall, type FhirOutcome } from './interactions.js';
import { isFhirResourceType } from './definitions.js';
import { conditionalDelete, conditionalPatch, conditionalUpdate, patch } from './conditional-and-patch.js';
import type { FhirResource } from './validation.js';
import { parseExactJson } from './exact-json.js';

/** The spec's bundle ingest scopes; each entry also needs its own interaction's scope. */
export const BUNDLE_SCOPES = ['cms.fhir.bundle.push', 'system/*.write'] as const;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The spec's processing order inside a transaction (http://hl7.org/fhir/R4/http.html#trules). */
const ORDER: Record<Method, number> = { DELETE: 0, POST: 1, PUT: 2, PATCH: 2, GET: 3 };

const REASON: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
};

/** One entry of a transaction or batch Bundle (or one line of an NDJSON push, as a POST or PUT). */
export interface Entry {
  index: number;
  method: Method;
  /** The request URL relative to the FHIR base, without a leading slash. */
  url: string;
  fullUrl: string | undefined;
  resource: FhirResource | undefined;
  ifNoneExist: string | undefined;
  ifMatch: string | undefined;
}

/** A failure of one entry, as a DomainError whose fields name the entry (Bundle.entry[i]…). */
export function entryError(index: number, err: unknown): DomainError {
  const at = `Bundle.entry[${index}]`;
  if (!(err instanceof DomainError)) return new DomainError('INTERNAL', `${at} could not be processed.`, { cause: err });
  const fieldErrors: FieldError[] =
    err.fieldErrors.length > 0
      ? err.fieldErrors.map((f) => ({ field: entryPath(index, f.field), message: f.message }))
      : [{ field: at, message: err.message }];
  return new DomainError(err.code, `${at}: ${err.message}`.slice(0, 2000), { fieldErrors, details: { ...err.details, entry: index } });
}

/** `Patient.gender` of entry 3 → `Bundle.entry[3].resource.gender`; other names stay under the entry. */
function entryPath(index: number, field: string): string {
  const at = `Bundle.entry[${index}]`;
  if (field.startsWith('Bundle.entry[')) return field;
  const m = /^([A-Z][A-Za-z]+)(\.|\[|$)(.*)$/.exec(field);
  if (m && isFhirResourceType(m[1]!)) return `${at}.resource${m[2] === '' ? '' : m[2] === '.' ? `.${m[3]}` : `[${m[3]}`}`;
  return field === '' ? at : `${at}.${field}`;
}

function bad(field: string, message: string): DomainError {
  return new DomainError('BAD_REQUEST', `${field}: ${message}`, { fieldErrors: [{ field, message }] });
}

/** Check the Bundle's shape and read its entries; 400 naming the first malformed element. */
export function parseBundle(body: unknown, fhirBase: string): { type: 'transaction' | 'batch'; entries: Entry[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || (body as Record<string, unknown>)['resourceType'] !== 'Bundle') {
    throw bad('Bundle.resourceType', 'the body must be a Bundle');
  }
  const bundle = body as Record<string, unknown>;
  const type = bundle['type'];
  if (type !== 'transaction' && type !== 'batch') throw bad('Bundle.type', `must be transaction or batch, got ${JSON.stringify(type ?? null)}`);
  const raw = bundle['entry'] ?? [];
  if (!Array.isArray(raw)) throw bad('Bundle.entry', 'must be an array');
  // `bundle.entries` (platform's payload-limits.ts), for transaction and batch, synchronous or not, before any entry is read.
  if (raw.length > MAX_BUNDLE_ENTRIES) {
    const message = `at most ${MAX_BUNDLE_ENTRIES} entries (got ${raw.length}; limit bundle.entries)`;
    throw limitExceeded('PAYLOAD_TOO_LARGE', { name: 'bundle.entries', max: MAX_BUNDLE_ENTRIES, field: 'Bundle.entry' }, `A Bundle may carry ${message}; send several Bundles.`, message);
  }
  const entries = raw.map((e: unknown, index): Entry => {
    const at = `Bundle.entry[${index}]`;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw bad(at, 'must be an object');
    const entry = e as Record<string, unknown>;
    const request = entry['request'] as Record<string, unknown> | undefined;
    if (typeof request !== 'object' || request === null) throw bad(`${at}.request`, 'is required in a transaction or batch');
    const method = request['method'];
    if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'PATCH' && method !== 'DELETE') throw bad(`${at}.request.method`, 'must be GET, POST, PUT, PATCH or DELETE');
    const rawUrl = request['url'];
    if (typeof rawUrl !== 'string' || rawUrl === '') throw bad(`${at}.request.url`, 'is required');
    let url: string = rawUrl;
    if (url.startsWith(`${fhirBase}/`)) url = url.slice(fhirBase.length + 1);
    url = url.replace(/^\/+/, '');
    const resource = entry['resource'];
    if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && (typeof resource !== 'object' || resource === null || Array.isArray(resource))) throw bad(`${at}.resource`, `is required for ${method}`);
    const fullUrl = typeof entry['fullUrl'] === 'string' ? entry['fullUrl'] : undefined;
    const str = (k: string) => (typeof request[k] === 'string' && request[k] !== '' ? (request[k] as string) : undefined);
    return { index, method, url, fullUrl, resource: resource as FhirResource | undefined, ifNoneExist: str('ifNoneExist'), ifMatch: str('ifMatch') };
  });
  return { type, entries };
}

/** `Patient`, `Patient/1`, `Patient/1/_history/2`, `Patient?x=y`: the parts of a request URL. */
function splitUrl(index: number, url: string): { type: string; id?: string; rest: string[]; query: string } {
  const [path = '', query = ''] = url.split('?', 2);
  const [type = '', id, ...rest] = path.split('/');
  if (!isFhirResourceType(type)) throw new DomainError('NOT_FOUND', `${type} is not an R4 resource type.`, { fieldErrors: [{ field: `Bundle.entry[${index}].request.url`, message: `unknown resource type ${JSON.stringify(type)}` }] });
  return { type, ...(id ? { id } : {}), rest, query };
}

/** Visit every `reference` string in a resource, in document order, letting `visit` replace it; `path` is FHIRPath-like. */
async function rewriteReferences(resource: FhirResource, root: string, visit: (reference: string, path: string) => Promise<string | undefined>): Promise<void> {
  const sites: ReferenceSite[] = [];
  collectReferences(resource, [], sites);
  for (const site of sites) {
    const path = root + site.at.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
    const replaced = await visit(site.holder['reference'] as string, path);
    if (replaced !== undefined) site.holder['reference'] = replaced;
  }
}

/** An object holding a `reference` string, and where it is (keys and array indexes from the resource). */
interface ReferenceSite {
  holder: Record<string, unknown>;
  at: (string | number)[];
}

function collectReferences(value: unknown, at: (string | number)[], sites: ReferenceSite[]): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] !== 'object' || value[i] === null) continue;
      at.push(i);
      collectReferences(value[i], at, sites);
      at.pop();
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    const v = obj[k];
    if (k === 'reference' && typeof v === 'string') sites.push({ holder: obj, at: [...at, k] });
    else if (typeof v === 'object' && v !== null) {
      at.push(k);
      collectReferences(v, at, sites);
      at.pop();
    }
  }
}

function responseEntry(call: FhirCall, outcome: FhirOutcome, returnResource: boolean): Record<string, unknown> {
  const location = outcome.location?.startsWith(`${call.fhirBase}/`) ? outcome.location.slice(call.fhirBase.length + 1) : outcome.location;
  const meta = outcome.resource?.meta as { lastUpdated?: string } | undefined;
  return {
    ...(outcome.resource && outcome.resource.resourceType !== 'Bundle' && outcome.resource.id ? { fullUrl: `${call.fhirBase}/${outcome.resource.resourceType}/${outcome.resource.id}` } : {}),
    ...(outcome.resource && (returnResource || outcome.resource.resourceType === 'Bundle') ? { resource: outcome.resource } : {}),
    response: {
      status: `${outcome.status} ${REASON[outcome.status] ?? ''}`.trim(),
      ...(location && (outcome.status === 201 || outcome.status === 200) && outcome.resource?.resourceType !== 'Bundle' ? { location } : {}),
      ...(outcome.etag ? { etag: outcome.etag } : {}),
      ...(meta?.lastUpdated ? { lastModified: meta.lastUpdated } : {}),
    },
  };
}

/** A PATCH entry's JSON Patch: a Binary resource of contentType application/json-patch+json. */
function patchOf(entry: Entry): unknown {
  const at = `Bundle.entry[${entry.index}].resource`;
  const binary = entry.resource as Record<string, unknown> | undefined;
  if (binary?.['resourceType'] !== 'Binary' || binary['contentType'] !== 'application/json-patch+json' || typeof binary['data'] !== 'string') {
    throw bad(at, 'a PATCH entry carries its JSON Patch as a Binary with contentType application/json-patch+json and base64 data');
  }
  return parseExactJson(Buffer.from(binary['data'], 'base64').toString('utf8'), `${at}.data`);
}

/**
 * A history entry's `_count`, `_offset`, `_since` and `_cursor`, as the REST route reads them
 * (`history` validates them: a bad value is a 400 naming the parameter).
 */
function historyPaging(query: string): { count: number; offset: number; since?: string; cursor?: string } {
  const params = new URLSearchParams(query);
  const int = (name: string, fallback: number) => {
    const raw = params.get(name);
    return raw === null ? fallback : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  };
  const since = params.get('_since');
  const cursor = params.get('_cursor');
  return { count: int('_count', 20), offset: int('_offset', 0), ...(since === null ? {} : { since }), ...(cursor === null ? {} : { cursor }) };
}

/** Run one entry's interaction (references already rewritten). */
async function perform(call: FhirCall, entry: Entry, assignedId: string | undefined): Promise<FhirOutcome> {
  const { type, id, rest, query } = splitUrl(entry.index, entry.url);
  switch (entry.method) {
    case 'POST':
      if (id) throw bad(`Bundle.entry[${entry.index}].request.url`, 'a POST names the type only (Patient), not an id');
      return create(call, type, entry.resource, { ifNoneExist: entry.ifNoneExist ?? null, ...(assignedId ? { id: assignedId } : {}) });
    case 'PUT':
      if (!id) return conditionalUpdate(call, type, query, entry.resource, entry.ifMatch ?? null);
      return update(call, type, id, entry.resource, entry.ifMatch ?? null);
    case 'PATCH': {
      const operations = patchOf(entry);
      return id ? patch(call, type, id, operations, entry.ifMatch ?? null) : conditionalPatch(call, type, query, operations, entry.ifMatch ?? null);
    }
    case 'DELETE':
      if (!id) return conditionalDelete(call, type, query);
      return remove(call, type, id);
    case 'GET':
      if (!id) return search(call, type, queryFromString(query), false);
      if (id === '_history') return history(call, { resourceType: type, ...historyPaging(query) });
      if (rest[0] === '_history' && rest[1]) return vread(call, type, id, rest[1]);
      if (rest[0] === '_history') return history(call, { resourceType: type, id, ...historyPaging(query) });
      return read(call, type, id);
  }
}

export function assertMayIngest(principal: Principal): void {
  if (!hasAnyScope(principal.scopes, [...BUNDLE_SCOPES])) {
    throw new DomainError('INSUFFICIENT_SCOPE', `Submitting a Bundle needs one of: ${BUNDLE_SCOPES.join(', ')} (and each entry's own interaction scope).`, { details: { required_scopes: [...BUNDLE_SCOPES] } });
  }
}

export interface BundleOptions {
  /** Prefer: return=minimal leaves resources out of the response entries. */
  returnResources: boolean;
}

/**
 * POST [base] with a transaction or batch Bundle.
 *
 * transaction: every entry in one database transaction, in the spec's order (DELETE, POST, PUT,
 * GET); POST entries get their ids first, so `urn:uuid:` (or any) fullUrls and conditional
 * references (`Patient?identifier=…`, exactly one match) are rewritten before anything is written.
 * The first failure rolls everything back and is answered as an OperationOutcome naming the entry.
 *
 * batch: each entry on its own (its own transaction); a failure is that entry's response, with an
 * OperationOutcome, and the others go on.
 */
export async function processBundle(call: FhirCall, body: unknown, options: BundleOptions): Promise<FhirOutcome> {
  assertMayIngest(call.principal);
  const { type, entries } = parseBundle(body, call.fhirBase);
  const responses: Record<string, unknown>[] = new Array(entries.length);
  // A Bundle of hundreds of entries is seconds of work: the rest of the process gets its turns.
  const slice = eventLoopSlices();

  if (type === 'batch') {
    for (const entry of entries) {
      await slice();
      try {
        responses[entry.index] = await runBatchEntry(call, entry, options.returnResources);
      } catch (err) {
        responses[entry.index] = batchFailureEntry(entryError(entry.index, err));
      }
    }
    return bundleOutcome('batch-response', responses);
  }

  await inTransaction(call.em, async (em) => {
    const tx: FhirCall = { ...call, em };
    // 1. Ids for every create, and conditional creates resolved, before anything is written.
    const targets = new Map<string, string>();
    const assigned = new Map<number, string>();
    const existing = new Set<number>();
    for (const entry of entries.filter((e) => e.method === 'POST')) {
      await slice();
      try {
        const { type: resourceType } = splitUrl(entry.index, entry.url);
        let target: string;
        const match = entry.ifNoneExist ? await matchOne(tx, resourceType, entry.ifNoneExist, 'ifNoneExist') : null;
        if (match) {
          existing.add(entry.index);
          target = `${resourceType}/${match.id}`;
        } else {
          const id = newFhirResourceId();
          assigned.set(entry.index, id);
          target = `${resourceType}/${id}`;
        }
        if (entry.fullUrl) targets.set(entry.fullUrl, target);
      } catch (err) {
        throw entryError(entry.index, err);
      }
    }
    // 2. References to those fullUrls, and conditional references, rewritten to Type/id.
    for (const entry of entries) {
      if (!entry.resource) continue;
      await slice();
      try {
        await rewriteReferences(entry.resource, entry.resource.resourceType, async (reference, path) => {
          const target = targets.get(reference);
          if (target) return target;
          if (reference.startsWith('urn:uuid:') || reference.startsWith('urn:oid:')) {
            throw new DomainError('NOT_FOUND', `${reference} is not the fullUrl of any entry of this Bundle.`, { fieldErrors: [{ field: path, message: `${reference} is not the fullUrl of any entry` }] });
          }
          return conditionalTarget(tx, reference, path);
        });
      } catch (err) {
        throw entryError(entry.index, err);
      }
    }
    // 3. The interactions, in the spec's order; response entries keep the request order.
    //    Plain creates (POST without ifNoneExist) are collected and written together; they are
    //    flushed before any other entry runs (it could search or read them) and at the end.
    const ordered = [...entries].sort((a, b) => ORDER[a.method] - ORDER[b.method] || a.index - b.index);
    const pending = new PendingCreates();
    const batched: FhirCall = { ...tx, pending };
    for (const entry of ordered) {
      await slice();
      try {
        const plainCreate = entry.method === 'POST' && !entry.ifNoneExist && !existing.has(entry.index);
        if (!plainCreate) await pending.flush(em);
        const outcome = existing.has(entry.index)
          ? await create(tx, splitUrl(entry.index, entry.url).type, entry.resource, { ifNoneExist: entry.ifNoneExist ?? null })
          : await perform(plainCreate ? batched : tx, entry, assigned.get(entry.index));
        responses[entry.index] = responseEntry(call, outcome, options.returnResources);
      } catch (err) {
        throw entryError(entry.index, err);
      }
    }
    await pending.flush(em);
  });
  return bundleOutcome('transaction-response', responses);
}

/**
 * One batch entry on its own: conditional references resolved (never other entries' fullUrls), the
 * interaction run in the caller's transaction when there is one. Throws the entry's failure.
 */
export async function runBatchEntry(call: FhirCall, entry: Entry, returnResources: boolean): Promise<Record<string, unknown>> {
  if (entry.resource) await rewriteReferences(entry.resource, entry.resource.resourceType, (reference, path) => conditionalTarget(call, reference, path));
  return responseEntry(call, await perform(call, entry, undefined), returnResources);
}

/** The response entry of a refused batch entry: its status and an OperationOutcome naming it. */
export function batchFailureEntry(failure: DomainError): Record<string, unknown> {
  return { response: { status: `${failure.status} ${REASON[failure.status] ?? ''}`.trim(), outcome: operationOutcomeFor(failure.code, failure.message, failure.fieldErrors) } };
}

/** The resource types a set of entries touches (its resources', or its URLs' for GET and DELETE), sorted. */
export function resourceTypesOf(entries: readonly Entry[]): string[] {
  const types = new Set<string>();
  for (const e of entries) {
    const type = e.resource?.resourceType === 'Binary' && e.method === 'PATCH' ? e.url.split(/[/?]/, 1)[0] : (e.resource?.resourceType ?? e.url.split(/[/?]/, 1)[0]);
    if (type && isFhirResourceType(type)) types.add(type);
  }
  return [...types].sort();
}

/** A conditional reference (`Type?query`) → `Type/id` of its one match; undefined when not conditional. */
async function conditionalTarget(call: FhirCall, reference: string, path: string): Promise<string | undefined> {
  const m = /^([A-Z][A-Za-z]+)\?(.+)$/.exec(reference);
  if (!m || !isFhirResourceType(m[1]!)) return undefined;
  try {
    const match = await matchOne(call, m[1]!, m[2]!, `The conditional reference ${reference}`);
    if (!match) throw new DomainError('PRECONDITION_FAILED', `The conditional reference ${reference} matches no resource.`);
    return `${m[1]}/${match.id}`;
  } catch (err) {
    if (err instanceof DomainError) throw new DomainError(err.code, err.message, { fieldErrors: [{ field: path, message: err.message }] });
    throw err;
  }
}

export function bundleOutcome(type: 'batch-response' | 'transaction-response', entry: Record<string, unknown>[]): FhirOutcome {
  return { status: 200, resource: { resourceType: 'Bundle', id: randomUUID(), type, entry }, etag: null, location: null, lastModified: null };
}
