import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { commitEvent, DomainError, insertEvents, makeEvent, newFhirResourceId, recordEvent, type EventEnvelope, type Principal, type SourceOrigin } from '@svc/platform';
import { inView, isCompartmentView, resourceStore, type NewResource, type StoredResource } from '../entities/resource-store.js';
import { patientCompartment } from './definitions.js';
import { readViewOf } from './sharing-rules.js';
import { runIncludes, runSearch } from '../entities/search-query.js';
import { summaryOf } from './summary.js';
import { assertMayPerform, assertWritableInCompartment, writeViewOf, type FhirInteraction } from './access.js';
import { extractSearchIndex } from './search-index.js';
import { parseSearchRequest, type SearchRequest } from './search-request.js';
import { decodeHistoryCursor, encodeCursor, encodeHistoryCursor, type RowPosition } from './search-cursor.js';
import { assertKnownType, assertResourceShape, validateFhirResource, type FhirResource } from './validation.js';
import { parseStoredResource, storedContentOf } from './stored-content.js';
import { identityRequestIfChanged, requestIdentityIfChanged } from './identity-link.js';
import { projectGpidOnText, withoutClientGpid } from './gpid-identifier.js';
import { serializeConditionalCreate } from './conditional-create-lock.js';
import type { ReadEventLog } from './read-events.js';

/**
 * The FHIR interactions as plain functions of (call, request) → outcome, free of GraphQL and HTTP:
 * the GraphQL fields call them and the REST facade maps their outcome to HTTP.
 */
export interface FhirCall {
  em: EntityManager;
  principal: Principal;
  requestId: string;
  /** The X-Svc-Source the write declared, if any. */
  source: SourceOrigin | null;
  /** `${SVC_PUBLIC_URL}/fhir/R4`, for fullUrl, Location and paging links. */
  fhirBase: string;
  /** Coalesces fhir.resource.read events (read-events.ts); without it every read commits its own. */
  reads?: ReadEventLog;
  /** Inside a transaction Bundle: creates are collected here and written together (see PendingCreates). */
  pending?: PendingCreates;
}

/** Calls made by {@link requestCall}: their request's query builder, read without forking `em`. */
const requestReads = new WeakMap<FhirCall, () => Knex>();

/**
 * A call for one request, whose `em` is the request's own, forked only when something asks for it:
 * a read by id needs none (its select goes through `request.knex`, which is `em`'s own query
 * builder once `em` exists, and the pool's before), and forking one per read (a unit of work, an
 * identity map) was about 4 % of a FHIR read's CPU. A copy of the call (`{ ...call, em: tx }`, a
 * transaction's) is a plain call: it reads through its own `em`.
 */
export function requestCall(request: { readonly em: EntityManager; readonly knex: Knex }, fields: Omit<FhirCall, 'em'>): FhirCall {
  const call: FhirCall = {
    ...fields,
    get em() {
      return request.em;
    },
  };
  requestReads.set(call, () => request.knex);
  return call;
}

/** What a call's selects go through: its request's query builder (see requestCall), else its `em`. */
function readerOf(call: FhirCall): Knex | EntityManager {
  return requestReads.get(call)?.() ?? call.em;
}

/**
 * The creates of a transaction Bundle, validated and indexed but not yet written: the Bundle writes
 * them with a few multi-row INSERTs (`flush`) before any entry that could read them runs and
 * before its transaction commits, instead of about 16 statements per resource.
 */
export class PendingCreates {
  private list: NewResource[] = [];
  private events: EventEnvelope[] = [];

  /** A create and its events (`fhir.resource.created`, and a Patient's identity request), in order. */
  add(resource: NewResource, ...events: EventEnvelope[]): void {
    this.list.push(resource);
    this.events.push(...events);
  }

  async flush(em: EntityManager): Promise<void> {
    const list = this.list;
    const events = this.events;
    this.list = [];
    this.events = [];
    await resourceStore.insertMany(em, list);
    await insertEvents(em, events);
  }
}

/** What an interaction answers: an HTTP status, the body (a resource or Bundle) and its headers. */
export interface FhirOutcome {
  status: number;
  resource: FhirResource | null;
  /** The resource's JSON text when it is a stored version's, served as it is stored. */
  text?: string;
  etag: string | null;
  location: string | null;
  lastModified: string | null;
  /** Search only: each match's keyset cursor (the page after it), for GraphQL connections. */
  cursors?: string[];
}

