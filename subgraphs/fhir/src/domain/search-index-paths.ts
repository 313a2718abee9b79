import { getDataType, type TypedValue } from '@medplum/core';

/**
 * Most search parameters select plain element paths (`Observation.code`, `Patient.name`,
 * `(Observation.value as Quantity)`, `Observation.code | Observation.component.code`). Those are
 * read here straight from the JSON, typed from the StructureDefinitions, instead of running the
 * FHIRPath engine per parameter per resource (a third of a create's CPU), and so are the two
 * filters most parameters end with, `where(resolve() is Patient)` on References and
 * `where(system='email')` on ContactPoints. Anything else (other functions and conditions, a
 * choice element without its type) answers null and stays with FHIRPath.
 */

/** One step of a path: the JSON keys it may be found under, each with the type it has there. */
type Step = { key: string; type: string }[];

/** A compiled term: its steps (none: the resource itself, of type `root`), and the filter of a trailing `where(…)` on the items it reaches. */
interface Term {
  root: string;
  steps: Step[];
  keep: ((item: unknown) => boolean) | null;
}

/** `union`: the expression joins several paths, whose equal items FHIRPath keeps once (search-index.ts drops the equal rows). */
export type JsonPathReader = ((resource: Record<string, unknown>) => TypedValue[]) & { union?: boolean };

const MEMBER = /^[a-z][A-Za-z0-9]*$/;
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

function elementsOf(type: string): ReturnType<typeof getDataType>['elements'] | undefined {
  try {
    return getDataType(type).elements;
  } catch {
    return undefined;
  }
}

/**
 * The type Medplum's FHIRPath `resolve()` gives a Reference (or a reference string) without
 * reading anything: the type segment of `Type/id` or `Type?query`, the type of an inline resource,
 * or `type` with an identifier; undefined when it resolves to nothing.
 */
function resolvedType(item: unknown): string | undefined {
  let reference: string | undefined;
  if (typeof item === 'string') {
    reference = item;
  } else if (typeof item === 'object' && item !== null) {
    const ref = item as Record<string, unknown>;
    if (ref['resource']) return (ref['resource'] as { resourceType?: string }).resourceType;
    if (ref['reference']) reference = String(ref['reference']);
    else if (ref['type'] && ref['identifier']) reference = `${String(ref['type'])}?identifier`;
  }
  if (reference?.includes('?')) return reference.split('?')[0];
  if (reference?.includes('/')) return reference.split('/')[0];
  return undefined;
}

/** The filter of `where(resolve() is Type)` on References or `where(system='…')` on ContactPoints; null for any other condition. */
function whereFilter(condition: string, itemTypes: readonly string[]): ((item: unknown) => boolean) | null {
  const resolveIs = /^resolve\(\) is ([A-Z][A-Za-z0-9]*)$/.exec(condition);
  if (resolveIs && itemTypes.every((t) => t === 'Reference')) return (item) => resolvedType(item) === resolveIs[1];
  const system = /^system\s*=\s*'([a-z-]+)'$/.exec(condition);
  if (system && itemTypes.every((t) => t === 'ContactPoint')) return (item) => typeof item === 'object' && item !== null && (item as Record<string, unknown>)['system'] === system[1];
  return null;
}

/** `Type.a.b` with an optional cast of its last element or a `where(…)` filter of its items: the term, or null when not a plain path. */
function compileTerm(resourceType: string, term: string): Term | null {
  let path = term.trim();
  let condition: string | null = null;
  const where = /^(.+)\.where\((.+)\)$/.exec(path);
  if (where) {
    path = where[1]!.trim();
    // The expressions come re-written with their conditions in parentheses: `where((resolve() is Patient))`.
    condition = where[2]!.trim();
    while (condition.startsWith('(') && condition.endsWith(')')) condition = condition.slice(1, -1).trim();
  }
  let cast: string | null = null;
  const castMatch = /^\((.+) as ([A-Za-z][A-Za-z0-9]*)\)$/.exec(path);
  if (castMatch) {
    path = castMatch[1]!.trim();
    cast = castMatch[2]!;
  }
  const parts = path.split('.');
  // The resource itself (a composite's `Observation`).
  if (path === resourceType && cast === null && condition === null) return { root: resourceType, steps: [], keep: null };
  if (parts[0] !== resourceType || parts.length < 2 || !parts.slice(1).every((p) => MEMBER.test(p))) return null;
  const steps: Step[] = [];
  let type = resourceType;
  for (let i = 1; i < parts.length; i++) {
    const elements = elementsOf(type);
    if (!elements) return null;
    const member = parts[i]!;
    const last = i === parts.length - 1;
    const plain = elements[member];
    const choice = elements[`${member}[x]`];
    let step: Step;
    if (plain && plain.type.length === 1) {
      if (cast && last && plain.type[0]!.code !== cast) return null;
      step = [{ key: member, type: plain.type[0]!.code }];
    } else if (choice && last) {
      const types = choice.type.map((t) => t.code).filter((t) => cast === null || t === cast);
      if (types.length === 0) return null;
      step = types.map((t) => ({ key: member + t.charAt(0).toUpperCase() + t.slice(1), type: t }));
    } else {
      return null;
    }
    // Contained resources and untyped elements are left to FHIRPath.
    if (step.some((s) => s.type === 'Resource' || !TYPE_NAME.test(s.type))) return null;
    steps.push(step);
    type = step[0]!.type;
  }
  if (condition === null) return { root: resourceType, steps, keep: null };
  const keep = whereFilter(condition, steps[steps.length - 1]!.map((s) => s.type));
  return keep ? { root: resourceType, steps, keep } : null;
}

/** Split a union at its top level (`a | b`); null when a `|` sits inside parentheses. */
function unionTerms(expression: string): string[] | null {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      terms.push(expression.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(expression.slice(start));
  return terms.every((t) => t.trim().length > 0) ? terms : null;
}

function read(term: Term, resource: Record<string, unknown>, out: TypedValue[]): void {
  if (term.steps.length === 0) out.push({ type: term.root, value: resource });
  else descend(term, 0, resource, out);
}

/**
 * The values of `term`'s steps from `i` on under `holder`, depth first: every value sits at the
 * same depth, so this is the order a level-by-level walk gives, without a list per level.
 */
function descend(term: Term, i: number, holder: unknown, out: TypedValue[]): void {
  if (typeof holder !== 'object' || holder === null) return;
  const last = i === term.steps.length - 1;
  for (const { key, type } of term.steps[i]!) {
    const value = (holder as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value)) {
      if (!last) descend(term, i + 1, value, out);
      else if (term.keep === null || term.keep(value)) out.push({ type, value });
      continue;
    }
    for (const item of value as unknown[]) {
      if (item === undefined || item === null) continue;
      if (!last) descend(term, i + 1, item, out);
      else if (term.keep === null || term.keep(item)) out.push({ type, value: item });
    }
  }
}

/** A reader for a plain-path expression of `resourceType`, or null to keep FHIRPath. */
export function compileJsonPath(resourceType: string, expression: string): JsonPathReader | null {
  const terms = unionTerms(expression);
  if (!terms) return null;
  const compiled: Term[] = [];
  for (const text of terms) {
    const term = compileTerm(resourceType, text);
    if (!term) return null;
    compiled.push(term);
  }
  const reader: JsonPathReader = (resource) => {
    const out: TypedValue[] = [];
    for (const term of compiled) read(term, resource, out);
    return out;
  };
  return Object.assign(reader, { union: compiled.length > 1 });
}
