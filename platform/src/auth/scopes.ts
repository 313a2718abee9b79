/**
 * Scope matching. Every component that checks a scope (GraphQL auth, REST routes, FHIR, token
 * issuance) goes through {@link scopeSatisfies}, so there is exactly one definition of "covers".
 *
 * Three families of scope are understood:
 *
 * 1. `*` on its own: the operator credential; it covers every valid scope.
 * 2. Product scopes in dot notation: lowercase segments of `[a-z0-9_-]+` joined by dots, the last
 *    segment optionally `*` (`tefca.xcpd.search`, `tefca.*`). `a.*` covers `a.<one or more
 *    segments>` and any narrower-or-equal wildcard (`a.*`, `a.b.*`), but NOT bare `a`: a product
 *    wildcard delegates what is under a name, not the name itself. A concrete scope covers only
 *    itself, so `a.b` never satisfies a required `a.*`.
 * 3. SMART on FHIR resource scopes `context/Type.permissions[?query]`, with context
 *    `patient|user|system`, Type a FHIR resource type or `*`, and permissions either v1
 *    (`read`, `write`, `*`) or v2 (an ordered non-empty subset of `cruds`). v1 is normalised to
 *    v2: `read` = `rs`, `write` = `cud`, `*` = `cruds`. A `?param=value[&...]` filter is only
 *    allowed with v2 permissions.
 *
 * Anything else that is a plain token (`fhirUser`, `launch/patient`, `urn:x:y`) matches only
 * itself. Malformed scopes never match anything, not even under `*`, so a typo fails closed.
 */

type SmartContext = 'patient' | 'user' | 'system';

type ParsedScope =
  | { kind: 'all' }
  | { kind: 'dot'; segments: readonly string[]; wildcard: boolean }
  | { kind: 'smart'; context: SmartContext; resource: string; permissions: number; query: string | null }
  | { kind: 'opaque'; value: string };

const DOT_RE = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*(\.\*)?$/;
const SMART_RE = /^(patient|user|system)\/([A-Z][A-Za-z0-9]*|\*)\.(read|write|\*|[cruds]+)(?:\?(.*))?$/;
const SMART_V2_RE = /^c?r?u?d?s?$/;
const QUERY_PARAM = '[A-Za-z0-9_.:-]+=[^\\s&?#=]+';
const QUERY_RE = new RegExp(`^${QUERY_PARAM}(?:&${QUERY_PARAM})*$`);
const SMART_CONTEXT_PREFIX_RE = /^(patient|user|system)\//;
// Plain tokens may not contain `.` or `*`: those characters mean a dot or SMART scope was
// intended, and a malformed one must be rejected rather than silently matched as a literal.
const OPAQUE_RE = /^[A-Za-z][A-Za-z0-9_:/-]*$/;

const PERMISSION_BITS: Readonly<Record<string, number>> = { c: 1, r: 2, u: 4, d: 8, s: 16 };
const V1_PERMISSIONS: Readonly<Record<string, string>> = { read: 'rs', write: 'cud', '*': 'cruds' };

// What each context may stand in for: a system grant acts for any user or patient, a user grant
// for any patient that user may see, a patient grant only for that patient.
const CONTEXT_COVERS: Readonly<Record<SmartContext, readonly SmartContext[]>> = {
  system: ['system', 'user', 'patient'],
  user: ['user', 'patient'],
  patient: ['patient'],
};

function permissionMask(letters: string): number {
  let mask = 0;
  for (const letter of letters) mask |= PERMISSION_BITS[letter] ?? 0;
  return mask;
}

function parseSmart(scope: string): ParsedScope | null {
  const match = SMART_RE.exec(scope);
  if (!match) return null;
  const [, context, resource, permissions, query] = match;
  if (context === undefined || resource === undefined || permissions === undefined) return null;
  const v1 = V1_PERMISSIONS[permissions];
  if (v1 === undefined && !SMART_V2_RE.test(permissions)) return null;
  if (query !== undefined && (v1 !== undefined || !QUERY_RE.test(query))) return null;
  return {
    kind: 'smart',
    context: context as SmartContext,
    resource,
    permissions: permissionMask(v1 ?? permissions),
    query: query ?? null,
  };
}

