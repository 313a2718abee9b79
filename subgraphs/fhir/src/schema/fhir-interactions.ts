import { DomainError, isSourceOrigin, type SubgraphBuilder, type SubgraphContext, type SubgraphServices } from '@svc/platform';
import { processBundle } from '../domain/bundle.js';
import { conditionalDelete, conditionalPatch, conditionalUpdate, patch } from '../domain/conditional-and-patch.js';
import { numericView, parseExactJson, stringifyExactJson } from '../domain/exact-json.js';
import { create, history, queryFromString, read, remove, requestCall, search, update, vread, type FhirCall, type FhirOutcome } from '../domain/interactions.js';
import { readEventLogOf } from './read-event-log.js';

const RESOURCE_ARG = 'The resource as JSON (or `resourceText`); a GraphQL JSON number cannot carry a decimal\'s written precision.';
const RESOURCE_TEXT_ARG = 'The resource as JSON text (or `resource`): every number literal is stored exactly as written (`125.00` stays `125.00`). The REST facade sends the request body here.';

/**
 * A write's body: `<name>` (a JSON value) or `<name>Text` (JSON text, numbers kept exactly as
 * written); exactly one of the two.
 */
function bodyOf(json: unknown, text: string | null | undefined, name: string): unknown {
  const hasJson = json !== null && json !== undefined;
  const hasText = text !== null && text !== undefined;
  if (hasJson === hasText) {
    throw new DomainError('BAD_REQUEST', `Give exactly one of ${name} and ${name}Text.`, { fieldErrors: [{ field: name, message: `exactly one of ${name} and ${name}Text is required` }] });
  }
  return hasText ? parseExactJson(text, `${name}Text`) : json;
}

