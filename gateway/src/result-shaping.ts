import { createRequire } from 'node:module';
import {
  ERRORS,
  isCompositeType,
  isCustomScalarType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isSubtype,
  Variable,
  type CompositeType,
  type EnumType,
  type Field,
  type FieldSelection,
  type FragmentElement,
  type NamedType,
  type Operation,
  type Schema,
  type SelectionSet,
  type Type,
} from '@apollo/federation-internals';
import type { GraphQLError } from 'graphql';

/**
 * The last step of Apollo's query-plan execution, written to run once per field instead of once
 * per value: shaping the subgraphs' merged answers into the operation's response (aliases,
 * @skip/@include, __typename, null propagation and the value checks of GraphQL's completion).
 *
 * Apollo's `computeResponse` (@apollo/gateway/dist/resultShaping.js) walks the operation for every
 * object of the answer: for each value it reads the selection's directives, unwraps the field's
 * type and calls a dozen federation helpers through re-export getters: about a sixth of the
 * gateway's CPU on the benchmark's cross-subgraph query (50 objects). Here the operation is read
 * once per request into a plan (each selection set once, whatever the number of objects it
 * applies to) and the answer is walked against that plan. Results, errors and their order, and
 * the exceptions thrown for answers that break the plan's assumptions, are Apollo's, message for
 * message: result-shaping.test.ts checks that against Apollo's own function on generated answers,
 * and `installCompiledResultShaping` puts this in its place only where that function is found.
 */

export interface ShapingRequest {
  operation: Operation;
  variables?: Record<string, unknown> | undefined;
  input: Record<string, unknown> | null | undefined;
  introspectionHandling: (selection: FieldSelection) => unknown;
}

export interface ShapedResponse {
  data: Record<string, unknown> | null | undefined;
  errors: GraphQLError[];
}

export type ComputeResponse = (request: ShapingRequest) => ShapedResponse;

// ---------------------------------------------------------------------------------------------
// The plan: what each selection set does, read once per operation.

/** Whether a selection is skipped (@skip/@include), known once its directives are first read. */
type Skip = 'unknown' | 'yes' | 'no';

type Entry =
  | { kind: 'field'; element: Field; skip: Skip; responseName: string; shape: Shape; hasSelectionSet: boolean }
  | { kind: 'typename'; element: Field; skip: Skip; responseName: string }
  | { kind: 'introspection'; element: Field; skip: Skip; responseName: string; selection: FieldSelection }
  | { kind: 'fragment'; element: FragmentElement; skip: Skip; typeCondition: CompositeType | undefined; entries: readonly Entry[] };

/** Which of values.js's isValidLeafValue rules a leaf type follows. */
type Leaf = 'customScalar' | 'boolean' | 'int' | 'id' | 'float' | 'enum' | 'other';

type Shape =
  | { kind: 'nonNull'; type: Type; inner: Shape }
  | { kind: 'list'; type: Type; inner: Shape }
  | { kind: 'composite'; type: CompositeType; entries: readonly Entry[] | undefined }
  | { kind: 'leaf'; type: NamedType; leaf: Leaf };

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const TYPENAME = '__typename';

function leafKind(schema: Schema, type: NamedType): Leaf {
  if (isCustomScalarType(type)) return 'customScalar';
  if (type === schema.booleanType()) return 'boolean';
  if (type === schema.intType()) return 'int';
  if (type === schema.idType()) return 'id';
  if (type === schema.floatType()) return 'float';
  if (isEnumType(type)) return 'enum';
  return 'other';
}

/** values.js's isValidLeafValue for a type whose kind is known. */
function validLeaf(shape: { type: NamedType; leaf: Leaf }, value: unknown): boolean {
  const { leaf } = shape;
  if (leaf === 'customScalar') return true;
  if (typeof value === 'boolean') return leaf === 'boolean';
  if (typeof value === 'number' && isFinite(value)) {
    if (leaf === 'int' || leaf === 'id') return INTEGER.test(String(value));
    return leaf === 'float';
  }
  if (typeof value === 'string') {
    if (leaf === 'enum') return (shape.type as EnumType).value(value) !== undefined;
    return leaf !== 'boolean' && leaf !== 'int' && leaf !== 'float';
  }
  return false;
}

class Plan {
  private readonly compiled = new Map<SelectionSet, readonly Entry[]>();
  /**
   * Whether some @skip/@include reads a variable: its entry's `skip` is then settled by the
   * request's variables during the walk, and the plan is good for that request only.
   */
  perRequest = false;

