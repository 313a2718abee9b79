import { execute, parse, validate, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { toGraphQLError } from './errors.js';

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown> | null | undefined;
  operationName?: string | null | undefined;
}

const MAX_CACHED_DOCUMENTS = 1000;

/**
 * Parse-and-validate once per distinct document, then execute. Callers send a small, fixed set of
 * documents (the gateway's query plans), so the cache turns almost every request into execution only.
 */
export function createExecutor<C extends object>(schema: GraphQLSchema, onInternal: (err: unknown) => void) {
  const documents = new Map<string, DocumentNode>();

  function documentFor(query: string): DocumentNode | readonly GraphQLError[] {
    const cached = documents.get(query);
    if (cached) return cached;
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch (err) {
      return [err instanceof GraphQLError ? err : new GraphQLError(String(err))];
    }
    const errors = validate(schema, document);
    if (errors.length > 0) return errors;
    if (documents.size >= MAX_CACHED_DOCUMENTS) documents.delete(documents.keys().next().value as string);
    documents.set(query, document);
    return document;
  }

  return async function run(request: GraphQLRequest, contextValue: C): Promise<ExecutionResult> {
    const document = documentFor(request.query);
    if (!('kind' in document)) {
      return { errors: document.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'BAD_REQUEST', status: 400 } })) };
    }
    const result = await execute({
      schema,
      document,
      variableValues: request.variables ?? undefined,
      operationName: request.operationName ?? undefined,
      contextValue,
    });
    if (!result.errors) return result;
    return { ...result, errors: result.errors.map((e) => toGraphQLError(e, onInternal)) };
  };
}
