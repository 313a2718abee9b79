import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  parse,
  valueFromAST,
  type ArgumentNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import type { Principal } from '../auth/principal.js';

/**
 * Bounds on one GraphQL operation, checked by the gateway before any subgraph is called. Every
 * number is configurable through an `SVC_GRAPHQL_*` variable (see README.md).
 */
export interface OperationLimits {
  /** Deepest selection (fields nested in fields); `__schema` introspection is not counted. */
  maxDepth: number;
  /** Aliased fields in one operation (`__typename` aliases are free). */
  maxAliases: number;
  /** Lexical tokens of the whole document; the parser stops at the first one over. */
  maxTokens: number;
  /** Directives in one operation. */
  maxDirectives: number;
  /** Largest value of a page-size argument (`first`, `last`, `count`, `limit`). */
  maxPageSize: number;
  /** Cost budget of one operation, per principal class (see {@link operationCost}). */
  costBudget: Record<PrincipalClass, number>;
  /** An answer larger than this many bytes (JSON) becomes a RESPONSE_TOO_LARGE error. */
  maxResponseBytes: number;
}

/** Whose budget an operation spends: anonymous < partner (API tokens, OAuth, portal sessions) < service. */
export type PrincipalClass = 'anonymous' | 'partner' | 'service';

export const DEFAULT_OPERATION_LIMITS: OperationLimits = Object.freeze({
  maxDepth: 10,
  maxAliases: 30,
  maxTokens: 5000,
  maxDirectives: 20,
  maxPageSize: 100,
  costBudget: Object.freeze({ anonymous: 1000, partner: 10_000, service: 50_000 }),
  maxResponseBytes: 5 * 1024 * 1024,
});

/** Arguments that size a list: the cost model multiplies by them and refuses values over the maximum. */
export const PAGE_SIZE_ARGUMENTS: readonly string[] = ['first', 'last', 'count', 'limit'];
/** Assumed length of a list field without a page-size argument (most of our unpaged lists are short; `syncJobs` holds at most 20). */
export const DEFAULT_LIST_SIZE = 10;
/** What one field costs, and what a field resolved by another subgraph than its parent adds (one more fetch). */
export const FIELD_COST = 1;
export const CROSS_SUBGRAPH_COST = 10;

/** The codes a refused operation carries (all HTTP 400). */
export type OperationLimitCode = Extract<
  ErrorCode,
  'OPERATION_TOO_DEEP' | 'TOO_MANY_ALIASES' | 'TOO_MANY_TOKENS' | 'TOO_MANY_DIRECTIVES' | 'PAGE_SIZE_TOO_LARGE' | 'OPERATION_TOO_COSTLY' | 'RESPONSE_TOO_LARGE'
>;
const LIMIT_CODES: ReadonlySet<string> = new Set<OperationLimitCode>([
  'OPERATION_TOO_DEEP',
  'TOO_MANY_ALIASES',
  'TOO_MANY_TOKENS',
  'TOO_MANY_DIRECTIVES',
  'PAGE_SIZE_TOO_LARGE',
  'OPERATION_TOO_COSTLY',
  'RESPONSE_TOO_LARGE',
]);

export function isOperationLimitCode(code: unknown): code is OperationLimitCode {
  return typeof code === 'string' && LIMIT_CODES.has(code);
}

/** A refusal: a GraphQL error whose extensions carry the stable code, its status and the limit. */
export function operationLimitError(code: OperationLimitCode, message: string, details: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...details, code, status: ERROR_STATUS[code] } });
}

export function principalClass(principal: Pick<Principal, 'kind'>): PrincipalClass {
  if (principal.kind === 'service') return 'service';
  if (principal.kind === 'anonymous') return 'anonymous';
  return 'partner';
}

/**
 * Read the limits from `SVC_GRAPHQL_*` variables through the config loader's integer reader, so a
 * bad value is reported with every other configuration problem.
 */
export function readOperationLimits(int: (name: string, fallback: number, min: number, max: number) => number): OperationLimits {
  const d = DEFAULT_OPERATION_LIMITS;
  return {
    maxDepth: int('SVC_GRAPHQL_MAX_DEPTH', d.maxDepth, 2, 100),
    maxAliases: int('SVC_GRAPHQL_MAX_ALIASES', d.maxAliases, 0, 10_000),
    maxTokens: int('SVC_GRAPHQL_MAX_TOKENS', d.maxTokens, 100, 1_000_000),
    maxDirectives: int('SVC_GRAPHQL_MAX_DIRECTIVES', d.maxDirectives, 0, 10_000),
    maxPageSize: int('SVC_GRAPHQL_MAX_PAGE_SIZE', d.maxPageSize, 1, 10_000),
    costBudget: {
      anonymous: int('SVC_GRAPHQL_COST_ANONYMOUS', d.costBudget.anonymous, 1, 100_000_000),
      partner: int('SVC_GRAPHQL_COST_PARTNER', d.costBudget.partner, 1, 100_000_000),
      service: int('SVC_GRAPHQL_COST_SERVICE', d.costBudget.service, 1, 100_000_000),
    },
    maxResponseBytes: int('SVC_GRAPHQL_MAX_RESPONSE_BYTES', d.maxResponseBytes, 1024, 1024 * 1024 * 1024),
  };
}