  constructor(private readonly schema: Schema) {}

  /** An element's `skip` when its directives need no variable (none, or literal `if`s); else 'unknown', settled per request. */
  private staticSkip(element: Field | FragmentElement): Skip {
    const skip = element.appliedDirectivesOf(this.schema.skipDirective())[0];
    const include = element.appliedDirectivesOf(this.schema.includeDirective())[0];
    if (!skip && !include) return 'no';
    const skipIf = skip?.arguments()['if'];
    const includeIf = include?.arguments()['if'];
    if (skipIf instanceof Variable || includeIf instanceof Variable) {
      this.perRequest = true;
      return 'unknown';
    }
    return (skip && skipIf) || (include && !includeIf) ? 'yes' : 'no';
  }

  entries(selectionSet: SelectionSet): readonly Entry[] {
    const known = this.compiled.get(selectionSet);
    if (known) return known;
    const entries: Entry[] = [];
    for (const selection of selectionSet.selections()) {
      if (selection.kind === 'FieldSelection') {
        const element = selection.element;
        const responseName = element.responseName();
        const skip = this.staticSkip(element);
        if (element.definition.isSchemaIntrospectionField()) entries.push({ kind: 'introspection', element, skip, responseName, selection });
        else if (element.name === TYPENAME) entries.push({ kind: 'typename', element, skip, responseName });
        else {
          const sub = selection.selectionSet;
          entries.push({ kind: 'field', element, skip, responseName, shape: this.shape(element.definition.type!, sub), hasSelectionSet: !!sub });
        }
      } else {
        const element = selection.element;
        entries.push({ kind: 'fragment', element, skip: this.staticSkip(element), typeCondition: element.typeCondition, entries: this.entries(selection.selectionSet) });
      }
    }
    this.compiled.set(selectionSet, entries);
    return entries;
  }

  private shape(type: Type, selectionSet: SelectionSet | undefined): Shape {
    if (isNonNullType(type)) return { kind: 'nonNull', type, inner: this.shape(type.ofType, selectionSet) };
    if (isListType(type)) return { kind: 'list', type, inner: this.shape(type.ofType, selectionSet) };
    if (isCompositeType(type)) return { kind: 'composite', type, entries: selectionSet ? this.entries(selectionSet) : undefined };
    return { kind: 'leaf', type, leaf: leafKind(this.schema, type) };
  }
}

// ---------------------------------------------------------------------------------------------
// The walk: resultShaping.js's applySelectionSet and updateOutputValue over the plan.

/**
 * The response's objects. Like Apollo's `Object.create(null)` they inherit nothing, so a response
 * name such as `__proto__` or `constructor` is an own property like any other; unlike it they are
 * built by a constructor, which V8 gives fast properties where `Object.create(null)` makes a
 * dictionary: building and serializing the answer costs about a third less.
 */
const ResponseObject = function ResponseObject() {} as unknown as new () => Record<string, unknown>;
(ResponseObject as { prototype: unknown }).prototype = Object.create(null);