/** Ids this server accepts in URLs (the FHIR id grammar). */
const ID_RE = /^[A-Za-z0-9\-.]{1,64}$/;

export const etagOf = (versionId: number): string => `W/"${versionId}"`;

function assertId(id: string): void {
  if (!ID_RE.test(id)) throw new DomainError('BAD_REQUEST', `${JSON.stringify(id)} is not a FHIR id (1-64 of A-Z a-z 0-9 - .).`, { fieldErrors: [{ field: 'id', message: 'not a FHIR id' }] });
}

function notFound(type: string, id: string): DomainError {
  return new DomainError('NOT_FOUND', `${type}/${id} does not exist.`);
}

/** `written`: the resource just stored (what `stored.content` holds), so it need not be parsed back. */
function outcomeOf(call: FhirCall, stored: StoredResource, status: number, written?: FhirResource): FhirOutcome {
  const outcome = {
    status,
    etag: etagOf(stored.versionId),
    location: `${call.fhirBase}/${stored.resourceType}/${stored.id}/_history/${stored.versionId}`,
    lastModified: new Date(stored.lastUpdated).toUTCString(),
  };
  if (written || !stored.content) return { ...outcome, resource: written ?? null };
  // A read answers with the stored text itself; the resource is parsed only if something asks for it.
  // (A getter of the literal rather than one defined on the finished object: outcomeOf was about 2 % of a read's CPU.)
  const content = stored.content;
  let parsed: FhirResource | undefined;
  return {
    ...outcome,
    text: content,
    get resource(): FhirResource {
      return (parsed ??= parseStoredResource(content));
    },
  };
}

function prepare(call: FhirCall, interaction: FhirInteraction, resourceType: string): void {
  assertKnownType(resourceType);
  assertMayPerform(call.principal, interaction, resourceType);
}

/**
 * The current version, when it exists and is in the caller's view; another tenant's is a 404 too.
 * Reads use the read view (own resources plus what sharing rules give); writes only own resources.
 * With a SMART patient context both are narrowed to the patient's compartment: a resource outside
 * it is the same 404.
 */
export async function visibleCurrent(call: FhirCall, resourceType: string, id: string, mode: 'read' | 'write' = 'write'): Promise<StoredResource> {
  assertId(id);
  const stored = await resourceStore.current(readerOf(call), resourceType, id);
  if (!stored) throw notFound(resourceType, id);
  // The read view is the write view (the caller's own resources) widened by sharing rules: a
  // resource the write view holds needs no lookup of the rules.
  const own = writeViewOf(call.principal);
  const view = mode === 'write' || inView(own, stored.partnerGpid, resourceType) ? own : await readViewOf(call.em, call.principal);
  if (stored.deleted && isCompartmentView(view)) {
    if (!inView(view, stored.partnerGpid, resourceType) || !(await wasInCompartment(call.em, stored, view.patient))) throw notFound(resourceType, id);
    return stored;
  }
  if (!(await resourceStore.isVisible(readerOf(call), view, stored))) throw notFound(resourceType, id);
  return stored;
}

/**
 * Whether a deleted resource was in `Patient/{patient}`'s compartment, by its last version with
 * content (a deletion leaves no search-index rows to decide it by): a patient context gets 410 for
 * its own deleted resources and 404, like a missing one, for anyone else's.
 */
async function wasInCompartment(em: EntityManager, stored: StoredResource, patient: string): Promise<boolean> {
  if (stored.resourceType === 'Patient' && stored.id === patient) return true;
  const params = patientCompartment().get(stored.resourceType);
  if (!params || params.length === 0) return false;
  const last = stored.versionId > 1 ? await resourceStore.version(em, stored.resourceType, stored.id, stored.versionId - 1) : null;
  if (!last?.content) return false;
  const wanted = new Set(params);
  return extractSearchIndex(parseStoredResource(last.content)).reference.some((r) => wanted.has(r.param) && r.target_type === 'Patient' && r.target_id === patient);
}

