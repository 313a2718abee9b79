/**
 * R4 structure validation: Medplum's ResourceValidator (@medplum/core 4.5.2,
 * src/typeschema/validation.ts and crawler.ts, Apache-2.0, Copyright Orangebot, Inc. and Medplum
 * contributors), with one change: each object is walked over the elements it holds and the
 * required ones, not over every element its type defines.
 *
 * Medplum's crawler visits all ~50 elements of an Observation, and of every Coding, Reference and
 * Quantity inside it, and resolves each absent choice element by trying every type it allows; for
 * a typical resource most of the time went to elements that are not there. An absent element can
 * only yield "Missing required property", so visiting the present and the required elements, in
 * the type's own order, gives the same issues in the same order; the checks themselves (presence,
 * cardinality, fixed and pattern values, invariants, reference targets, primitives, slices,
 * additional properties, nulls) are Medplum's, line for line, and
 * structure-validator.test.ts compares the two on the HL7 examples and on broken resources.
 *
 * Two holes are closed on purpose: a number, a boolean, a string or an array where an object
 * belongs (`"code": 42`, which Medplum accepts) is one issue, and a primitive's `_x` that is not an
 * object is an issue rather than a thrown Error.
 */
import {
  arrayify,
  capitalize,
  createConstraintIssue,
  createOperationOutcomeIssue,
  createProcessingIssue,
  createStructureIssue,
  deepEquals,
  deepIncludes,
  evalFhirPathTyped,
  fhirTypeToJsType,
  getDataType,
  getNestedProperty,
  getTypedPropertyValue,
  getTypedPropertyValueWithSchema,
  HTTP_HL7_ORG,
  isEmpty,
  isPrimitiveType,
  isReference,
  isResource,
  LRUCache,
  matchDiscriminant,
  OperationOutcomeError,
  PropertyType,
  toTypedValue,
  UCUM,
  validationError,
  validationRegexes,
  type Constraint,
  type FhirPathAtom,
  type InternalSchemaElement,
  type InternalTypeSchema,
  type SliceDefinition,
  type SlicingRules,
  type TypedValue,
  type TypedValueWithPath,
} from '@medplum/core';
import type { OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';

/** JSON type of each primitive, by FHIR type (Medplum's table). */
const jsTypeOf: Readonly<Record<string, 'string' | 'boolean' | 'number' | undefined>> = fhirTypeToJsType;

/** Invariants Medplum does not evaluate (ele-1 everywhere, dom-3 needs descendants(), and two it keeps for compatibility). */
const skippedConstraintKeys: Readonly<Record<string, true>> = { 'ele-1': true, 'dom-3': true, 'org-1': true, 'sdf-19': true };

const fhirPathCache = new LRUCache<FhirPathAtom>(1_000);

type JsonObject = Record<string, unknown>;

/**
 * Invariants of a resource that most resources pass on their face, by expression: each answers
 * true when the JSON alone shows the expression is true (no `contained`, no `dataAbsentReason`, no
 * `component`), else FHIRPath decides. They are every FHIRPath evaluation of a typical Patient,
 * Encounter or Observation (a data type's own invariants, such as per-1 on a Period, are checked
 * by Medplum only on a value validated on its own, never inside a resource);
 * structure-validator.test.ts holds the verdicts to Medplum's.
 */
const PASSES_ON_ITS_FACE: ReadonlyMap<string, (value: JsonObject) => boolean> = new Map([
  ['contained.contained.empty()', (v: JsonObject) => v['contained'] === undefined],
  ['contained.meta.versionId.empty() and contained.meta.lastUpdated.empty()', (v: JsonObject) => v['contained'] === undefined],
  ['contained.meta.security.empty()', (v: JsonObject) => v['contained'] === undefined],
  ['dataAbsentReason.empty() or value.empty()', (v: JsonObject) => v['dataAbsentReason'] === undefined],
  ['value.empty() or component.code.where(coding.intersect(%resource.code.coding).exists()).empty()', (v: JsonObject) => v['component'] === undefined],
]);
const ucum = toTypedValue(UCUM);

// ---------------------------------------------------------------------------------------------
// Which elements of an object to visit

interface VisitPlan {
  keys: string[];
  /** Visited whatever the object holds: required (min > 0), or a nested path. */
  always: boolean[];
  /** JSON property name (`valueQuantity`, `_birthDate`) → index of its element in `keys`. */
  byProperty: Map<string, number>;
}

const plans = new WeakMap<InternalTypeSchema, VisitPlan>();

function planOf(schema: InternalTypeSchema): VisitPlan {
  let plan = plans.get(schema);
  if (plan) return plan;
  const keys = Object.keys(schema.elements);
  const byProperty = new Map<string, number>();
  const always = keys.map((key, index) => {
    const element = schema.elements[key]!;
    for (const candidate of candidatesOf(element)) {
      byProperty.set(candidate.property, index);
      byProperty.set(candidate.extension, index);
    }
    return element.min > 0 || key.includes('.');
  });
  plan = { keys, always, byProperty };
  plans.set(schema, plan);
  return plan;
}

function elementsToVisit(schema: InternalTypeSchema, value: unknown): string[] {
  const plan = planOf(schema);
  // A string or an array where an object belongs: Medplum reads elements off its prototype too
  // (`"…".link`, `[].filter`), and reports what it finds there; so do we, by visiting them all.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return plan.keys;
  const marked = plan.always.slice();
  for (const property of Object.keys(value)) {
    const index = plan.byProperty.get(property);
    if (index !== undefined) marked[index] = true;
  }
  const keys: string[] = [];
  for (let i = 0; i < marked.length; i++) if (marked[i]) keys.push(plan.keys[i]!);
  return keys;
}

/** A property an element's value may be held in: `value[x]` has one per type (`valueQuantity`, …). */
interface Candidate {
  property: string;
  /** The primitive's extension property (`_valueString`). */
  extension: string;
  code: string;
}

const candidates = new WeakMap<InternalSchemaElement, readonly Candidate[]>();

/** Where Medplum's getTypedPropertyValueWithSchema looks for an element's value, in its order; once per element. */
function candidatesOf(element: InternalSchemaElement): readonly Candidate[] {
  let list = candidates.get(element);
  if (list) return list;
  const name = element.path.slice(element.path.lastIndexOf('.') + 1);
  list = (element.type ?? []).map((type) => {
    const property = name.replace('[x]', capitalize(type.code));
    return { property, extension: `_${property}`, code: type.code };
  });
  candidates.set(element, list);
  return list;
}

/**
 * getNestedProperty(parent, key, { withPath: true }) for a key of the parent's own type: its value
 * or values, each with its path (`Patient.name[0]`), or an undefined value at the element's path.
 * Medplum's getTypedPropertyValueWithSchema, with the candidate properties computed once per
 * element instead of at every call; a value with a primitive extension (`_x`) is left to it.
 */
function propertyWithPath(parent: TypedValueWithPath, key: string, element: InternalSchemaElement): TypedValueWithPath | TypedValueWithPath[] {
  const path = parent.path ? `${parent.path}.${key}` : key;
  const holder = parent.value as Record<string, unknown> | undefined;
  if (holder) {
    for (const candidate of candidatesOf(element)) {
      if (holder[candidate.extension] !== undefined) return withPath(getTypedPropertyValueWithSchema(parent, key, element), path);
      const found = holder[candidate.property];
      if (found === undefined) continue;
      if (isEmpty(found)) break;
      const code = candidate.code === 'Element' || candidate.code === 'BackboneElement' ? element.type[0]!.code : candidate.code;
      if (Array.isArray(found)) return found.map((v: unknown, i) => ({ type: typeOfValue(v, code), value: v, path: `${path}[${i}]` }));
      return { type: typeOfValue(found, code), value: found, path };
    }
  }
  return { type: 'undefined', value: undefined, path };
}

/** Medplum's toTypedValueWithType: a contained `Resource` is typed by its own resourceType. */
function typeOfValue(value: unknown, code: string): string {
  return code === 'Resource' && isResource(value) ? value.resourceType : code;
}

function withPath(value: TypedValue | TypedValue[] | undefined, path: string): TypedValueWithPath | TypedValueWithPath[] {
  if (value === undefined) return { type: 'undefined', value: undefined, path };
  if (Array.isArray(value)) return value.map((v, i) => ({ type: v.type, value: v.value as unknown, path: `${path}[${i}]` }));
  return { type: value.type, value: value.value as unknown, path };
}

// ---------------------------------------------------------------------------------------------
// The validator

/** Every issue (errors and warnings) of a resource against its R4 StructureDefinition; throws OperationOutcomeError when one is an error, as Medplum's validateResource does. */
export function validateStructure(resource: Resource): OperationOutcomeIssue[] {
  if (!resource.resourceType) throw new OperationOutcomeError(validationError('Missing resource type'));
  return new StructureValidator(toTypedValue(resource)).validate();
}

class StructureValidator {
  private readonly issues: OperationOutcomeIssue[] = [];
  private readonly currentResource: Resource[] = [];
  private readonly schema: InternalTypeSchema;

  constructor(private readonly root: TypedValue) {
    if (isResource(root.value)) this.currentResource.push(root.value);
    this.schema = getDataType(root.type);
  }

  validate(): OperationOutcomeIssue[] {
    this.constraintsCheck({ ...this.root, path: this.schema.path }, this.schema);
    // Medplum throws a plain Error on reaching a malformed primitive extension; the resource is refused here instead.
    const malformedExtensions: OperationOutcomeIssue[] = [];
    checkObjectForNull(this.root.value as JsonObject, this.schema.path, this.issues, malformedExtensions);
    if (malformedExtensions.length > 0) throw new OperationOutcomeError({ resourceType: 'OperationOutcome', issue: [...this.issues, ...malformedExtensions] });
    this.crawlObject({ ...this.root, path: this.schema.path }, this.schema, this.schema.path);
    if (this.issues.some((issue) => issue.severity === 'error')) {
      throw new OperationOutcomeError({ resourceType: 'OperationOutcome', issue: this.issues });
    }
    return this.issues;
  }

  // The crawler

  private crawlObject(obj: TypedValueWithPath, schema: InternalTypeSchema, path: string): void {
    const objIsResource = isResource(obj.value);
    if (objIsResource) this.currentResource.push(obj.value as Resource);
    for (const key of elementsToVisit(schema, obj.value)) this.crawlProperty(obj, key, schema, `${path}.${key}`);
    this.checkAdditionalProperties(obj, schema.elements, obj.path);
    if (objIsResource) this.currentResource.pop();
  }

  private crawlProperty(parent: TypedValueWithPath, key: string, schema: InternalTypeSchema, path: string): void {
    const propertyValues = key.includes('.') ? getNestedProperty(parent, key, { withPath: true }) : [propertyWithPath(parent, key, schema.elements[key]!)];
    this.visitProperty(key, path, propertyValues, schema);
    for (const propertyValue of propertyValues) {
      if (!propertyValue) continue;
      for (const value of arrayify(propertyValue) as TypedValueWithPath[]) {
        if (!isPrimitiveType(value.type) && !isScalarOrArray(value.value)) this.crawlObject(value, getDataType(value.type), path);
      }
    }
  }

  private crawlElement(value: TypedValue, path: string): void {
    this.crawlObject({ ...value, path }, getDataType('Element'), path);
  }

  // The checks

  private visitProperty(key: string, path: string, propertyValues: (TypedValueWithPath | TypedValueWithPath[])[], schema: InternalTypeSchema): void {
    const element = schema.elements[key];
    if (!element) throw new Error(`Missing element validation schema for ${key}`);
    for (const value of propertyValues) {
      if (!this.checkPresence(value, element, path)) return;
      let values: TypedValueWithPath[];
      if (element.isArray) {
        if (!Array.isArray(value)) {
          this.issues.push(createStructureIssue(path, 'Expected array of values for property'));
          return;
        }
        values = value;
      } else {
        if (Array.isArray(value)) {
          this.issues.push(createStructureIssue(path, 'Expected single value for property'));
          return;
        }
        values = [value];
      }
      if (values.length < element.min || values.length > element.max) {
        this.issues.push(
          createStructureIssue(element.path, `Invalid number of values: expected ${element.min}..${Number.isFinite(element.max) ? element.max : '*'}, but found ${values.length}`),
        );
      }
      if (!matchesSpecifiedValue(value, element)) this.issues.push(createStructureIssue(path, 'Value did not match expected pattern'));
      const sliceCounts: Record<string, number> | undefined = element.slicing ? Object.fromEntries(element.slicing.slices.map((s) => [s.name, 0])) : undefined;
      for (const one of values) {
        if (!isPrimitiveType(one.type) && isScalarOrArray(one.value)) {
          // Medplum lets a number or a boolean stand for a complex type, and reads a string's own
          // properties as its elements; either is a value of the wrong JSON type.
          this.issues.push(createStructureIssue(one.path, `${NOT_AN_OBJECT}, but got ${Array.isArray(one.value) ? 'array' : typeof one.value}`));
          continue;
        }
        this.constraintsCheck(one, element);
        this.referenceTypeCheck(one, element);
        this.checkPropertyValue(one);
        const sliceName = checkSliceElement(one, element.slicing);
        if (sliceName && sliceCounts) sliceCounts[sliceName] = (sliceCounts[sliceName] ?? 0) + 1;
      }
      this.validateSlices(element.slicing?.slices, sliceCounts, path);
    }
  }

  private checkPresence(value: TypedValueWithPath | TypedValueWithPath[], field: InternalSchemaElement, path: string): boolean {
    if (!Array.isArray(value) && value.value === undefined) {
      if (field.min > 0) this.issues.push(createStructureIssue(value.path, 'Missing required property'));
      return false;
    }
    if (isEmpty(value)) {
      this.issues.push(createStructureIssue(path, 'Invalid empty value'));
      return false;
    }
    return true;
  }

  private checkPropertyValue(value: TypedValueWithPath): void {
    if (isPrimitiveType(value.type)) this.validatePrimitiveType(value);
    else if (isEmpty(value.value)) this.issues.push(createStructureIssue(value.path, 'Invalid empty non-primitive value'));
  }

  private validateSlices(slices: SliceDefinition[] | undefined, counts: Record<string, number> | undefined, path: string): void {
    if (!slices || !counts) return;
    for (const slice of slices) {
      const cardinality = counts[slice.name] ?? 0;
      if (cardinality < slice.min || cardinality > slice.max) {
        this.issues.push(
          createStructureIssue(path, `Incorrect number of values provided for slice '${slice.name}': expected ${slice.min}..${Number.isFinite(slice.max) ? slice.max : '*'}, but found ${cardinality}`),
        );
      }
    }
  }

  private checkAdditionalProperties(parent: TypedValueWithPath, properties: Record<string, InternalSchemaElement>, path: string): void {
    const object = parent.value as Record<string, unknown> | undefined;
    if (!object) return;
    const choiceOfTypeElements: Record<string, string> = {};
    for (const key of Object.keys(object)) {
      if (key === 'resourceType') continue;
      const choiceOfTypeElementName = isChoiceOfType(parent, key, properties);
      if (choiceOfTypeElementName) {
        let relatedElementName: string;
        let requiredRelatedElementName: string;
        if (choiceOfTypeElementName.startsWith('_')) {
          relatedElementName = choiceOfTypeElementName.slice(1);
          requiredRelatedElementName = key.slice(1);
        } else {
          relatedElementName = `_${choiceOfTypeElementName}`;
          requiredRelatedElementName = `_${key}`;
        }
        if (relatedElementName in choiceOfTypeElements && choiceOfTypeElements[relatedElementName] !== requiredRelatedElementName) {
          const property = choiceOfTypeElementName.startsWith('_') ? choiceOfTypeElementName.slice(1) : choiceOfTypeElementName;
          this.issues.push(createOperationOutcomeIssue('warning', 'structure', `Type of primitive extension does not match the type of property "${property}"`, choiceOfTypeElementName));
        }
        if (choiceOfTypeElements[choiceOfTypeElementName]) {
          this.issues.push(
            createOperationOutcomeIssue('warning', 'structure', `Conflicting choice of type properties: "${key}", "${choiceOfTypeElements[choiceOfTypeElementName]}"`, key),
          );
        }
        choiceOfTypeElements[choiceOfTypeElementName] = key;
        continue;
      }
      if (!(key in properties) && !(key.startsWith('_') && key.slice(1) in properties)) {
        this.issues.push(createStructureIssue(`${path}.${key}`, `Invalid additional property "${key}"`));
      }
    }
  }

  private constraintsCheck(value: TypedValueWithPath, field: InternalTypeSchema | InternalSchemaElement): void {
    const constraints = field.constraints;
    if (!constraints) return;
    for (const constraint of constraints) {
      if (constraint.severity === 'error' && !(constraint.key in skippedConstraintKeys) && !this.isExpressionTrue(constraint, value)) {
        this.issues.push(createConstraintIssue(value.path, constraint));
        return;
      }
    }
  }

  private referenceTypeCheck(value: TypedValueWithPath, field: InternalSchemaElement): void {
    if (value.type !== 'Reference') return;
    const reference = value.value as unknown;
    if (!isReference(reference)) return;
    if (reference.reference.startsWith('#')) return;
    const referenceResourceType = reference.reference.includes('?') ? reference.reference.split('?')[0] : reference.reference.split('/')[0];
    if (!referenceResourceType) return;
    const targetProfiles = field.type.find((t) => t.code === 'Reference')?.targetProfile;
    if (!targetProfiles) return;
    const hl7BaseUrl = `${HTTP_HL7_ORG}/fhir/StructureDefinition/`;
    const medplumBaseUrl = 'https://medplum.com/fhir/StructureDefinition/';
    for (const targetProfile of targetProfiles) {
      if (targetProfile === `${hl7BaseUrl}Resource` || targetProfile === hl7BaseUrl + referenceResourceType || targetProfile === medplumBaseUrl + referenceResourceType) return;
      if (!targetProfile.startsWith(hl7BaseUrl) && !targetProfile.startsWith(medplumBaseUrl)) return;
    }
    this.issues.push(
      createOperationOutcomeIssue('warning', 'structure', `Invalid reference: got "${referenceResourceType}", expected "${targetProfiles.join('", "')}"`, value.path),
    );
  }

  private isExpressionTrue(constraint: Constraint, value: TypedValueWithPath): boolean {
    const onItsFace = PASSES_ON_ITS_FACE.get(constraint.expression);
    if (onItsFace && isObject(value.value) && onItsFace(value.value as JsonObject)) return true;
    const variables: Record<string, TypedValue> = { '%context': value, '%ucum': ucum };
    const current = this.currentResource[this.currentResource.length - 1];
    if (current) variables['%resource'] = toTypedValue(current);
    if (isResource(this.root.value)) variables['%rootResource'] = this.root;
    try {
      const evalValues = evalFhirPathTyped(constraint.expression, [value], variables, fhirPathCache);
      return evalValues.length === 1 && evalValues[0]!.value === true;
    } catch (err) {
      this.issues.push(createProcessingIssue(value.path, 'Error evaluating invariant expression', err as Error, { fhirpath: constraint.expression }));
      return false;
    }
  }

  private validatePrimitiveType(typedValue: TypedValueWithPath): void {
    const [primitiveValue, extensionElement] = unpackPrimitiveElement(typedValue);
    const path = typedValue.path;
    if (primitiveValue) {
      const { type, value } = primitiveValue;
      const expectedType = Object.hasOwn(jsTypeOf, type) ? jsTypeOf[type] : undefined;
      if (!expectedType) {
        this.issues.push(createStructureIssue(path, `Invalid JSON type: ${type} is not a valid FHIR type`));
        return;
      }
      if (typeof value !== expectedType) {
        if (value !== null) this.issues.push(createStructureIssue(path, `Invalid JSON type: expected ${expectedType}, but got ${typeof value}`));
        return;
      }
      if (expectedType === 'string') this.validateString(value as string, type, path);
      else if (expectedType === 'number') this.validateNumber(value as number, type, path);
    }
    if (extensionElement) this.crawlElement(extensionElement, path);
  }

  private validateString(str: string, type: string, path: string): void {
    if (!str.trim()) {
      this.issues.push(createStructureIssue(path, 'String must contain non-whitespace content'));
      return;
    }
    if (str.length > 1024 * 1024) {
      this.issues.push(createStructureIssue(path, 'String cannot be larger than 1 MB'));
      return;
    }
    const regex = validationRegexes[type];
    if (regex && !regex.exec(str)) this.issues.push(createStructureIssue(path, `Invalid ${type} format`));
  }

  private validateNumber(n: number, type: string, path: string): void {
    if (Number.isNaN(n) || !Number.isFinite(n)) this.issues.push(createStructureIssue(path, 'Invalid numeric value'));
    else if (isIntegerType(type) && !Number.isInteger(n)) this.issues.push(createStructureIssue(path, 'Expected number to be an integer'));
    else if (type === PropertyType.positiveInt && n <= 0) this.issues.push(createStructureIssue(path, 'Expected number to be positive'));
    else if (type === PropertyType.unsignedInt && n < 0) this.issues.push(createStructureIssue(path, 'Expected number to be non-negative'));
  }
}

/** The start of the issue for a complex type given a number, a boolean, a string or an array. */
export const NOT_AN_OBJECT = 'Invalid JSON type: expected object';
/** The start of the issue for a primitive's extension (`_birthDate`) that is not an object. */
export const EXTENSION_NOT_AN_OBJECT = 'Invalid JSON type: the extension of a primitive value is an object';

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value of the wrong JSON kind for a complex type (null is reported by checkObjectForNull). */
function isScalarOrArray(value: unknown): boolean {
  return value !== null && value !== undefined && !isObject(value);
}

function isIntegerType(propertyType: string): boolean {
  return propertyType === PropertyType.integer || propertyType === PropertyType.positiveInt || propertyType === PropertyType.unsignedInt;
}

/** The choice-of-type element (`value[x]`, or `_value[x]`) a JSON property belongs to, when that element holds a value. */
function isChoiceOfType(typedValue: TypedValue, key: string, propertyDefinitions: Record<string, InternalSchemaElement>): string | undefined {
  const choice = choiceOf(key, propertyDefinitions);
  return choice && getTypedPropertyValue(typedValue, choice.testProperty) ? choice.elementName : undefined;
}

/** The choice element (`value[x]`, or `_value[x]` for `_valueString`) a key names, and the property Medplum reads to confirm it. */
interface ChoiceKey {
  elementName: string;
  testProperty: string;
}

const choiceKeys = new WeakMap<Record<string, InternalSchemaElement>, Map<string, ChoiceKey | null>>();

/**
 * The structural half of Medplum's isChoiceOfType (the key's camel-case prefixes, the first one
 * with a `[x]` element), once per type and key. Only keys of the type's own elements are kept, so
 * a client's made-up keys cannot grow the cache.
 */
function choiceOf(key: string, propertyDefinitions: Record<string, InternalSchemaElement>): ChoiceKey | null {
  let byKey = choiceKeys.get(propertyDefinitions);
  if (!byKey) choiceKeys.set(propertyDefinitions, (byKey = new Map()));
  const cached = byKey.get(key);
  if (cached !== undefined) return cached;
  const prefix = key.startsWith('_') ? '_' : '';
  const name = prefix ? key.slice(1) : key;
  let choice: ChoiceKey | null = null;
  let testProperty = '';
  for (const part of name.split(/(?=[A-Z])/g)) {
    testProperty += part;
    const elementName = `${testProperty}[x]`;
    if (propertyDefinitions[elementName]) {
      choice = { elementName: prefix + elementName, testProperty };
      break;
    }
  }
  if (choice !== null || name in propertyDefinitions) byKey.set(key, choice);
  return choice;
}

/**
 * Medplum's null check, which also collects into `extensions` each `_x` property (a primitive's id
 * and extensions) that is not an object, or not an array of objects and nulls for a list of
 * primitives; below such a property only nulls are looked for (`extensions` null).
 */
function checkObjectForNull(obj: JsonObject, path: string, issues: OperationOutcomeIssue[], extensions: OperationOutcomeIssue[] | null): void {
  // Paths are built only where an issue is reported or an object is entered.
  for (const key of Object.keys(obj)) {
    const value: unknown = obj[key];
    const primitive = value !== null && typeof value !== 'object';
    // A `_x` must be an object, or an array of objects and nulls; below one that is not, only nulls are looked for.
    const badExtension = extensions !== null && key.startsWith('_') && (primitive || (Array.isArray(value) && !value.every((e) => e === null || isObject(e))));
    if (badExtension) extensions.push(createStructureIssue(`${path}.${key}`, `${EXTENSION_NOT_AN_OBJECT} (or an array of objects and nulls)`));
    if (primitive) continue;
    const propertyPath = `${path}.${key}`;
    const below = badExtension ? null : extensions;
    if (value === null) {
      issues.push(createStructureIssue(propertyPath, 'Invalid null value'));
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === undefined) {
          issues.push(createStructureIssue(`${propertyPath}[${i}]`, 'Invalid undefined value'));
        } else if (item === null && !(obj[key.startsWith('_') ? key.slice(1) : `_${key}`] as unknown[] | undefined)?.[i]) {
          // The one place FHIR JSON allows null: a primitive array whose extensions cover some values only.
          issues.push(createStructureIssue(`${propertyPath}[${i}]`, 'Invalid null value'));
        } else if (typeof item === 'object' && item !== null) {
          // A primitive has nothing below it that could be null (Medplum walks a string's characters here).
          checkObjectForNull(item as JsonObject, `${propertyPath}[${i}]`, issues, below);
        }
      }
    } else {
      checkObjectForNull(value as JsonObject, propertyPath, issues, below);
    }
  }
}