/**
 * The deepest a document may nest braces, brackets and parentheses (selection sets, arguments, list
 * and input-object values). graphql-js parses recursively: without this bound, a value nested a few
 * thousand levels deep overflows the stack inside the parser, before the token limit is reached.
 * Far above any operation the depth limit lets run, so that those keep its precise refusal.
 */
export const MAX_DOCUMENT_NESTING = 256;

/**
 * Whether a GraphQL document's text nests `{`, `[` or `(` more than `max` levels deep, outside
 * strings, block strings and comments. One pass over the text, stopped at the first level too deep.
 */
export function documentNestedDeeperThan(query: string, max: number): boolean {
  let depth = 0;
  const length = query.length;
  for (let i = 0; i < length; i++) {
    const c = query.charCodeAt(i);
    if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      if (depth > 0) depth--;
    } else if (c === 0x23) {
      // A comment runs to the end of its line.
      while (i + 1 < length && query.charCodeAt(i + 1) !== 0x0a && query.charCodeAt(i + 1) !== 0x0d) i++;
    } else if (c === 0x22) {
      if (query.startsWith('"""', i)) {
        // A block string ends at the next unescaped triple quote.
        const end = blockStringEnd(query, i + 3);
        if (end === -1) return false;
        i = end + 2;
      } else {
        // A string ends at its closing quote or, unterminated, at the line's end (the parser's error then).
        for (i++; i < length; i++) {
          const d = query.charCodeAt(i);
          if (d === 0x5c) i++;
          else if (d === 0x22 || d === 0x0a || d === 0x0d) break;
        }
      }
    }
  }
  return false;
}

function blockStringEnd(query: string, from: number): number {
  for (let at = query.indexOf('"""', from); at !== -1; at = query.indexOf('"""', at + 1)) {
    if (query.charCodeAt(at - 1) !== 0x5c) return at;
  }
  return -1;
}

export function nestingLimitError(): GraphQLError {
  return operationLimitError('OPERATION_TOO_DEEP', `The document nests selection sets, arguments, lists or input objects more than ${MAX_DOCUMENT_NESTING} levels deep.`, { limit: MAX_DOCUMENT_NESTING });
}

/**
 * Parse with the token and nesting limits; a document over one of them is refused with
 * TOO_MANY_TOKENS or OPERATION_TOO_DEEP.
 */
export function parseBounded(query: string, limits: Pick<OperationLimits, 'maxTokens'>): DocumentNode {
  if (documentNestedDeeperThan(query, MAX_DOCUMENT_NESTING)) throw nestingLimitError();
  try {
    return parse(query, { maxTokens: limits.maxTokens });
  } catch (err) {
    if (err instanceof GraphQLError && tokenLimitExceeded(err)) throw tokenLimitError(limits);
    throw err;
  }
}

/** graphql-js reports the `maxTokens` parse option's refusal as a syntax error with this wording. */
export function tokenLimitExceeded(error: { message: string }): boolean {
  return /Document contains more tha[nt] \d+ tokens/.test(error.message);
}

export function tokenLimitError(limits: Pick<OperationLimits, 'maxTokens'>): GraphQLError {
  return operationLimitError('TOO_MANY_TOKENS', `The document has more than ${limits.maxTokens} tokens.`, { limit: limits.maxTokens });
}

/**
 * Depth, alias and directive limits as plain graphql-js validation rules (graphql-armor's rules),
 * reporting our codes instead of throwing.
 */
export function operationLimitRules(limits: Pick<OperationLimits, 'maxDepth' | 'maxAliases' | 'maxDirectives'>): ValidationRule[] {
  const report = (code: OperationLimitCode, limit: number, what: string) => [
    (context: ValidationContext | null, error: GraphQLError) => {
      const found = /found (\d+)/.exec(error.message)?.[1];
      context?.reportError(
        operationLimitError(code, `The operation ${what} is over the limit of ${limit}${found ? ` (found ${found})` : ''}.`, { limit, ...(found ? { found: Number(found) } : {}) }),
      );
    },
  ];
  return [
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, propagateOnRejection: false, onReject: report('OPERATION_TOO_DEEP', limits.maxDepth, 'depth') }),
    maxAliasesRule({ n: limits.maxAliases, propagateOnRejection: false, onReject: report('TOO_MANY_ALIASES', limits.maxAliases, 'alias count') }),
    maxDirectivesRule({ n: limits.maxDirectives, propagateOnRejection: false, onReject: report('TOO_MANY_DIRECTIVES', limits.maxDirectives, 'directive count') }),
  ];
}

