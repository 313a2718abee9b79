import { describe, expect, it } from 'vitest';
import { buildSchema as buildFederationSchema, operationFromDocument } from '@apollo/federation-internals';
import { parse, type DocumentNode } from 'graphql';
import { installOperationCache } from './operation-cache.js';

const schema = buildFederationSchema(`
  type Partner { gpid: String! legalName: String }
  type Query { partners(first: Int): [Partner!]! }
`);

/** The document the query-plan executor builds per request: the operation first, then the fragments. */
function executorDocument(document: DocumentNode): DocumentNode {
  return { kind: document.kind, definitions: [...document.definitions.filter((d) => d.kind === 'OperationDefinition'), ...document.definitions.filter((d) => d.kind === 'FragmentDefinition')] };
}

describe('the executor’s operations, kept per parsed document', () => {
  it('is installed where the executor calls operationFromDocument', () => {
    expect(installOperationCache()).toBe(true);
  });

  it('builds one operation per parsed document and schema, and a new one for another document', () => {
    installOperationCache();
    const document = parse('query Q($n: Int) { partners(first: $n) { ...P } } fragment P on Partner { gpid legalName }');
    const first = operationFromDocument(schema, executorDocument(document), { validate: false });
    const again = operationFromDocument(schema, executorDocument(document), { validate: false });
    expect(again).toBe(first);
    expect(again.toString()).toBe(operationFromDocument(schema, document).toString());
    const other = operationFromDocument(schema, executorDocument(parse('query Q($n: Int) { partners(first: $n) { ...P } } fragment P on Partner { gpid legalName }')), { validate: false });
    expect(other).not.toBe(first);
    expect(other.toString()).toBe(first.toString());
  });

  it('leaves every other call as it was: validated, named, or failing each time', () => {
    installOperationCache();
    const document = parse('{ partners { gpid } }');
    expect(operationFromDocument(schema, document)).not.toBe(operationFromDocument(schema, document));
    const named = parse('query A { partners { gpid } } query B { partners { legalName } }');
    expect(operationFromDocument(schema, named, { operationName: 'B', validate: false })).not.toBe(operationFromDocument(schema, named, { operationName: 'B', validate: false }));
    const unknownField = executorDocument(parse('{ partners { nope } }'));
    expect(() => operationFromDocument(schema, unknownField, { validate: false })).toThrow();
    expect(() => operationFromDocument(schema, unknownField, { validate: false })).toThrow();
  });
});