export function writeEvent(call: FhirCall, em: EntityManager, type: 'created' | 'updated' | 'deleted', stored: StoredResource): void {
  recordEvent(em, resourceEvent(call, type, stored));
}

function resourceEvent(call: FhirCall, type: 'created' | 'updated' | 'deleted', stored: StoredResource): EventEnvelope {
  return makeEvent(`fhir.resource.${type}`, stored.partnerGpid, {
    event: `fhir.resource.${type}`,
    resource_type: stored.resourceType,
    resource_id: stored.id,
    version_id: String(stored.versionId),
    partner_gpid: stored.partnerGpid,
    source: call.source,
    request_id: call.requestId,
  });
}

/** Record fhir.resource.read (ids and counts only, never content) and commit it. */
async function readEvent(call: FhirCall, resourceType: string, interaction: 'read' | 'vread' | 'history' | 'search', status: number): Promise<void> {
  const principal = call.principal;
  const credentialId = principal.kind === 'partner' ? (principal.tokenId ?? principal.clientId ?? null) : null;
  if (call.reads) {
    await call.reads.record({ partnerGpid: principal.partnerGpid, resourceType, interaction, status, requestId: call.requestId, credentialId });
    return;
  }
  await commitEvent(
    call.em,
    makeEvent('fhir.resource.read', call.principal.partnerGpid, {
      event: 'fhir.resource.read',
      resource_type: resourceType,
      interaction,
      status,
      partner_gpid: call.principal.partnerGpid,
      request_id: call.requestId,
      ...(credentialId ? { credential_id: credentialId } : {}),
    }),
  );
}

/** A resource ready to store: server-assigned id and meta, validated. */
export function stamp(resource: FhirResource, id: string, versionId: number, lastUpdated: string): FhirResource {
  const meta = { ...(resource.meta ?? {}), versionId: String(versionId), lastUpdated };
  const { resourceType, id: _ignored, meta: _meta, ...rest } = resource;
  return { resourceType, id, meta, ...rest };
}

/** Conditional read (HTTP If-None-Match / If-Modified-Since), as FHIR's conditional read uses them. */
export interface ReadConditions {
  ifNoneMatch?: string | null;
  ifModifiedSince?: string | null;
}

/**
 * Whether the client's copy is current: If-None-Match (weak comparison of the ETags listed, or `*`)
 * decides when present, as RFC 9110 says; otherwise If-Modified-Since (an HTTP-date, compared at
 * the one-second resolution HTTP dates have). An unparsable If-Modified-Since is ignored (RFC 9110).
 */
function notModified(stored: StoredResource, conditions: ReadConditions): boolean {
  if (conditions.ifNoneMatch) {
    const tags = conditions.ifNoneMatch.split(',').map((tag) => tag.trim());
    return tags.some((tag) => tag === '*' || /^(?:W\/)?"(\d+)"$/.exec(tag)?.[1] === String(stored.versionId));
  }
  if (conditions.ifModifiedSince) {
    const since = Date.parse(conditions.ifModifiedSince);
    if (Number.isNaN(since)) return false;
    return Math.floor(Date.parse(stored.lastUpdated) / 1000) * 1000 <= since;
  }
  return false;
}

export async function read(call: FhirCall, resourceType: string, id: string, conditions: ReadConditions = {}): Promise<FhirOutcome> {
  prepare(call, 'read', resourceType);
  const stored = await visibleCurrent(call, resourceType, id, 'read');
  if (stored.deleted) throw new DomainError('GONE', `${resourceType}/${id} was deleted.`, { details: { version_id: stored.versionId } });
  if (notModified(stored, conditions)) {
    await readEvent(call, resourceType, 'read', 304);
    return outcomeOf(call, { ...stored, content: null }, 304);
  }
  await readEvent(call, resourceType, 'read', 200);
  return outcomeOf(call, stored, 200);
}

export async function vread(call: FhirCall, resourceType: string, id: string, versionId: string): Promise<FhirOutcome> {
  prepare(call, 'vread', resourceType);
  await visibleCurrent(call, resourceType, id, 'read');
  const vid = Number(versionId);
  const stored = Number.isInteger(vid) && vid > 0 ? await resourceStore.version(call.em, resourceType, id, vid) : null;
  if (!stored) throw new DomainError('NOT_FOUND', `${resourceType}/${id} has no version ${versionId}.`);
  if (stored.deleted) throw new DomainError('GONE', `Version ${versionId} of ${resourceType}/${id} is its deletion.`);
  await readEvent(call, resourceType, 'vread', 200);
  return outcomeOf(call, stored, 200);
}

