import { evalFhirPathTyped, parseFhirPath, type FhirPathAtom, type TypedValue } from '@medplum/core';
import type { SearchParameter } from '@medplum/fhirtypes';
import { searchParameterByUrl } from './definitions.js';
import { addDates, addReference, addTokens, normalizeString, strings, type ComponentCell, type CompositeCells, type IndexTable } from './search-index.js';
import { compileJsonPath, type JsonPathReader } from './search-index-paths.js';

/**
 * Composite search parameters (R4 `type: composite`): the parameter's expression selects elements
 * (the Observation itself, each Observation.component, each useContext…) and each component's
 * expression, evaluated on one such element, gives that component's values. Supported: two or
 * three components of type token, quantity, number, date, string, reference or uri, which covers
 * every R4 composite (MolecularSequence's coordinates have three: chromosome or reference sequence
 * id, start, end). A component expression may read `%resource` (the coordinates' chromosome is
 * `%resource.referenceSeq.chromosome`, evaluated per variant). A component that is a plain path
 * from the element (`code`, `value.as(Quantity)`) is read straight from the JSON, as the other
 * parameters are (search-index-paths.ts).
 */
export interface CompositeComponent {
  type: Exclude<IndexTable, 'composite'>;
  expression: FhirPathAtom;
  /** The expression as written (`code`, `value.as(Quantity)`), for the JSON reader. */
  source: string;
}

const COMPONENT_TYPES: readonly string[] = ['token', 'quantity', 'number', 'date', 'string', 'reference', 'uri'];
const cache = new Map<string, CompositeComponent[] | null>();

/** The components of a composite parameter, or null when this server does not index it. */
export function compositeComponents(sp: SearchParameter): CompositeComponent[] | null {
  const key = `${sp.url ?? ''}#${sp.code ?? ''}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let result: CompositeComponent[] | null = null;
  const parts = sp.component ?? [];
  if (parts.length === 2 || parts.length === 3) {
    const components = parts.map((c) => {
      const definition = c.definition ? searchParameterByUrl(c.definition) : undefined;
      if (!definition || !COMPONENT_TYPES.includes(definition.type ?? '') || !c.expression) return null;
      try {
        return { type: definition.type as CompositeComponent['type'], expression: parseFhirPath(c.expression), source: c.expression };
      } catch {
        return null;
      }
    });
    if (components.every((c) => c !== null)) result = components as CompositeComponent[];
  }
  cache.set(key, result);
  return result;
}

const RELATIVE_PATH = /^([a-z][A-Za-z0-9]*)(?:\.as\(([A-Za-z][A-Za-z0-9]*)\))?$/;
const readers = new Map<string, JsonPathReader | null>();

/**
 * A component expression (`code`, `value.as(Quantity)`) on an element of `elementType`
 * (`Observation`, `ObservationComponent`) as a plain path read straight from the JSON, or null to
 * keep FHIRPath (a union, a function, a cast to no type of the choice such as `as(DateTime)`).
 */
function componentReader(component: CompositeComponent, elementType: string): JsonPathReader | null {
  const key = `${elementType}#${component.source}`;
  let reader = readers.get(key);
  if (reader === undefined) {
    const m = RELATIVE_PATH.exec(component.source.trim());
    const path = m ? (m[2] ? `(${elementType}.${m[1]} as ${m[2]})` : `${elementType}.${m[1]}`) : null;
    reader = path ? compileJsonPath(elementType, path) : null;
    if (reader?.union) reader = null;
    readers.set(key, reader);
  }
  return reader;
}

const EMPTY: ComponentCell = { system: null, code: null, num: null, unit: null, low: null, high: null };
const cut = (value: unknown, width = 256): string | null => (typeof value === 'string' ? value.slice(0, width) : null);

