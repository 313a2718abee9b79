import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildSchema as buildFederationSchema, operationFromDocument } from '@apollo/federation-internals';
import {
  buildSchema,
  isAbstractType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { Rng, seedOf } from '../../test/fuzz/random.js';
import { apolloComputeResponse, computeResponse, installCompiledResultShaping, type ComputeResponse, type ShapingRequest } from './result-shaping.js';

const SDL = `
  scalar DateTime
  enum Status { ACTIVE PAUSED }
  interface Node { id: ID! }
  type Partner implements Node { id: ID! gpid: String! legalName: String status: Status! score: Float active: Boolean syncJobs: [SyncJob!] parent: Partner since: DateTime }
  type SyncJob implements Node { id: ID! jobId: String! status: Status attempts: Int }
  union SearchResult = Partner | SyncJob
  type Query {
    partners(first: Int): [Partner!]!
    partner(id: ID!): Partner
    node(id: ID!): Node
    search(text: String): [SearchResult]
    count: Int!
    grid: [[Int!]]!
  }
`;

/** Operations covering what result shaping handles: aliases, merges, fragments, directives, __typename, introspection. */
const OPERATIONS: { name: string; query: string; variables: () => Record<string, unknown>[] }[] = [
  { name: 'list of entities', query: '{ partners(first: 50) { gpid legalName syncJobs { jobId status } } }', variables: () => [{}] },
  {
    name: 'aliases and merged selections',
    query: '{ a: partner(id: "1") { id n: legalName parent { gpid } } a: partner(id: "1") { parent { status legalName } } count t: __typename }',
    variables: () => [{}],
  },
  {
    name: 'fragments on interfaces and unions',
    query: `{ node(id: "1") { id __typename ... on Partner { gpid ...P } ... on SyncJob { jobId attempts } }
              search(text: "x") { kind: __typename ... on Node { id } ... on Partner { status score } ... on SyncJob { status } } }
            fragment P on Partner { legalName since active k: __typename }`,
    variables: () => [{}],
  },
  {
    name: '@skip and @include',
    query: `query Q($s: Boolean!, $i: Boolean = true) { partners { gpid @skip(if: $s) legalName @include(if: $i) score @skip(if: false) active @include(if: false)
              ... on Partner @include(if: $s) { status } syncJobs @skip(if: $s) { jobId } } }`,
    variables: () => [{ s: true }, { s: false }, { s: false, i: false }, { s: 'yes' }, {}],
  },
  { name: 'nested lists', query: '{ grid count }', variables: () => [{}] },
  {
    name: 'response names that objects inherit',
    query: '{ __proto__: count constructor: count partner(id: "1") { toString: legalName hasOwnProperty: gpid valueOf: parent { __proto__: id } } }',
    variables: () => [{}],
  },
  { name: 'introspection beside data', query: '{ __schema { queryType { name } } __type(name: "Partner") { name } count }', variables: () => [{}] },
];

const schema = buildSchema(SDL);
const federationSchema = buildFederationSchema(SDL);

/**
 * An answer as the subgraphs could send it for a selection set: mostly conforming, sometimes not
 * (nulls, missing keys, values of the wrong kind, unknown or non-composite __typenames).
 */
function answer(rng: Rng, type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, existing?: unknown): unknown {
  const odd = rng.chance(0.06);
  if (odd) {
    const oddValues = [null, 'text', 7, 1.5, true, {}, [], { __typename: 'Status' }, { __typename: 'Nope' }, { __typename: 5 }];
    return oddValues[rng.int(oddValues.length)];
  }
  if (isNonNullType(type)) return answer(rng, type.ofType, selectionSet, fragments, existing);
  if (rng.chance(0.04)) return null;
  if (isListType(type)) {
    const length = Array.isArray(existing) ? existing.length : rng.int(4);
    return Array.from({ length }, (_, index) => answer(rng, type.ofType, selectionSet, fragments, Array.isArray(existing) ? existing[index] : undefined));
  }
  const named = type as GraphQLNamedType;
  if (isScalarType(named)) {
    if (named.name === 'Int') return rng.int(100);
    if (named.name === 'Float') return rng.next() * 10;
    if (named.name === 'Boolean') return rng.chance(0.5);
    if (named.name === 'ID') return rng.chance(0.5) ? String(rng.int(100)) : rng.int(100);
    return `s${rng.int(100)}`;
  }
  if (isEnumType(named)) return rng.chance(0.9) ? 'ACTIVE' : 'GONE';
  const object: GraphQLObjectType = isAbstractType(named) ? pick(rng, schema.getPossibleTypes(named)) : (named as GraphQLObjectType);
  const output = (existing && typeof existing === 'object' && !Array.isArray(existing) ? existing : {}) as Record<string, unknown>;
  if ((isAbstractType(named) || rng.chance(0.3)) && !Object.hasOwn(output, '__typename')) setOwn(output, '__typename', object.name);
  fill(rng, object, selectionSet!, fragments, output);
  return output;
}

function fill(rng: Rng, object: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, output: Record<string, unknown>): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === 'Field') {
      const key = selection.alias?.value ?? selection.name.value;
      if (selection.name.value.startsWith('__')) {
        if (selection.name.value === '__typename' && rng.chance(0.5)) setOwn(output, key, rng.chance(0.9) ? object.name : 'Nope');
        continue;
      }
      if (rng.chance(0.03)) continue;
      const field = object.getFields()[selection.name.value];
      if (field) setOwn(output, key, answer(rng, field.type, selection.selectionSet, fragments, Object.hasOwn(output, key) ? output[key] : undefined));
    } else {
      const fragment = selection.kind === 'FragmentSpread' ? fragments.get(selection.name.value)! : selection;
      const condition = fragment.typeCondition?.name.value;
      const applies = !condition || condition === object.name || (isAbstractType(schema.getType(condition)!) && schema.isSubType(schema.getType(condition) as never, object));
      if (applies || rng.chance(0.1)) fill(rng, object, fragment.selectionSet, fragments, output);
    }
  }
}