export interface CreateOptions {
  /** If-None-Exist: a search query; create only when nothing matches. */
  ifNoneExist?: string | null;
  /** A server-assigned id chosen beforehand (a transaction Bundle rewrites references to it). */
  id?: string;
}

/** Run `work` in the caller's transaction when there is one (a transaction Bundle), else in a new one. */
export async function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.isInTransaction() ? work(em) : em.transactional(work);
}

/** The one resource a conditional query matches in the caller's view: null for none, 412 for several. */
export async function matchOne(call: FhirCall, resourceType: string, query: string, what: string): Promise<StoredResource | null> {
  assertMayPerform(call.principal, 'search', resourceType);
  const params = queryFromString(query);
  if (Object.keys(params).length === 0) throw new DomainError('BAD_REQUEST', `${what} must carry search parameters.`);
  const request = parseSearchRequest(resourceType, params, true);
  const found = await runSearch(call.em, { ...request, count: 2, offset: 0, cursor: undefined, total: 'none', sort: [] }, writeViewOf(call.principal));
  if (found.rows.length > 1) throw new DomainError('PRECONDITION_FAILED', `${what} matches more than one ${resourceType}.`);
  return found.rows[0] ?? null;
}

export async function create(call: FhirCall, resourceType: string, body: unknown, options: CreateOptions = {}): Promise<FhirOutcome> {
  prepare(call, 'create', resourceType);
  const input = assertResourceShape(body, resourceType);
  if (options.ifNoneExist) {
    // Search and insert in one transaction, serialized per condition (conditional-create-lock.ts).
    if (!call.em.isInTransaction()) return call.em.transactional((em) => create({ ...call, em }, resourceType, body, options));
    await serializeConditionalCreate(call.em, call.principal.partnerGpid, resourceType, options.ifNoneExist);
    const match = await matchOne(call, resourceType, options.ifNoneExist, 'If-None-Exist');
    if (match) return outcomeOf(call, match, 200);
  }
  const now = new Date().toISOString();
  const resource = stamp(withoutClientGpid(resourceType, input), options.id ?? newFhirResourceId(), 1, now);
  validateFhirResource(resource);
  const stored: StoredResource = { resourceType, id: resource.id!, versionId: 1, partnerGpid: call.principal.partnerGpid, lastUpdated: now, deleted: false, content: storedContentOf(resource) };
  const index = extractSearchIndex(resource);
  assertWritableInCompartment(call.principal, resourceType, stored.id, index.reference);
  if (call.pending) {
    const identityRequest = identityRequestIfChanged(call, stored, resource, null);
    call.pending.add({ stored, index }, resourceEvent(call, 'created', stored), ...(identityRequest ? [identityRequest] : []));
    return outcomeOf(call, stored, 201, resource);
  }
  await inTransaction(call.em, async (em) => {
    await resourceStore.insert(em, stored);
    await resourceStore.reindex(em, resourceType, stored.id, index);
    writeEvent(call, em, 'created', stored);
    requestIdentityIfChanged(call, em, stored, resource, null);
  });
  return outcomeOf(call, stored, 201, resource);
}

/** `W/"3"` or `"3"` → 3; anything else is a 400. */
function versionFromEtag(etag: string): number {
  const m = /^(?:W\/)?"(\d+)"$/.exec(etag.trim());
  if (!m) throw new DomainError('BAD_REQUEST', `If-Match must be an ETag such as W/"1" (got ${JSON.stringify(etag.slice(0, 40))}).`);
  return Number(m[1]);
}

/**
 * Attempts of an unconditional update or delete whose version was taken by a concurrent write:
 * each re-reads the current version. A conditional one (If-Match) is never retried: its version is the client's to choose.
 */
export const WRITE_ATTEMPTS = 3;