function matchesSpecifiedValue(value: TypedValue | TypedValue[], element: InternalSchemaElement): boolean {
  const typeAndValue = Array.isArray(value) ? value.map((v) => ({ type: v.type, value: v.value })) : { type: value.type, value: value.value };
  if (element.pattern && !deepIncludes(typeAndValue, element.pattern)) return false;
  if (element.fixed && !deepEquals(typeAndValue, element.fixed)) return false;
  return true;
}

function checkSliceElement(value: TypedValue, slicingRules: SlicingRules | undefined): string | undefined {
  if (!slicingRules) return undefined;
  for (const slice of slicingRules.slices) {
    const matches = slicingRules.discriminator.every((discriminator) =>
      arrayify(getNestedProperty(value, discriminator.path))?.some((v) => matchDiscriminant(v, discriminator, slice)),
    );
    if (matches) return slice.name;
  }
  return undefined;
}

function unpackPrimitiveElement(v: TypedValue): [TypedValue | undefined, TypedValue | undefined] {
  if (typeof v.value !== 'object' || !v.value) return [v, undefined];
  const primitiveValue: unknown = (v.value as object).valueOf();
  if (primitiveValue === v.value) return [undefined, { type: 'Element', value: v.value }];
  const primitiveKeys = new Set(Object.keys(primitiveValue as object));
  const extensionEntries = Object.entries(v.value as object).filter(([k]) => !primitiveKeys.has(k));
  const extensionElement = extensionEntries.length > 0 ? Object.fromEntries(extensionEntries) : undefined;
  return [
    { type: v.type, value: primitiveValue },
    { type: 'Element', value: extensionElement },
  ];
}