/** The FHIR REST interactions as gateway operations; the REST facade's /fhir/R4 routes call these. */
export function defineFhirInteractions(builder: SubgraphBuilder, services: SubgraphServices) {
  const FhirResponse = builder.objectRef<FhirOutcome>('FhirResponse').implement({
    description: 'The outcome of a FHIR interaction: HTTP status, the resource or Bundle, and the headers REST answers with.',
    fields: (t) => ({
      status: t.exposeInt('status', { description: 'HTTP status of the interaction (200, 201, 204).' }),
      resource: t.field({
        type: 'JSONObject',
        nullable: true,
        description: 'The resource or Bundle (null for a delete) as a JSON value: numbers are JSON numbers, so a decimal\'s written precision (`125.00`) is not kept; `resourceText` keeps it.',
        resolve: (o) => (o.resource === null ? null : numericView(o.resource)),
      }),
      resourceText: t.string({
        nullable: true,
        description: 'The resource or Bundle (null for a delete) as JSON text, every number exactly as written (`125.00`, `1e2`, integers beyond 2^53). The REST facade sends this as the HTTP body.',
        resolve: (o) => o.text ?? (o.resource === null ? null : stringifyExactJson(o.resource)),
      }),
      etag: t.exposeString('etag', { nullable: true, description: 'W/"versionId" of the resource.' }),
      location: t.exposeString('location', { nullable: true, description: 'Absolute URL of this version (…/_history/n).' }),
      lastModified: t.exposeString('lastModified', { nullable: true, description: 'meta.lastUpdated as an HTTP-date.' }),
    }),
  });

  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const reads = readEventLogOf(services);
  const call = (ctx: SubgraphContext, source?: string | null): FhirCall => {
    if (source !== undefined && source !== null && !isSourceOrigin(source)) {
      throw new DomainError('INVALID_SOURCE_HEADER', 'The X-Svc-Source header must be one of the 8 source origins.', { details: { header: 'X-Svc-Source' } });
    }
    return requestCall(ctx, { principal: ctx.principal, requestId: ctx.requestId, source: source ?? null, fhirBase, reads });
  };
  /**
   * A write stages its events; publish them once committed. Reads and searches are not wrapped:
   * the read-event log hands the one event it commits to the relay itself, and most reads commit
   * none (they are counted into a window), so waking the relay after each was an empty outbox scan
   * per request.
   */
  const run = async (work: Promise<FhirOutcome>): Promise<FhirOutcome> => {
    const outcome = await work;
    services.publishCommitted();
    return outcome;
  };

  builder.queryFields((t) => ({
    fhirRead: t.field({
      type: FhirResponse,
      description: 'FHIR read: the current version of a resource (404 missing or not visible, 410 deleted; 304 for a conditional read of an unchanged resource).',
      authScopes: { authenticated: true },
      args: {
        resourceType: t.arg.string({ required: true }),
        id: t.arg.id({ required: true }),
        ifNoneMatch: t.arg.string({ description: 'If-None-Match: status 304 (no resource) when one of these ETags is the current version.' }),
        ifModifiedSince: t.arg.string({ description: 'If-Modified-Since (an HTTP-date): status 304 (no resource) when not changed since.' }),
      },
      resolve: (_r, a, ctx) => read(call(ctx), a.resourceType, String(a.id), { ifNoneMatch: a.ifNoneMatch ?? null, ifModifiedSince: a.ifModifiedSince ?? null }),
    }),
    fhirVread: t.field({
      type: FhirResponse,
      description: 'FHIR vread: one version of a resource.',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), id: t.arg.id({ required: true }), versionId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => vread(call(ctx), a.resourceType, String(a.id), String(a.versionId)),
    }),
    fhirHistory: t.field({
      type: FhirResponse,
      description: 'FHIR history of one resource (with id) or of a type: a history Bundle, newest first.',
      authScopes: { authenticated: true },
      args: {
        resourceType: t.arg.string({ required: true }),
        id: t.arg.id(),
        count: t.arg.int({ defaultValue: 20 }),
        offset: t.arg.int({ defaultValue: 0 }),
        since: t.arg.string(),
        cursor: t.arg.string({ description: "A history Bundle link's `_cursor` (keyset paging: stable while versions are written)." }),
      },
      resolve: (_r, a, ctx) =>
        history(call(ctx), {
          resourceType: a.resourceType,
          ...(a.id ? { id: String(a.id) } : {}),
          count: a.count ?? 20,
          offset: a.offset ?? 0,
          ...(a.since ? { since: a.since } : {}),
          ...(a.cursor != null ? { cursor: a.cursor } : {}),
        }),
    }),
    fhirSearch: t.field({
      type: FhirResponse,
      description: 'FHIR search: a searchset Bundle. `query` is the URL query string (name[:modifier]=value&…).',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), query: t.arg.string({ defaultValue: '' }), strict: t.arg.boolean({ defaultValue: false, description: 'Prefer: handling=strict' }) },
      resolve: (_r, a, ctx) => search(call(ctx), a.resourceType, queryFromString(a.query ?? ''), a.strict ?? false),
    }),
  }));

  builder.mutationFields((t) => ({
    fhirCreate: t.field({
      type: FhirResponse,
      description: 'FHIR create (201), or conditional create with ifNoneExist (200 with the match, 412 for several).',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), resource: t.arg({ type: 'JSONObject', description: RESOURCE_ARG }), resourceText: t.arg.string({ description: RESOURCE_TEXT_ARG }), ifNoneExist: t.arg.string(), source: t.arg.string() },
      resolve: (_r, a, ctx) => run(create(call(ctx, a.source), a.resourceType, bodyOf(a.resource, a.resourceText, 'resource'), { ifNoneExist: a.ifNoneExist ?? null })),
    }),
    fhirUpdate: t.field({
      type: FhirResponse,
      description: 'FHIR update: a new version (412 when ifMatch names another version; never creates).',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), id: t.arg.id({ required: true }), resource: t.arg({ type: 'JSONObject', description: RESOURCE_ARG }), resourceText: t.arg.string({ description: RESOURCE_TEXT_ARG }), ifMatch: t.arg.string(), source: t.arg.string() },
      resolve: (_r, a, ctx) => run(update(call(ctx, a.source), a.resourceType, String(a.id), bodyOf(a.resource, a.resourceText, 'resource'), a.ifMatch ?? null)),
    }),
    fhirBundle: t.field({
      type: FhirResponse,
      description:
        'POST [base]: a transaction Bundle (all or nothing, one database transaction; the first failing entry answers an OperationOutcome naming it) or a batch Bundle (entries independent), answered with a transaction-response or batch-response Bundle.',
      authScopes: { authenticated: true },
      args: {
        bundle: t.arg({ type: 'JSONObject', description: 'The Bundle as JSON (or `bundleText`).' }),
        bundleText: t.arg.string({ description: 'The Bundle as JSON text, numbers kept exactly as written (or `bundle`).' }),
        returnResources: t.arg.boolean({ defaultValue: true, description: 'false for Prefer: return=minimal' }),
        source: t.arg.string(),
      },
      resolve: (_r, a, ctx) => run(processBundle(call(ctx, a.source), bodyOf(a.bundle, a.bundleText, 'bundle'), { returnResources: a.returnResources ?? true })),
    }),
    fhirPatch: t.field({
      type: FhirResponse,
      description: 'FHIR patch with a JSON Patch (RFC 6902): of the resource `id`, or (conditional patch) of the one match of `query`.',
      authScopes: { authenticated: true },
      args: {
        resourceType: t.arg.string({ required: true }),
        id: t.arg.id(),
        query: t.arg.string({ description: 'Conditional patch: the search that must match exactly one resource.' }),
        patch: t.arg({ type: ['JSONObject'], description: 'The JSON Patch operations (or `patchText`).' }),
        patchText: t.arg.string({ description: 'The JSON Patch as JSON text, numbers kept exactly as written (or `patch`).' }),
        ifMatch: t.arg.string(),
        source: t.arg.string(),
      },
      resolve: (_r, a, ctx) =>
        run(
          a.id
            ? patch(call(ctx, a.source), a.resourceType, String(a.id), bodyOf(a.patch, a.patchText, 'patch'), a.ifMatch ?? null)
            : conditionalPatch(call(ctx, a.source), a.resourceType, a.query ?? '', bodyOf(a.patch, a.patchText, 'patch'), a.ifMatch ?? null),
        ),
    }),
    fhirConditionalUpdate: t.field({
      type: FhirResponse,
      description: 'FHIR conditional update (PUT [type]?query): no match creates (201), one match is updated, several are 412.',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), query: t.arg.string({ required: true }), resource: t.arg({ type: 'JSONObject', description: RESOURCE_ARG }), resourceText: t.arg.string({ description: RESOURCE_TEXT_ARG }), ifMatch: t.arg.string(), source: t.arg.string() },
      resolve: (_r, a, ctx) => run(conditionalUpdate(call(ctx, a.source), a.resourceType, a.query, bodyOf(a.resource, a.resourceText, 'resource'), a.ifMatch ?? null)),
    }),
    fhirConditionalDelete: t.field({
      type: FhirResponse,
      description: 'FHIR conditional delete (DELETE [type]?query, single): no match or one deleted is 204, several are 412.',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), query: t.arg.string({ required: true }), source: t.arg.string() },
      resolve: (_r, a, ctx) => run(conditionalDelete(call(ctx, a.source), a.resourceType, a.query)),
    }),
    fhirDelete: t.field({
      type: FhirResponse,
      description: 'FHIR delete (soft): a deleted version; reads answer 410 afterwards.',
      authScopes: { authenticated: true },
      args: { resourceType: t.arg.string({ required: true }), id: t.arg.id({ required: true }), source: t.arg.string() },
      resolve: (_r, a, ctx) => run(remove(call(ctx, a.source), a.resourceType, String(a.id))),
    }),
  }));
}
