import { getDataType, OperationOutcomeError } from '@medplum/core';
import type { Coding, CodeableConcept, OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';
import { DomainError, type FieldError } from '@svc/platform';
import { definitions, enumeratedValueSet, isFhirResourceType } from './definitions.js';
import { numericView } from './exact-json.js';
import { validateStructure } from './structure-validator.js';
import { jsonRuleErrors } from './json-rules.js';

/**
 * At most this many issues in one refusal (the OperationOutcome of a huge broken resource stays
 * small); beyond it a last issue says how many more there were, at least.
 */
export const MAX_VALIDATION_ISSUES = 100;

/** The JSON of any FHIR resource as this server handles it. */
export type FhirResource = Record<string, unknown> & { resourceType: string; id?: string; meta?: Record<string, unknown> };

/**
 * Check that a request body is a resource of the expected type: 400 when it is not a FHIR resource
 * at all (not an object, no or another resourceType, an unknown type).
 */
export function assertResourceShape(body: unknown, expectedType: string): FhirResource {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('BAD_REQUEST', 'The body must be a FHIR resource (a JSON object).', { fieldErrors: [{ field: expectedType, message: 'a JSON object is required' }] });
  }
  const resourceType = (body as Record<string, unknown>)['resourceType'];
  if (resourceType !== expectedType) {
    throw new DomainError('BAD_REQUEST', `The body's resourceType must be ${expectedType}.`, {
      fieldErrors: [{ field: `${expectedType}.resourceType`, message: `must be ${expectedType}, got ${JSON.stringify(resourceType ?? null)}` }],
    });
  }
  return body as FhirResource;
}

/** 404 for a type the server does not know, naming the type. */
export function assertKnownType(resourceType: string): void {
  if (!isFhirResourceType(resourceType)) {
    throw new DomainError('NOT_FOUND', `${resourceType} is not an R4 resource type.`, { fieldErrors: [{ field: 'resourceType', message: `unknown resource type ${JSON.stringify(resourceType)}` }] });
  }
}

/**
 * R4's base64Binary pattern is `(\s*([0-9a-zA-Z\+\=]){4}\s*)+`: groups of four with whitespace
 * allowed around them. Checked here as "the value without its whitespace is groups of four" (with
 * `/`, which real base64 needs), in linear time on values of megabytes.
 */
const BASE64_GROUPS = /^(?:[0-9a-zA-Z+/=]{4})+$/;

/**
 * Medplum refuses a base64Binary value that contains whitespace, but R4's pattern allows it between
 * groups of four characters (the specification's own Binary and Media examples wrap their data).
 * Such an issue is dropped when the value at its path matches R4's pattern.
 */
function isWhitespaceSeparatedBase64(resource: FhirResource, issue: OperationOutcomeIssue): boolean {
  const path = issue.expression?.[0];
  if (!path || !/Invalid base64Binary format/.test(issue.details?.text ?? issue.diagnostics ?? '')) return false;
  let value: unknown = resource;
  for (const step of path.split('.').slice(1)) {
    const m = /^([A-Za-z0-9_]+)(?:\[(\d+)\])?$/.exec(step);
    if (!m || typeof value !== 'object' || value === null) return false;
    value = (value as Record<string, unknown>)[m[1]!];
    if (m[2] !== undefined) value = Array.isArray(value) ? value[Number(m[2])] : undefined;
  }
  return typeof value === 'string' && /\s/.test(value) && BASE64_GROUPS.test(value.replace(/\s+/g, ''));
}

/**
 * The FHIRPath of an element the structure validator names by its definition (`Patient.multipleBirth[x]`):
 * each choice step becomes the JSON key the resource holds (`Patient.multipleBirthInteger`), as the
 * other issues name their elements. A path that cannot be followed is left as it is.
 */