/**
 * Which subgraphs can resolve each field, read from a supergraph's `@join__type` / `@join__field`
 * directives. Empty for a schema that is not a supergraph: then nothing counts as cross-subgraph.
 */
export interface FieldOwnership {
  graphsOf(typeName: string, fieldName: string): readonly string[];
}

const NO_GRAPHS: readonly string[] = [];

export function fieldOwnership(supergraphSdl: string | undefined): FieldOwnership {
  const typeGraphs = new Map<string, string[]>();
  const fieldGraphs = new Map<string, string[]>();
  if (supergraphSdl) {
    const document = parse(supergraphSdl, { noLocation: true });
    const graphArg = (args: readonly ArgumentNode[] | undefined) => {
      const value = args?.find((a) => a.name.value === 'graph')?.value;
      return value?.kind === Kind.ENUM ? value.value : undefined;
    };
    for (const definition of document.definitions) {
      if (
        definition.kind !== Kind.OBJECT_TYPE_DEFINITION &&
        definition.kind !== Kind.OBJECT_TYPE_EXTENSION &&
        definition.kind !== Kind.INTERFACE_TYPE_DEFINITION &&
        definition.kind !== Kind.INTERFACE_TYPE_EXTENSION
      ) {
        continue;
      }
      const typeName = definition.name.value;
      const graphs = typeGraphs.get(typeName) ?? [];
      for (const directive of definition.directives ?? []) {
        const graph = directive.name.value === 'join__type' ? graphArg(directive.arguments) : undefined;
        if (graph && !graphs.includes(graph)) graphs.push(graph);
      }
      typeGraphs.set(typeName, graphs);
      for (const field of definition.fields ?? []) {
        const owners: string[] = [];
        for (const directive of field.directives ?? []) {
          if (directive.name.value !== 'join__field') continue;
          const external = directive.arguments?.find((a) => a.name.value === 'external')?.value;
          if (external?.kind === Kind.BOOLEAN && external.value) continue;
          const graph = graphArg(directive.arguments);
          if (graph && !owners.includes(graph)) owners.push(graph);
        }
        if (owners.length > 0) fieldGraphs.set(`${typeName}.${field.name.value}`, owners);
      }
    }
  }
  return {
    graphsOf: (typeName, fieldName) => fieldGraphs.get(`${typeName}.${fieldName}`) ?? typeGraphs.get(typeName) ?? NO_GRAPHS,
  };
}

export interface CostInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  variables?: Readonly<Record<string, unknown>> | null | undefined;
  ownership: FieldOwnership;
  maxPageSize: number;
  /** Counting stops once the cost passes this (the answer is then some value over it). */
  stopAbove?: number;
}

/**
 * The static cost of an operation, computed from the document alone before anything runs:
 *
 * - every field costs {@link FIELD_COST} (`__typename` and introspection are free);
 * - a field that another subgraph than its parent's resolves adds {@link CROSS_SUBGRAPH_COST};
 * - a field's selection is multiplied by its page-size argument (`first`, `last`, …, or the
 *   argument's default, or {@link DEFAULT_LIST_SIZE} for a list without one); on a connection the
 *   page size multiplies what is under its `edges` / `nodes` list, not the connection twice.
 *
 * A page-size argument over `maxPageSize` is refused with PAGE_SIZE_TOO_LARGE.
 */