/** Parsed scopes by text: a check compares every granted scope with each required one, per request. */
const parsedScopes = new Map<string, ParsedScope | null>();
const MAX_PARSED_SCOPES = 10_000;

function parseScope(scope: string): ParsedScope | null {
  if (scope.length > 256) return parseScopeText(scope);
  let parsed = parsedScopes.get(scope);
  if (parsed === undefined) {
    parsed = parseScopeText(scope);
    if (parsedScopes.size >= MAX_PARSED_SCOPES) parsedScopes.clear();
    parsedScopes.set(scope, parsed);
  }
  return parsed;
}

function parseScopeText(scope: string): ParsedScope | null {
  if (scope === '*') return { kind: 'all' };
  if (DOT_RE.test(scope)) {
    const segments = scope.split('.');
    const wildcard = segments[segments.length - 1] === '*';
    return { kind: 'dot', segments: wildcard ? segments.slice(0, -1) : segments, wildcard };
  }
  if (SMART_CONTEXT_PREFIX_RE.test(scope)) return parseSmart(scope);
  if (OPAQUE_RE.test(scope)) return { kind: 'opaque', value: scope };
  return null;
}

function startsWith(whole: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((segment, i) => whole[i] === segment);
}

function covers(granted: ParsedScope, required: ParsedScope): boolean {
  if (granted.kind === 'all') return true;
  if (required.kind === 'all') return false;

  if (granted.kind === 'dot' && required.kind === 'dot') {
    if (!granted.wildcard) {
      return !required.wildcard && granted.segments.join('.') === required.segments.join('.');
    }
    // `a.*` needs at least one segment after `a` for a concrete scope; a wildcard may be equal.
    const minLength = required.wildcard ? granted.segments.length : granted.segments.length + 1;
    return required.segments.length >= minLength && startsWith(required.segments, granted.segments);
  }

  if (granted.kind === 'smart' && required.kind === 'smart') {
    return (
      CONTEXT_COVERS[granted.context].includes(required.context) &&
      (granted.resource === '*' || granted.resource === required.resource) &&
      (granted.permissions & required.permissions) === required.permissions &&
      (granted.query === null || granted.query === required.query)
    );
  }

  return granted.kind === 'opaque' && required.kind === 'opaque' && granted.value === required.value;
}

/** True when `s` is a well-formed scope in one of the families described at the top of this file. */
export function isValidScope(s: string): boolean {
  return parseScope(s) !== null;
}

/**
 * True when holding `granted` is enough for an operation that requires `required`.
 * Returns false whenever either scope is malformed.
 */
export function scopeSatisfies(granted: string, required: string): boolean {
  const g = parseScope(granted);
  const r = parseScope(required);
  return g !== null && r !== null && covers(g, r);
}

/** True when any of the `granted` scopes covers `required`. */
export function hasScope(granted: readonly string[], required: string): boolean {
  const r = parseScope(required);
  if (r === null) return false;
  return granted.some((scope) => {
    const g = parseScope(scope);
    return g !== null && covers(g, r);
  });
}

/**
 * True when at least one of the `required` alternatives is covered by `granted`. Routes list
 * alternatives, e.g. a FHIR read accepts `cms.fhir.r4.read` or `patient/Patient.read`.
 * An empty `required` list is never satisfied, so a route cannot be opened by accident.
 */
export function hasAnyScope(granted: readonly string[], required: readonly string[]): boolean {
  return required.some((scope) => hasScope(granted, scope));
}

/**
 * The `requested` scopes that `held` does not cover, in request order; an empty array means the
 * request stays within what is held. Used so a newly issued token can never exceed the scopes of
 * the partner it is issued to. Malformed requested scopes are always reported.
 */
export function scopesWithin(requested: readonly string[], held: readonly string[]): string[] {
  return requested.filter((scope) => !hasScope(held, scope));
}

/**
 * Splits an OAuth `scope` parameter (space-separated) into scopes, dropping empty entries and
 * duplicates while keeping first-seen order. Scopes are not validated here; pair with
 * {@link isValidScope} so malformed input can be reported instead of silently dropped.
 */
export function parseScopeString(s: string): string[] {
  return [...new Set(s.split(/\s+/).filter((scope) => scope.length > 0))];
}