/** An own property whatever its name (`__proto__` included), as JSON.parse makes it. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[rng.int(items.length)]!;
}

/** What a shaping function gave: the data as serialized (key order included), the errors, or what it threw. */
function outcome(shape: ComputeResponse, request: ShapingRequest): unknown {
  try {
    const { data, errors } = shape(request);
    return { data: JSON.stringify(data), errors: errors.map((e) => ({ message: e.message, path: e.path, extensions: e.extensions })) };
  } catch (err) {
    return { thrown: err instanceof Error ? err.message : String(err) };
  }
}

describe('compiled result shaping', () => {
  it('finds Apollo’s own function to stand in for', () => {
    expect(typeof apolloComputeResponse).toBe('function');
  });

  for (const { name, query, variables } of OPERATIONS) {
    it(`gives what Apollo’s computeResponse gives: ${name}`, () => {
      const document = parse(query);
      const operation = operationFromDocument(federationSchema, document);
      const definition = document.definitions.find((d) => d.kind === 'OperationDefinition')!;
      const fragments = new Map(document.definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d] as const] : [])));
      const introspectionHandling = (selection: { element: { responseName(): string } }) => ({ introspected: selection.element.responseName() });
      const kinds = new Set<string>();
      for (const vars of variables()) {
        for (let n = 0; n < 400; n++) {
          const rng = new Rng(seedOf(name, JSON.stringify(vars), n));
          const input = { __proto__: null } as unknown as Record<string, unknown>;
          fill(rng, schema.getQueryType()!, definition.selectionSet, fragments, input);
          const request: ShapingRequest = { operation, variables: vars, input, introspectionHandling };
          const expected = outcome(apolloComputeResponse!, request);
          expect(outcome(computeResponse, request), `case ${n} with ${JSON.stringify(vars)}: ${JSON.stringify(input)}`).toEqual(expected);
          kinds.add(Object.keys(expected as object).join('+'));
          const { errors } = expected as { errors?: unknown[] };
          if (errors?.length) kinds.add('errors');
        }
      }
      // The generated answers reach the clean, the erroneous and (where a value breaks Apollo's
      // assumptions) the thrown outcomes, so the comparison covers all three.
      expect(kinds.has('data+errors')).toBe(true);
      if (name !== 'introspection beside data') {
        expect(kinds.has('errors')).toBe(true);
        expect(kinds.has('thrown')).toBe(true);
      }
    });
  }

  it('an empty answer is passed through', () => {
    const operation = operationFromDocument(federationSchema, parse('{ count }'));
    for (const input of [null, undefined]) {
      const request = { operation, input, introspectionHandling: () => null };
      expect(computeResponse(request)).toEqual(apolloComputeResponse!(request));
    }
  });

  it('takes the place of Apollo’s function for the query-plan executor', () => {
    expect(installCompiledResultShaping()).toBe(true);
    const module = createRequire(import.meta.url)('@apollo/gateway/dist/resultShaping.js') as { computeResponse: unknown };
    expect(module.computeResponse).toBe(computeResponse);
  });
});