function concretePath(resource: FhirResource, path: string): string {
  if (!path.includes('[x]')) return path;
  const steps = path.split('.');
  let value: unknown = resource;
  const out = [steps[0]!];
  for (const step of steps.slice(1)) {
    const m = /^([A-Za-z0-9_]+)(\[x\])?(?:\[(\d+)\])?$/.exec(step);
    if (!m || typeof value !== 'object' || value === null) return path;
    const record = value as Record<string, unknown>;
    const key = m[2] ? Object.keys(record).find((k) => k.startsWith(m[1]!) && /^[A-Z]/.test(k.slice(m[1]!.length))) : m[1]!;
    if (key === undefined) return path;
    out.push(`${key}${m[3] === undefined ? '' : `[${m[3]}]`}`);
    value = record[key];
    if (m[3] !== undefined) value = Array.isArray(value) ? value[Number(m[3])] : undefined;
  }
  return out.join('.');
}

function issueToFieldError(resource: FhirResource, issue: OperationOutcomeIssue): FieldError {
  return { field: concretePath(resource, issue.expression?.[0] ?? ''), message: issue.details?.text ?? issue.diagnostics ?? 'invalid' };
}

/**
 * Validate a resource against the R4 StructureDefinitions (Medplum's checks, see
 * structure-validator.ts: cardinality, types, unknown elements, choice types, primitive formats,
 * invariants), against the required value-set bindings Medplum does not check, and against the R4
 * JSON rules it lets through (json-rules.ts: empty strings, arrays and objects, resource id pattern,
 * calendar dates, integer ranges). Every problem is one field error named by its FHIRPath
 * expression (`Patient.gender`, `Patient.name[0].use`), all of them up to MAX_VALIDATION_ISSUES;
 * any problem is a 422.
 */
export function validateFhirResource(exact: FhirResource): void {
  definitions();
  // Exact number literals (125.00) are validated as the numbers they denote.
  const resource = numericView(exact);
  let issues: OperationOutcomeIssue[] = [];
  try {
    issues = validateStructure(resource as unknown as Resource).filter((i) => i.severity === 'error' || i.severity === 'fatal');
  } catch (err) {
    if (!(err instanceof OperationOutcomeError)) throw err;
    issues = err.outcome.issue ?? [];
  }
  issues = issues.filter((i) => !isWhitespaceSeparatedBase64(resource, i));
  const found = [...issues.map((i) => issueToFieldError(resource, i)), ...requiredBindingErrors(resource)];
  // The JSON rules (json-rules.ts) add what the structure check missed; one error per element is enough.
  const named = new Set(found.map((e) => e.field));
  for (const e of jsonRuleErrors(resource, MAX_VALIDATION_ISSUES + 1)) if (!named.has(e.field)) found.push(e);
  const errors = found.slice(0, MAX_VALIDATION_ISSUES);
  if (found.length > MAX_VALIDATION_ISSUES) {
    errors.push({ field: resource.resourceType, message: `more errors than the ${MAX_VALIDATION_ISSUES} listed (at least ${found.length - MAX_VALIDATION_ISSUES} more); only the first ${MAX_VALIDATION_ISSUES} are reported` });
  }
  if (errors.length > 0) {
    throw new DomainError('VALIDATION_ERROR', `The ${resource.resourceType} does not conform to FHIR R4: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`.slice(0, 2000), {
      fieldErrors: errors,
    });
  }
}

function inValueSet(codes: ReadonlyMap<string, ReadonlySet<string>>, system: string | undefined, code: string | undefined): boolean {
  if (code === undefined) return true;
  if (system !== undefined) return codes.get(system)?.has(code) ?? false;
  for (const set of codes.values()) if (set.has(code)) return true;
  return false;
}

/** One property of a type as the binding check walks it: its JSON key, its type, its required enumeration. */
interface PlannedProperty {
  jsonKey: string;
  type: string;
  /** The codes of a required binding to a small enumeration; undefined when nothing is checked here. */
  codes?: ReadonlyMap<string, ReadonlySet<string>>;
  valueSetName?: string;
  /** A complex type (or a contained resource) to walk into. */
  complex: boolean;
}

