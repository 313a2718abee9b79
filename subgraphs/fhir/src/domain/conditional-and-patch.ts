import { applyPatch, Pointer, type Operation } from 'rfc6902';
import { DomainError } from '@svc/platform';
import { assertMayPerform } from './access.js';
import { create, etagOf, matchOne, remove, update, visibleCurrent, WRITE_ATTEMPTS, type FhirCall, type FhirOutcome } from './interactions.js';
import { assertKnownType, type FhirResource } from './validation.js';
import { numericView, withExactNumbersAsTokens } from './exact-json.js';
import { parseStoredResource } from './stored-content.js';

/**
 * PATCH with JSON Patch (RFC 6902, `application/json-patch+json`) and the conditional interactions
 * (update, delete and patch addressed by a search instead of an id), built on the plain
 * interactions so they validate, version, index and record events the same way.
 */

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** The patch document as RFC 6902 operations; 400 naming the first malformed operation. */
function parsePatch(body: unknown): Operation[] {
  if (!Array.isArray(body)) throw new DomainError('BAD_REQUEST', 'A JSON Patch is an array of operations (application/json-patch+json).', { fieldErrors: [{ field: 'patch', message: 'must be an array of operations' }] });
  body.forEach((op: unknown, i) => {
    const o = op as Record<string, unknown> | null;
    const fail = (message: string) => new DomainError('BAD_REQUEST', `patch[${i}]: ${message}`, { fieldErrors: [{ field: `patch[${i}]`, message }] });
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw fail('must be an object');
    if (typeof o['op'] !== 'string' || !OPS.has(o['op'])) throw fail(`op must be one of ${[...OPS].join(', ')}`);
    if (typeof o['path'] !== 'string' || (o['path'] !== '' && !o['path'].startsWith('/'))) throw fail('path must be a JSON Pointer');
    if ((o['op'] === 'move' || o['op'] === 'copy') && typeof o['from'] !== 'string') throw fail('from must be a JSON Pointer');
    if ((o['op'] === 'add' || o['op'] === 'replace' || o['op'] === 'test') && !('value' in o)) throw fail('value is required');
  });
  return body as Operation[];
}

/** JSON equality as RFC 6902 `test` defines it: numbers by value (`125.00` equals `125`), objects whatever their key order. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Apply a patch to a copy of the resource; a failed `test` or a missing path is a 422 naming the
 * operation. Exact number literals (125.00) go through rfc6902 as opaque tokens (its clone would
 * flatten them), and `test` is checked here on the numbers they denote, as RFC 6902 compares.
 */
export function applyJsonPatch(resource: FhirResource, patchBody: unknown): FhirResource {
  const operations = parsePatch(patchBody);
  let current = resource;
  let pending: { index: number; op: Operation }[] = [];
  const fail = (index: number, message: string, reason: string) =>
    new DomainError('VALIDATION_ERROR', `patch[${index}] (${operations[index]!.op} ${operations[index]!.path}) cannot be applied: ${reason}`, { fieldErrors: [{ field: `patch[${index}]`, message }] });
  const flush = () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    let results: ReturnType<typeof applyPatch> = [];
    current = withExactNumbersAsTokens([current, batch.map((b) => b.op)] as [FhirResource, Operation[]], (target, ops) => {
      results = applyPatch(target, ops);
      return target;
    });
    const failed = results.findIndex((r) => r !== null);
    if (failed >= 0) throw fail(batch[failed]!.index, results[failed]!.message, results[failed]!.message);
  };
  operations.forEach((op, index) => {
    if (op.op !== 'test') {
      pending.push({ index, op });
      return;
    }
    flush();
    const { parent, value } = Pointer.fromJSON(op.path).evaluate(current);
    if (parent === undefined || value === undefined) throw fail(index, `Value required at path: ${op.path}`, `Value required at path: ${op.path}`);
    if (!jsonEqual(numericView(value), numericView(op.value))) throw fail(index, 'test failed', 'test failed');
  });
  flush();
  return current;
}

/**
 * PATCH [type]/[id]: the current version patched, then stored as a normal update of exactly that
 * version (If-Match honoured). Without If-Match, a write in between is patched again on the new
 * version, as an unconditional update is; it is never a lost update.
 */
export async function patch(call: FhirCall, resourceType: string, id: string, patchBody: unknown, ifMatch: string | null): Promise<FhirOutcome> {
  assertKnownType(resourceType);
  assertMayPerform(call.principal, 'update', resourceType);
  for (let attempt = 1; ; attempt++) {
    // The write view: own resources only, and within the patient compartment of a patient context.
    const current = await visibleCurrent(call, resourceType, id);
    if (current.deleted) throw new DomainError('GONE', `${resourceType}/${id} was deleted.`);
    const patched = applyJsonPatch(parseStoredResource(current.content!), patchBody);
    try {
      return await update(call, resourceType, id, patched, ifMatch ?? etagOf(current.versionId));
    } catch (err) {
      const raced = ifMatch === null && err instanceof DomainError && err.code === 'PRECONDITION_FAILED';
      if (!raced) throw err;
      if (attempt >= WRITE_ATTEMPTS) throw new DomainError('CONFLICT', `${resourceType}/${id} was changed by other requests while it was being patched; retry.`);
    }
  }
}

/**
 * PUT [type]?query: no match creates (server-assigned id), one match is updated (a body id must be
 * that match's), several are 412.
 */
export async function conditionalUpdate(call: FhirCall, resourceType: string, query: string, body: unknown, ifMatch: string | null): Promise<FhirOutcome> {
  assertKnownType(resourceType);
  const match = await matchOne(call, resourceType, query, 'The conditional update');
  const bodyId = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['id'] : undefined;
  if (!match) return create(call, resourceType, body);
  if (bodyId !== undefined && bodyId !== match.id) {
    throw new DomainError('BAD_REQUEST', `The body's id must be ${match.id}, the resource the condition matches.`, { fieldErrors: [{ field: `${resourceType}.id`, message: `must be ${match.id} or absent` }] });
  }
  return update(call, resourceType, match.id, { ...(body as Record<string, unknown>), id: match.id }, ifMatch);
}

/** DELETE [type]?query (conditionalDelete single): no match is 204, one is deleted, several are 412. */
export async function conditionalDelete(call: FhirCall, resourceType: string, query: string): Promise<FhirOutcome> {
  assertKnownType(resourceType);
  assertMayPerform(call.principal, 'delete', resourceType);
  const match = await matchOne(call, resourceType, query, 'The conditional delete');
  if (!match) return { status: 204, resource: null, etag: null, location: null, lastModified: null };
  return remove(call, resourceType, match.id);
}

/** PATCH [type]?query: the one match is patched; none is 404, several 412. */
export async function conditionalPatch(call: FhirCall, resourceType: string, query: string, patchBody: unknown, ifMatch: string | null): Promise<FhirOutcome> {
  assertKnownType(resourceType);
  const match = await matchOne(call, resourceType, query, 'The conditional patch');
  if (!match) throw new DomainError('NOT_FOUND', `No ${resourceType} matches the conditional patch.`);
  return patch(call, resourceType, match.id, patchBody, ifMatch);
}
