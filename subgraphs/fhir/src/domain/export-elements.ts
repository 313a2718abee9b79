import { getDataType } from '@medplum/core';
import { DomainError } from '@svc/platform';
import { parseExactJson, stringifyExactJson } from './exact-json.js';

/**
 * Bulk Data `$export` `_elements` (Bulk Data Access IG 2.0): a comma-separated list of root elements,
 * `[Type].[element]` (`Patient.name`) or `[element]` (every exported type that has it). Each exported
 * resource keeps its listed elements plus those every resource must keep (`resourceType`, `id`,
 * `meta`) and its **mandatory** root elements (min ≥ 1: the IG says "omit unlisted, non-mandatory
 * elements", so a subsetted Observation keeps `status` and `code`), and is tagged SUBSETTED.
 */

export const SUBSETTED = { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED' } as const;

/** Per exported type, the root element names to keep (choice elements as their `[x]`-less base). */
export type ElementSelection = Record<string, string[]>;

const ELEMENT = /^(?:([A-Z][A-Za-z]+)\.)?([a-z][A-Za-z0-9]*)$/;

function bad(message: string): DomainError {
  return new DomainError('BAD_REQUEST', `_elements: ${message}`, { fieldErrors: [{ field: '_elements', message }] });
}

/** The root element names of a type (choice elements without `[x]`), with their minimum cardinality and whether they are a choice. */
function rootElements(type: string): Map<string, { min: number; choice: boolean }> {
  const out = new Map<string, { min: number; choice: boolean }>();
  for (const [name, element] of Object.entries(getDataType(type).elements)) {
    if (name.includes('.')) continue;
    out.set(name.replace(/\[x\]$/, ''), { min: element.min ?? 0, choice: name.endsWith('[x]') });
  }
  return out;
}

/** The root element a JSON key belongs to: itself, or the choice element it is a type of (`valueQuantity` → `value`). */
function elementOfKey(key: string, roots: ReadonlyMap<string, { choice: boolean }>): string {
  if (roots.has(key)) return key;
  for (const [name, info] of roots) if (info.choice && key.startsWith(name) && /^[A-Z]/.test(key.slice(name.length))) return name;
  return key;
}

/**
 * Parse `_elements` for the exported `types`: each entry must be a root element of its type (or,
 * without a type, of at least one exported type); a type that is not exported is refused. 400
 * naming `_elements` otherwise. Empty result: no subsetting.
 */
export function parseExportElements(values: readonly string[], types: readonly string[]): ElementSelection | null {
  const entries = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (entries.length === 0) return null;
  const selection: ElementSelection = {};
  for (const entry of entries) {
    const m = ELEMENT.exec(entry);
    if (!m) throw bad(`${JSON.stringify(entry.slice(0, 80))} is not [Type.]element (root elements only)`);
    const [, type, element = ''] = m;
    const targets = type ? [type] : types;
    if (type && !types.includes(type)) throw bad(`${type} is not one of the exported types (${types.join(', ') || 'none'})`);
    const fitting = targets.filter((t) => rootElements(t).has(element));
    if (fitting.length === 0) throw bad(`${entry} is not a root element of ${type ?? `any exported type (${types.join(', ')})`}`);
    for (const t of fitting) if (!(selection[t] ??= []).includes(element)) selection[t]!.push(element);
  }
  return selection;
}

/** The NDJSON line of a stored resource with only the selected elements (plus mandatory ones), tagged SUBSETTED; numbers stay as written. */
export function subsetForExport(content: string, resourceType: string, selection: ElementSelection): string {
  const listed = selection[resourceType];
  // A type no entry applies to is exported whole, as the IG's "where it is applicable" reads.
  if (!listed) return content;
  const roots = rootElements(resourceType);
  const keep = new Set(['resourceType', 'id', 'meta', ...listed, ...[...roots].filter(([, info]) => info.min > 0).map(([name]) => name)]);
  const resource = parseExactJson(content, resourceType) as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resource)) {
    // A choice element `valueQuantity` is kept by its base name `value`; `_birthDate` (a primitive's extensions) with `birthDate`.
    const name = key.startsWith('_') ? key.slice(1) : key;
    if (keep.has(key) || keep.has(elementOfKey(name, roots))) kept[key] = value;
  }
  const meta = (kept['meta'] ?? {}) as { tag?: unknown[] };
  kept['meta'] = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return stringifyExactJson(kept);
}