const plans = new Map<string, PlannedProperty[]>();
const isPrimitive = (type: string) => /^[a-z]/.test(type) || type.startsWith('http://hl7.org/fhirpath/');

/**
 * The properties of a type, from its StructureDefinition, once: a choice element (`value[x]`) is one
 * property per type (`valueQuantity`, `valueCoding`, …). Unknown types have none.
 */
function planOf(typeName: string): PlannedProperty[] {
  const cached = plans.get(typeName);
  if (cached) return cached;
  const plan: PlannedProperty[] = [];
  let elements: ReturnType<typeof getDataType>['elements'] = {};
  try {
    elements = getDataType(typeName).elements;
  } catch {
    // Not a type of the definitions: nothing to check in it.
  }
  for (const [key, element] of Object.entries(elements)) {
    const binding = element.binding?.strength === 'required' && element.binding.valueSet ? element.binding.valueSet : undefined;
    const codes = binding ? enumeratedValueSet(binding) : undefined;
    const choice = key.endsWith('[x]');
    for (const { code: type } of element.type ?? []) {
      const jsonKey = choice ? key.slice(0, -3) + type.charAt(0).toUpperCase() + type.slice(1) : key;
      const complex = !isPrimitive(type);
      if (!codes && !complex) continue;
      plan.push({ jsonKey, type, complex, ...(codes ? { codes, valueSetName: binding!.split('|')[0]! } : {}) });
    }
  }
  plans.set(typeName, plan);
  return plan;
}

function checkBinding(p: PlannedProperty, value: unknown, path: string, errors: FieldError[]): void {
  const codes = p.codes!;
  const name = p.valueSetName!;
  if (p.type === 'Coding') {
    const coding = value as Coding;
    if (typeof coding === 'object' && coding !== null && !inValueSet(codes, coding.system, coding.code)) errors.push({ field: path, message: `${coding.system ?? ''}|${coding.code ?? ''} is not in the required value set ${name}` });
  } else if (p.type === 'CodeableConcept') {
    const codings = typeof value === 'object' && value !== null ? ((value as CodeableConcept).coding ?? []) : [];
    if (codings.length > 0 && !codings.some((c) => inValueSet(codes, c.system, c.code))) errors.push({ field: path, message: `no coding is in the required value set ${name}` });
  } else if (typeof value === 'string' && !inValueSet(codes, undefined, value)) {
    errors.push({ field: path, message: `${JSON.stringify(value)} is not in the required value set ${name}` });
  }
}

function walkBindings(value: Record<string, unknown>, typeName: string, path: string, errors: FieldError[]): void {
  for (const p of planOf(typeName)) {
    const raw = value[p.jsonKey];
    if (raw === undefined || raw === null) continue;
    const many = Array.isArray(raw);
    const items: unknown[] = many ? raw : [raw];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === undefined || item === null) continue;
      const at = `${path}.${p.jsonKey}${many ? `[${i}]` : ''}`;
      if (p.codes) checkBinding(p, item, at, errors);
      if (p.complex && typeof item === 'object' && !Array.isArray(item)) {
        const record = item as Record<string, unknown>;
        // A contained or Bundle entry resource is walked as its own type.
        const type = p.type === 'Resource' ? record['resourceType'] : p.type;
        if (typeof type === 'string') walkBindings(record, type, at, errors);
      }
    }
  }
}

/**
 * Required bindings whose value set is a small enumeration shipped with the definitions
 * (administrative-gender, observation-status, name-use, …): `code`, `Coding` and `CodeableConcept`
 * values must come from it. A CodeableConcept with text only passes (nothing coded to check).
 * The JSON is walked along a plan made once per type from its StructureDefinition (every complex
 * property, each choice type on its own key), nested types, extensions and contained resources
 * included.
 */
export function requiredBindingErrors(resource: FhirResource): FieldError[] {
  definitions();
  const errors: FieldError[] = [];
  walkBindings(resource, resource.resourceType, resource.resourceType, errors);
  return errors;
}