function getOwn(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

type Path = (string | number)[];

class Shaper {
  readonly errors: GraphQLError[] = [];
  private readonly path: Path = [];
  private readonly types = new Map<string, NamedType | undefined>();
  private variables: Record<string, unknown> | undefined;
  /** Set by every `update`: the value it returned makes its parent invalid (a null in a non-null position). */
  private invalid = false;
  /** Set by every `update`: an error was recorded for the value it returned. */
  private errored = false;

  constructor(
    private readonly request: ShapingRequest,
    private readonly schema: Schema,
  ) {}

  private type(name: string): NamedType | undefined {
    if (this.types.has(name)) return this.types.get(name);
    const type = this.schema.type(name);
    this.types.set(name, type);
    return type;
  }

  private skipped(entry: Entry): boolean {
    if (entry.skip === 'unknown') entry.skip = this.shouldSkip(entry.element) ? 'yes' : 'no';
    return entry.skip === 'yes';
  }

  private shouldSkip(element: Field | FragmentElement): boolean {
    const skip = element.appliedDirectivesOf(this.schema.skipDirective())[0];
    const include = element.appliedDirectivesOf(this.schema.includeDirective())[0];
    return !!((skip && this.ifValue(skip)) || (include && !this.ifValue(include)));
  }

  private ifValue(directive: { arguments(): { if?: unknown } }): boolean {
    const ifArg = directive.arguments().if;
    if (!(ifArg instanceof Variable)) return ifArg as boolean;
    this.variables ??= { __proto__: null, ...this.request.operation.collectDefaultedVariableValues(), ...this.request.variables };
    const value = this.variables[ifArg.name];
    if (value === undefined || typeof value !== 'boolean') throw new Error(`Unexpected value ${String(value)} for variable ${String(ifArg)} of ${String(directive)}`);
    return value;
  }

  private describeLast(currentType: Type, parentType: NamedType): string {
    const element = this.path[this.path.length - 1];
    if (element === undefined) throw new Error('Should not have been called on an empty path');
    return typeof element === 'string' ? `field ${String(parentType)}.${element}` : `array element of type ${String(currentType)} at index ${element}`;
  }

  private fail(message: string): void {
    this.errors.push(ERRORS.INVALID_GRAPHQL.err(message, { path: Array.from(this.path) }));
  }

  /** Apply `entries` to `input` into `output`; true when a null must bubble up to the parent. */
  apply(input: Record<string, unknown>, entries: readonly Entry[], output: Record<string, unknown>, parentType: NamedType): boolean {
    for (const entry of entries) {
      if (this.skipped(entry)) continue;
      switch (entry.kind) {
        case 'field': {
          const { responseName } = entry;
          const outputValue = output[responseName];
          const inputValue = getOwn(input, responseName) ?? null;
          this.path.push(responseName);
          output[responseName] = this.update(outputValue, entry.shape, entry.hasSelectionSet, inputValue, parentType);
          this.path.pop();
          if (this.invalid) return true;
          break;
        }
        case 'introspection':
          if (output[entry.responseName] === undefined) output[entry.responseName] = this.request.introspectionHandling(entry.selection);
          break;
        case 'typename': {
          const { responseName } = entry;
          if (output[responseName] !== undefined) break;
          let inputValue = getOwn(input, responseName) ?? null;
          if (inputValue === null && responseName !== TYPENAME) inputValue = input[TYPENAME] ?? null;
          const type = inputValue !== null && typeof inputValue === 'string' ? (this.type(inputValue) ?? parentType) : parentType;
          if (!isObjectType(type)) return true;
          output[responseName] = type.name;
          break;
        }
        case 'fragment': {
          const typename = input[TYPENAME];
          if (typename && typeof typename !== 'string') throw new Error(`Got unexpected value for __typename: ${String(typename)}`);
          if (this.typeConditionApplies(entry.typeCondition, typename, parentType) && this.apply(input, entry.entries, output, entry.typeCondition ?? parentType)) return true;
          break;
        }
      }
    }
    return false;
  }

  /** `typename` is a non-empty string or falsy (apply has checked it). */
  private typeConditionApplies(typeCondition: CompositeType | undefined, typename: unknown, parentType: NamedType): boolean {
    if (!typeCondition) return true;
    if (typename) {
      const type = this.type(typename as string);
      return !!type && isSubtype(typeCondition, type);
    }
    return isSubtype(typeCondition, parentType);
  }

  private done(value: unknown, invalid: boolean, errored: boolean): unknown {
    this.invalid = invalid;
    this.errored = errored;
    return value;
  }

  private update(outputValue: unknown, shape: Shape, hasSelectionSet: boolean, inputValue: unknown, parentType: NamedType): unknown {
    if (inputValue === undefined) throw new Error('Should not pass undefined for `inputValue` to this method');
    if (outputValue === null || (outputValue !== undefined && !hasSelectionSet)) return this.done(outputValue, false, false);
    if (shape.kind === 'nonNull') {
      const updated = this.update(outputValue, shape.inner, hasSelectionSet, inputValue, parentType);
      if (updated !== null) return this.done(updated, false, false);
      if (!this.errored) this.fail(`Cannot return null for non-nullable ${this.describeLast(shape.inner.type, parentType)}.`);
      return this.done(updated, true, true);
    }
    if (inputValue === null) return this.done(null, false, false);
    switch (shape.kind) {
      case 'list': {
        if (!Array.isArray(inputValue)) throw new Error(`Invalid non-list value ${String(inputValue)} returned by subgraph for list type ${String(shape.type)}`);
        if (outputValue !== undefined && !Array.isArray(outputValue)) throw new Error(`Invalid non-list value ${String(outputValue)} returned by subgraph for list type ${String(shape.type)}`);
        const outputList = outputValue as unknown[] | undefined;
        if (outputList && inputValue.length !== outputList.length) throw new Error(`[${String(inputValue)}].length (${inputValue.length}) !== [${String(outputList)}].length (${outputList.length})`);
        const updated: unknown[] = [];
        let nullify = false;
        let errored = false;
        for (let index = 0; index < inputValue.length; index++) {
          this.path.push(index);
          updated.push(this.update(outputList?.[index], shape.inner, hasSelectionSet, inputValue[index], parentType));
          this.path.pop();
          nullify ||= this.invalid;
          errored ||= this.errored;
        }
        return this.done(nullify ? null : updated, false, errored);
      }
      case 'composite': {
        if (!shape.entries) throw new Error(`Invalid empty selection set for composite type ${String(shape.type)}`);
        if (typeof inputValue !== 'object') throw new Error(`Invalid non-object value ${String(inputValue)} returned by subgraph for composite type ${String(shape.type)}`);
        if (outputValue !== undefined && typeof outputValue !== 'object') throw new Error(`Invalid non-object value ${String(inputValue)} returned by subgraph for composite type ${String(shape.type)}`);
        const input = inputValue as Record<string, unknown>;
        const inputTypename = input[TYPENAME];
        if (inputTypename !== undefined && typeof inputTypename !== 'string') throw new Error(`Invalid non-string value ${String(inputTypename)} for __typename at ${String(this.path)}`);
        let objectType: NamedType = shape.type;
        if (inputTypename) {
          const type = this.type(inputTypename);
          if (!type || !isCompositeType(type)) {
            this.fail(`Invalid __typename found for object at ${this.describeLast(shape.type, parentType)}.`);
            return this.done(null, false, true);
          }
          objectType = type;
        }
        const output = (outputValue ?? new ResponseObject()) as Record<string, unknown>;
        const bubbled = this.apply(input, shape.entries, output, objectType);
        return this.done(bubbled ? null : output, false, bubbled);
      }
      case 'leaf': {
        if (outputValue !== undefined) throw new Error(`Excepted output to be undefined but got ${String(shape.type)} for type ${String(shape.type)}`);
        if (validLeaf(shape, inputValue)) return this.done(inputValue, false, false);
        this.fail(`Invalid value found for ${this.describeLast(shape.type, parentType)}.`);
        return this.done(null, false, true);
      }
    }
  }
}

/**
 * The plans of operations whose @skip/@include read no variable, kept with the operation (the
 * executor's operations are kept per parsed document, operation-cache.ts): read once, not per request.
 */
const plans = new WeakMap<Operation, readonly Entry[]>();

function planOf(operation: Operation, schema: Schema): readonly Entry[] {
  const known = plans.get(operation);
  if (known) return known;
  const plan = new Plan(schema);
  const entries = plan.entries(operation.selectionSet);
  if (!plan.perRequest) plans.set(operation, entries);
  return entries;
}

/** resultShaping.js's computeResponse, over a plan read once per operation (or per request when variables settle a @skip/@include). */
export const computeResponse: ComputeResponse = (request) => {
  const { operation, input } = request;
  if (!input) return { data: input, errors: [] };
  const schema = operation.schema();
  const shaper = new Shaper(request, schema);
  const data = new ResponseObject();
  const rootType = schema.schemaDefinition.rootType(operation.rootKind)!;
  const bubbled = shaper.apply(input, planOf(operation, schema), data, rootType);
  return { data: bubbled ? null : data, errors: shaper.errors };
};

// ---------------------------------------------------------------------------------------------
// Putting it in Apollo's place.

interface ResultShapingModule {
  computeResponse?: unknown;
}

const apolloModule = createRequire(import.meta.url)('@apollo/gateway/dist/resultShaping.js') as ResultShapingModule;

/** Apollo's own function, as @apollo/gateway ships it (the equivalence test compares against it). */
export const apolloComputeResponse = apolloModule.computeResponse as ComputeResponse | undefined;

/**
 * Have Apollo's query-plan executor shape results with `computeResponse` above. executeQueryPlan.js
 * calls the function through its module's exports on every request, so replacing the export is
 * enough. False when @apollo/gateway no longer has that module (the gateway then keeps Apollo's
 * own shaping, only slower).
 */
export function installCompiledResultShaping(): boolean {
  if (typeof apolloComputeResponse !== 'function') return false;
  apolloModule.computeResponse = computeResponse;
  return true;
}
