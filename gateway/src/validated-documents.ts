import type { ApolloServerPlugin } from '@apollo/server';
import { getOperationAST, Kind, visit, BREAK, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

/** Texts longer than this are never kept (a long text is rare and costs more memory than it saves). */
const MAX_TEXT_LENGTH = 16_384;
/** Texts kept per API schema; the whole set is dropped when it is full (a new one fills again from what is sent). */
const MAX_TEXTS = 1_000;

/** A document Apollo Server parsed and validated against an API schema, with what its pipeline computed for it. */
export interface ValidatedDocument {
  readonly document: DocumentNode;
  /** Apollo's SHA-256 of the text (or the APQ hash it was registered under, the same value): the query-plan cache's key. */
  readonly queryHash: string;
  /** Whether the document asks for incremental delivery (@defer, @stream): such documents always take Apollo's pipeline. */
  readonly incremental: boolean;
  /** The operation a request names (getOperationAST), null when it resolves none; per operation name. */
  operation(operationName: string | null | undefined): OperationDefinitionNode | null;
}

function asksForIncrementalDelivery(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value === 'defer' || node.name.value === 'stream') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function validatedDocument(document: DocumentNode, queryHash: string): ValidatedDocument {
  const operations = new Map<string, OperationDefinitionNode | null>();
  return {
    document,
    queryHash,
    incremental: asksForIncrementalDelivery(document),
    operation(operationName) {
      const key = operationName ?? '';
      let operation = operations.get(key);
      if (operation === undefined) {
        operation = getOperationAST(document, operationName) ?? null;
        // Only the document's own operation names reach here more than once; a stranger's are not kept.
        if (operation || operations.size < 16) operations.set(key, operation);
      }
      return operation;
    },
  };
}

/**
 * The documents Apollo Server's pipeline has already parsed and validated, by API schema and text:
 * the gateway's fast path (fast-path.ts) runs a request whose text is here without Apollo's
 * per-request pipeline. An entry is only ever added by `plugin()`, at `didResolveOperation`, which
 * Apollo reaches only for a document that parsed within the token limit and passed every
 * validation rule (the operation limits included) against that very schema; a text that fails
 * never gets an entry. Kept per schema in a weak map: a new supergraph starts with none.
 */
export class ValidatedDocuments {
  private readonly bySchema = new WeakMap<GraphQLSchema, Map<string, ValidatedDocument>>();

  lookup(schema: GraphQLSchema, text: string): ValidatedDocument | undefined {
    return this.bySchema.get(schema)?.get(text);
  }

  private remember(schema: GraphQLSchema, text: string, document: DocumentNode, queryHash: string): void {
    if (text.length > MAX_TEXT_LENGTH || document.kind !== Kind.DOCUMENT) return;
    let texts = this.bySchema.get(schema);
    if (!texts) this.bySchema.set(schema, (texts = new Map()));
    const known = texts.get(text);
    if (known && known.document === document) return;
    if (texts.size >= MAX_TEXTS) texts.clear();
    texts.set(text, validatedDocument(document, queryHash));
  }

  /** The Apollo Server plugin that fills the store from the requests its pipeline resolves. */
  plugin(): ApolloServerPlugin<object> {
    const store = this;
    return {
      async requestDidStart() {
        return {
          async didResolveOperation({ schema, source, document, queryHash }) {
            if (typeof source === 'string' && document && typeof queryHash === 'string') store.remember(schema, source, document, queryHash);
          },
        };
      },
    };
  }
}