/** The cells one component value contributes (a CodeableConcept with two codings gives two). */
function cellsOf(type: CompositeComponent['type'], v: TypedValue): ComponentCell[] {
  switch (type) {
    case 'token': {
      const rows: { param: string; system: string | null; code: string | null; text: string | null }[] = [];
      addTokens(rows, '', v);
      return rows.filter((r) => r.code !== null).map((r) => ({ ...EMPTY, system: r.system, code: r.code }));
    }
    case 'quantity': {
      const q = v.value as Record<string, unknown>;
      return typeof q?.['value'] === 'number' ? [{ ...EMPTY, num: q['value'], system: cut(q['system']), code: cut(q['code']), unit: cut(q['unit']) }] : [];
    }
    case 'number':
      return typeof v.value === 'number' ? [{ ...EMPTY, num: v.value }] : [];
    case 'date': {
      const rows: { param: string; low: string; high: string }[] = [];
      addDates(rows, '', v);
      return rows.map((r) => ({ ...EMPTY, low: r.low, high: r.high }));
    }
    case 'string':
      return strings(v).map((s) => ({ ...EMPTY, code: normalizeString(s) }));
    case 'reference': {
      const rows: { param: string; reference: string; target_type: string | null; target_id: string | null }[] = [];
      addReference(rows, '', v);
      return rows.map((r) => ({ ...EMPTY, system: r.target_type, code: r.target_id, unit: r.reference.slice(0, 256) }));
    }
    case 'uri':
      return typeof v.value === 'string' ? [{ ...EMPTY, code: v.value.slice(0, 256) }] : [];
  }
}

/** One index row with every column, as one literal (built from computed keys, it took a quarter of the composite rows' time in an ingest profile). */
function compositeRow(param: string, a: ComponentCell, b: ComponentCell, c: ComponentCell): { param: string } & CompositeCells {
  return {
    param,
    c0_system: a.system, c0_code: a.code, c0_num: a.num, c0_unit: a.unit, c0_low: a.low, c0_high: a.high,
    c1_system: b.system, c1_code: b.code, c1_num: b.num, c1_unit: b.unit, c1_low: b.low, c1_high: b.high,
    c2_system: c.system, c2_code: c.code, c2_num: c.num, c2_unit: c.unit, c2_low: c.low, c2_high: c.high,
  };
}

/**
 * Index rows of a composite parameter for one element its expression selected (`resource`: the
 * whole resource, for `%resource`). Every row has all three components' columns (the third null for
 * two-component parameters), so multi-row INSERTs see one column list.
 */
export function compositeRows(
  param: string,
  sp: SearchParameter | undefined,
  element: TypedValue,
  resource?: TypedValue,
  options: { jsonPaths?: boolean } = {},
): ({ param: string } & CompositeCells)[] {
  const components = sp ? compositeComponents(sp) : null;
  if (!components) return [];
  // A component without a value leaves no row: the last ones (`value.as(Quantity)`, …) are read
  // first, so an Observation's code is read only for the composites its value[x] answers.
  const cells: ComponentCell[][] = [];
  for (let i = components.length - 1; i >= 0; i--) {
    const c = components[i]!;
    let values: TypedValue[] = [];
    const reader = options.jsonPaths !== false && typeof element.value === 'object' && element.value !== null ? componentReader(c, element.type) : null;
    try {
      values = reader ? reader(element.value as Record<string, unknown>) : evalFhirPathTyped(c.expression, [element], resource ? { '%resource': resource } : {});
    } catch {
      values = [];
    }
    const list = values.filter((v) => v.value !== undefined && v.value !== null).flatMap((v) => cellsOf(c.type, v));
    if (list.length === 0) return [];
    cells[i] = list;
  }
  const out: ({ param: string } & CompositeCells)[] = [];
  const thirds = components.length === 3 ? cells[2]! : [EMPTY];
  for (const first of cells[0]!) {
    for (const second of cells[1]!) {
      for (const third of thirds) {
        out.push(compositeRow(param, first, second, third));
        if (out.length >= 100) return out;
      }
    }
  }
  return out;
}
