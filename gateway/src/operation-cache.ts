import { createRequire } from 'node:module';
import { Kind, type DefinitionNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Operation, Schema } from '@apollo/federation-internals';

/**
 * Apollo's query-plan executor (@apollo/gateway/dist/executeQueryPlan.js) turns the request's
 * parsed operation into federation-internals' `Operation` on every request, to shape the result:
 * `operationFromDocument(apiSchema, { operation, ...fragments }, { validate: false })`, about 4 %
 * of the gateway's CPU on the benchmark's cross-subgraph query. Apollo Server keeps one parsed
 * document per query text, so the operation's definition node is the same object from one request
 * to the next: the `Operation` built for it is kept, per API schema and definition node, in weak
 * maps (dropped with the document or the schema), and built again only for a new one.
 *
 * Only that call is served from memory: the executor's is the one call with `validate: false` and
 * no operation name (its document holds exactly one operation, first, then that document's own
 * fragments). An `Operation` is not changed by the executor nor by the result shaping
 * (result-shaping.ts), which only read it; anything that throws is not kept, so it throws again.
 */

type OperationFromDocument = (schema: Schema, document: DocumentNode, options?: { operationName?: string; validate?: boolean }) => Operation;

interface OperationsModule {
  operationFromDocument?: unknown;
}

const operationsModule = createRequire(import.meta.url)('@apollo/federation-internals/dist/operations.js') as OperationsModule;
const apolloOperationFromDocument = operationsModule.operationFromDocument as OperationFromDocument | undefined;

const cache = new WeakMap<Schema, WeakMap<OperationDefinitionNode, Operation>>();

function executorsOperation(document: DocumentNode, options: { operationName?: string; validate?: boolean } | undefined): OperationDefinitionNode | undefined {
  if (!options || options.validate !== false || options.operationName !== undefined) return undefined;
  const first: DefinitionNode | undefined = document.definitions[0];
  if (first?.kind !== Kind.OPERATION_DEFINITION) return undefined;
  for (let i = 1; i < document.definitions.length; i++) if (document.definitions[i]!.kind !== Kind.FRAGMENT_DEFINITION) return undefined;
  return first;
}

const cachedOperationFromDocument: OperationFromDocument = (schema, document, options) => {
  const node = executorsOperation(document, options);
  if (!node) return apolloOperationFromDocument!(schema, document, options);
  let bySchema = cache.get(schema);
  if (!bySchema) cache.set(schema, (bySchema = new WeakMap()));
  let operation = bySchema.get(node);
  if (!operation) {
    operation = apolloOperationFromDocument!(schema, document, options);
    bySchema.set(node, operation);
  }
  return operation;
};

/**
 * Have the executor's `operationFromDocument` calls served from the cache above. The executor
 * calls it through federation-internals' re-export, a getter reading operations.js's exports on
 * every call, so replacing that export is enough. False when the module no longer has it.
 */
export function installOperationCache(): boolean {
  if (typeof apolloOperationFromDocument !== 'function') return false;
  operationsModule.operationFromDocument = cachedOperationFromDocument;
  return true;
}