export async function update(call: FhirCall, resourceType: string, id: string, body: unknown, ifMatch: string | null = null): Promise<FhirOutcome> {
  prepare(call, 'update', resourceType);
  assertId(id);
  const input = assertResourceShape(body, resourceType);
  if (input.id !== id) {
    throw new DomainError('BAD_REQUEST', `The body's id must be ${id}, the id in the URL.`, { fieldErrors: [{ field: `${resourceType}.id`, message: `must equal the URL id ${id}` }] });
  }
  const expected = ifMatch === null ? null : versionFromEtag(ifMatch);
  for (let attempt = 1; ; attempt++) {
    const outcome = await tryUpdate(call, resourceType, id, input, expected);
    if (outcome) return outcome;
    if (expected !== null) throw new DomainError('PRECONDITION_FAILED', `${resourceType}/${id} was changed by another request after the version If-Match names.`);
    if (attempt >= WRITE_ATTEMPTS) throw new DomainError('CONFLICT', `${resourceType}/${id} was changed by other requests while this one wrote it; read it again and retry.`);
  }
}

/** One update on the current version; null when another write took that version first. */
async function tryUpdate(call: FhirCall, resourceType: string, id: string, input: FhirResource, expected: number | null): Promise<FhirOutcome | null> {
  // updateCreate is false: this server assigns ids, so PUT never creates (404 for an unknown id).
  const current = await visibleCurrent(call, resourceType, id);
  if (current.deleted) throw new DomainError('GONE', `${resourceType}/${id} was deleted; create a new resource instead.`);
  if (expected !== null && expected !== current.versionId) {
    throw new DomainError('PRECONDITION_FAILED', `${resourceType}/${id} is at version ${current.versionId}, not the version If-Match names.`, { details: { current_version: String(current.versionId) } });
  }
  const now = new Date().toISOString();
  const versionId = current.versionId + 1;
  // A Patient's current version as read, with its GPID link projected (the link is not content).
  const previous = current.content ? (JSON.parse(current.content) as FhirResource) : null;
  const resource = stamp(withoutClientGpid(resourceType, input), id, versionId, now);
  validateFhirResource(resource);
  const stored: StoredResource = { ...current, versionId, lastUpdated: now, deleted: false, content: storedContentOf(resource) };
  const index = extractSearchIndex(resource);
  assertWritableInCompartment(call.principal, resourceType, id, index.reference);
  const written = await inTransaction(call.em, async (em) => {
    if (!(await resourceStore.replace(em, stored, current.versionId))) return false;
    await resourceStore.reindex(em, resourceType, id, index);
    writeEvent(call, em, 'updated', stored);
    requestIdentityIfChanged(call, em, stored, resource, previous);
    return true;
  });
  if (!written) return null;
  // The answer shows the Patient's GPID link as it stood when this write read the current version.
  const linked = current.linkedGpid;
  return outcomeOf(call, linked === undefined || stored.content === null ? stored : { ...stored, content: projectGpidOnText(stored.content, linked) }, 200);
}

/** Soft delete: a new version marked deleted; reads then answer 410. Deleting again is a no-op. */
export async function remove(call: FhirCall, resourceType: string, id: string): Promise<FhirOutcome> {
  prepare(call, 'delete', resourceType);
  for (let attempt = 1; ; attempt++) {
    const current = await visibleCurrent(call, resourceType, id);
    if (current.deleted) return { status: 204, resource: null, etag: etagOf(current.versionId), location: null, lastModified: null };
    const now = new Date().toISOString();
    const stored: StoredResource = { ...current, versionId: current.versionId + 1, lastUpdated: now, deleted: true };
    const written = await inTransaction(call.em, async (em) => {
      if (!(await resourceStore.replace(em, stored, current.versionId))) return false;
      // History keeps no content for the deletion itself; earlier versions stay readable by vread.
      await resourceStore.clearVersionContent(em, resourceType, id, stored.versionId);
      await resourceStore.reindex(em, resourceType, id, null);
      writeEvent(call, em, 'deleted', stored);
      return true;
    });
    if (written) return { status: 204, resource: null, etag: etagOf(stored.versionId), location: null, lastModified: null };
    if (attempt >= WRITE_ATTEMPTS) throw new DomainError('CONFLICT', `${resourceType}/${id} was changed by other requests while this one deleted it; retry.`);
  }
}