export function operationCost(input: CostInput): number {
  const operation = selectOperation(input.document, input.operationName);
  if (!operation) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of input.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const variables = input.variables ?? {};
  const stopAbove = input.stopAbove ?? Number.POSITIVE_INFINITY;
  const root =
    operation.operation === 'mutation' ? input.schema.getMutationType() : operation.operation === 'subscription' ? input.schema.getSubscriptionType() : input.schema.getQueryType();
  if (!root) return 0;

  const pageSizeOf = (field: GraphQLField<unknown, unknown>, args: readonly ArgumentNode[] | undefined, fieldName: string): number | undefined => {
    let size: number | undefined;
    for (const definition of field.args) {
      if (!PAGE_SIZE_ARGUMENTS.includes(definition.name)) continue;
      const node = args?.find((a) => a.name.value === definition.name);
      const value = node ? valueFromAST(node.value, definition.type, variables as Record<string, unknown>) : definition.defaultValue;
      if (typeof value !== 'number') continue;
      if (value > input.maxPageSize) {
        throw operationLimitError('PAGE_SIZE_TOO_LARGE', `${fieldName}(${definition.name}:) must be at most ${input.maxPageSize} (got ${value}).`, {
          limit: input.maxPageSize,
          field: fieldName,
          argument: definition.name,
        });
      }
      size = Math.max(size ?? 0, value, 0);
    }
    return size;
  };

  const fragmentCosts = new Map<string, number>();
  // Cost of a selection set for one instance of its parent; `pending` is a page size still to be
  // applied by the first list below (a connection's edges).
  const selectionCost = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType, graph: string | null, pending: number | undefined, seen: ReadonlySet<string>): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (total > stopAbove) return total;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? input.schema.getType(selection.typeCondition.name.value) : parent;
        if (type && isCompositeType(type)) total += selectionCost(selection.selectionSet, type, graph, pending, seen);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) continue;
        // Each fragment is costed once per context, so spreading it many times costs no work.
        const key = `${name}|${graph ?? ''}|${pending ?? ''}`;
        let cost = fragmentCosts.get(key);
        if (cost === undefined) {
          const type = input.schema.getType(fragment.typeCondition.name.value);
          cost = type && isCompositeType(type) ? selectionCost(fragment.selectionSet, type, graph, pending, new Set([...seen, name])) : 0;
          fragmentCosts.set(key, cost);
        }
        total += cost;
        continue;
      }
      const fieldName = selection.name.value;
      if (fieldName.startsWith('__')) continue;
      if (!('getFields' in parent)) continue;
      const field = parent.getFields()[fieldName];
      if (!field) continue;
      const owners = input.ownership.graphsOf(parent.name, fieldName);
      const crosses = graph !== null && owners.length > 0 && !owners.includes(graph);
      const fieldGraph = graph !== null && owners.includes(graph) ? graph : (owners[0] ?? graph);
      let cost = FIELD_COST + (crosses ? CROSS_SUBGRAPH_COST : 0);
      const named = getNamedType(field.type);
      const pageSize = pageSizeOf(field, selection.arguments, `${parent.name}.${fieldName}`);
      if (selection.selectionSet && isCompositeType(named)) {
        const isList = isListType(getNullableType(field.type));
        let multiplier = 1;
        let passDown: number | undefined;
        if (isList) multiplier = pageSize ?? pending ?? DEFAULT_LIST_SIZE;
        else passDown = pageSize;
        cost += multiplier * selectionCost(selection.selectionSet, named, fieldGraph, passDown, seen);
      }
      total += cost;
    }
    return total;
  };

  return selectionCost(operation.selectionSet, root, null, undefined, new Set());
}

function selectOperation(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName) return operations.find((o) => o.name?.value === operationName);
  return operations.length === 1 ? operations[0] : undefined;
}

/** Refuse an operation whose cost is over the budget of the caller's principal class. */
export function checkOperationCost(input: Omit<CostInput, 'stopAbove'> & { principal: Pick<Principal, 'kind'>; budget: OperationLimits['costBudget'] }): void {
  const kind = principalClass(input.principal);
  const budget = input.budget[kind];
  const cost = operationCost({ ...input, stopAbove: budget });
  if (cost > budget) {
    throw operationLimitError(
      'OPERATION_TOO_COSTLY',
      `The operation costs more than the ${budget} allowed to ${kind === 'anonymous' ? 'anonymous callers' : `${kind} credentials`}; ask for smaller pages or fewer fields.`,
      { limit: budget, principalClass: kind },
    );
  }
}

/** True when the operation reads the schema (`__schema` or `__type`); `__typename` is not introspection. */
export function isIntrospection(document: DocumentNode, operationName: string | null | undefined): boolean {
  const operation = selectOperation(document, operationName);
  if (!operation) return false;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const visit = (selectionSet: SelectionSetNode, seen: ReadonlySet<string>): boolean =>
    selectionSet.selections.some((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === '__schema' || s.name.value === '__type';
      if (s.kind === Kind.INLINE_FRAGMENT) return visit(s.selectionSet, seen);
      const fragment = fragments.get(s.name.value);
      return !!fragment && !seen.has(s.name.value) && visit(fragment.selectionSet, new Set([...seen, s.name.value]));
    });
  return visit(operation.selectionSet, new Set());
}

/** Validation messages without "Did you mean …?" hints, which would reveal field and type names. */
export function withoutSuggestions(message: string): string {
  return message.replace(/\s*Did you mean [^?]*\?/g, '').trim();
}