/** `a=1&b=2&a=3` → { a: ['1','3'], b: ['2'] }; a map without a prototype, so `toString=` or `__proto__=` are plain names. */
export function queryFromString(query: string): Record<string, string[]> {
  const out = Object.create(null) as Record<string, string[]>;
  for (const [k, v] of new URLSearchParams(query.startsWith('?') ? query.slice(1) : query)) (out[k] ??= []).push(v);
  return out;
}

function linkUrl(base: string, params: [string, string][]): string {
  const q = new URLSearchParams(params).toString();
  return q ? `${base}?${q}` : base;
}

/** Keep only the requested top-level elements (and what every resource must keep), tagged SUBSETTED. */
function subset(resource: FhirResource, elements: string[]): FhirResource {
  const keep = new Set(['resourceType', 'id', 'meta', ...elements]);
  const out = Object.fromEntries(Object.entries(resource).filter(([k]) => keep.has(k))) as FhirResource;
  const meta = (out.meta ?? {}) as { tag?: unknown[] };
  out.meta = { ...meta, tag: [...(meta.tag ?? []), { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED' }] };
  return out;
}

export async function search(call: FhirCall, resourceType: string, query: Record<string, string[]>, strict: boolean): Promise<FhirOutcome> {
  prepare(call, 'search', resourceType);
  const request: SearchRequest = parseSearchRequest(resourceType, query, strict);
  const view = await readViewOf(call.em, call.principal);
  const { rows, positions, total, hasMore, hasPrevious } = await runSearch(call.em, request, view);
  const included = await runIncludes(call.em, request, rows, view);
  const base = `${call.fhirBase}/${resourceType}`;
  const withPaging = (paging: [string, string][]): [string, string][] => [...request.canonical, ['_count', String(request.count)], ...paging];
  const cursorAt = (position: RowPosition, direction: 'next' | 'prev'): [string, string][] => [['_cursor', encodeCursor(request.sortText, position, direction)]];
  // The self link repeats how this page was asked for; next/previous are keyset cursors anchored on
  // the page's last/first row, so they do not shift when resources are created, updated or deleted.
  const selfPaging: [string, string][] = request.cursor ? [['_cursor', encodeCursor(request.sortText, request.cursor, request.cursor.direction)]] : request.offset > 0 ? [['_offset', String(request.offset)]] : [];
  const link = [{ relation: 'self', url: linkUrl(base, withPaging(selfPaging)) }];
  if (!request.summaryCount) {
    link.push({ relation: 'first', url: linkUrl(base, withPaging([])) });
    const firstRow = positions[0];
    const lastRow = positions.at(-1);
    if (hasPrevious) {
      if (firstRow) link.push({ relation: 'previous', url: linkUrl(base, withPaging(cursorAt(firstRow, 'prev'))) });
      else if (request.cursor?.direction === 'next') link.push({ relation: 'previous', url: linkUrl(base, withPaging(cursorAt(request.cursor, 'prev'))) });
    }
    if (hasMore && lastRow) link.push({ relation: 'next', url: linkUrl(base, withPaging(cursorAt(lastRow, 'next'))) });
  }
  const bundle: FhirResource = {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(total === undefined ? {} : { total }),
    link,
    entry: [...rows.map((r) => ({ r, mode: 'match' })), ...included.map((r) => ({ r, mode: 'include' }))].map(({ r, mode }) => {
      const resource = parseStoredResource(r.content!);
      const shown = request.elements ? subset(resource, request.elements) : request.summary ? summaryOf(resource, request.summary) : resource;
      return { fullUrl: `${call.fhirBase}/${r.resourceType}/${r.id}`, resource: shown, search: { mode } };
    }),
  };
  await readEvent(call, resourceType, 'search', 200);
  return { status: 200, resource: bundle, etag: null, location: null, lastModified: null, cursors: positions.map((p) => encodeCursor(request.sortText, p, 'next')) };
}

export interface HistoryOptions {
  resourceType: string;
  id?: string;
  count: number;
  offset: number;
  since?: string;
  /** `_cursor` from a history Bundle's link (keyset paging). */
  cursor?: string;
}

/**
 * Instance or type history: every version, newest first, as a `history` Bundle. Its `next` and
 * `previous` links are keyset cursors anchored on the page's last (first) version, so a version
 * written meanwhile (always the newest) never shifts a later page: paging on sees exactly the
 * versions that were older than the page, and `previous` the ones newer than it, new ones included.
 */
export async function history(call: FhirCall, options: HistoryOptions): Promise<FhirOutcome> {
  prepare(call, 'history', options.resourceType);
  if (options.id) await visibleCurrent(call, options.resourceType, options.id, 'read');
  if (!Number.isInteger(options.count) || options.count < 1 || options.count > 1000) throw new DomainError('BAD_REQUEST', '_count must be from 1 to 1000.', { fieldErrors: [{ field: '_count', message: 'must be from 1 to 1000' }] });
  if (!Number.isInteger(options.offset) || options.offset < 0) throw new DomainError('BAD_REQUEST', '_offset must be a non-negative integer.', { fieldErrors: [{ field: '_offset', message: 'must be a non-negative integer' }] });
  if (options.cursor !== undefined && options.offset > 0) throw new DomainError('BAD_REQUEST', '_cursor and _offset cannot be combined.', { fieldErrors: [{ field: '_cursor', message: 'cannot be combined with _offset' }] });
  const cursor = options.cursor === undefined ? undefined : decodeHistoryCursor(options.cursor);
  const since = options.since ? new Date(options.since) : undefined;
  if (since && Number.isNaN(since.getTime())) throw new DomainError('BAD_REQUEST', '_since must be an instant.', { fieldErrors: [{ field: '_since', message: 'must be an instant' }] });
  const partner = await readViewOf(call.em, call.principal);
  const { rows, total, more } = await resourceStore.history(call.em, {
    resourceType: options.resourceType,
    ...(options.id ? { id: options.id } : {}),
    ...(partner === undefined ? {} : { partnerGpid: partner }),
    ...(since ? { since: since.toISOString() } : {}),
    offset: options.offset,
    limit: options.count,
    ...(cursor ? { cursor } : {}),
  });
  const base = options.id ? `${call.fhirBase}/${options.resourceType}/${options.id}/_history` : `${call.fhirBase}/${options.resourceType}/_history`;
  const params = (paging: [string, string][]): [string, string][] => [...(options.since ? [['_since', options.since] as [string, string]] : []), ['_count', String(options.count)], ...paging];
  const at = (r: StoredResource, direction: 'next' | 'prev'): [string, string][] => [['_cursor', encodeHistoryCursor(r, direction)]];
  const selfPaging: [string, string][] = options.cursor !== undefined ? [['_cursor', options.cursor]] : options.offset > 0 ? [['_offset', String(options.offset)]] : [];
  const link = [{ relation: 'self', url: linkUrl(base, params(selfPaging)) }];
  const upwards = cursor?.direction === 'prev';
  const hasNewer = upwards ? more : cursor !== undefined || options.offset > 0;
  const hasOlder = upwards ? true : more;
  const first = rows[0];
  const last = rows.at(-1);
  if (hasNewer) {
    if (first) link.push({ relation: 'previous', url: linkUrl(base, params(at(first, 'prev'))) });
    else if (cursor?.direction === 'next') link.push({ relation: 'previous', url: linkUrl(base, params([['_cursor', encodeHistoryCursor(cursor, 'prev')]])) });
  }
  if (hasOlder && last) link.push({ relation: 'next', url: linkUrl(base, params(at(last, 'next'))) });
  const bundle: FhirResource = {
    resourceType: 'Bundle',
    type: 'history',
    total,
    link,
    entry: rows.map((r) => {
      const url = `${r.resourceType}/${r.id}`;
      const response = { status: r.deleted ? '204 No Content' : r.versionId === 1 ? '201 Created' : '200 OK', etag: etagOf(r.versionId), lastModified: r.lastUpdated };
      return {
        fullUrl: `${call.fhirBase}/${url}`,
        ...(r.content && !r.deleted ? { resource: parseStoredResource(r.content) } : {}),
        request: { method: r.deleted ? 'DELETE' : r.versionId === 1 ? 'POST' : 'PUT', url: r.versionId === 1 ? r.resourceType : url },
        response,
      };
    }),
  };
  await readEvent(call, options.resourceType, 'history', 200);
  return { status: 200, resource: bundle, etag: null, location: null, lastModified: null };
}
