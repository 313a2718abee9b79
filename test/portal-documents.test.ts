import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Supergraph } from '@apollo/federation-internals';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { withSubscriptions } from '@svc/gateway';

// Every GraphQL document the portal sends, checked against the supergraph it is served with: a
// field renamed or removed in a subgraph fails here, not in a partner's browser.
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = join(ROOT, 'portal/src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** String literals (quoted or template) that begin an operation. */
function documentsIn(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of text.matchAll(/`([^`]*)`|'([^'\n]*)'/g)) {
    const body = (m[1] ?? m[2]!).trim();
    if (/^(query|mutation|subscription)\b[^(]*[({]/.test(body) || /^\{\s*\w+\s*[({]/.test(body)) found.push(body);
  }
  return found;
}

describe('portal GraphQL documents', () => {
  const schema = withSubscriptions(Supergraph.build(readFileSync(join(ROOT, 'supergraph.graphql'), 'utf8')).apiSchema().toGraphQLJSSchema());
  const documents = sourceFiles(SOURCES).flatMap((file) => documentsIn(file).map((doc) => ({ file: file.slice(ROOT.length), doc })));

  it('finds the documents of every page', () => {
    expect(documents.length).toBeGreaterThan(30);
    expect(new Set(documents.map((d) => d.file)).size).toBeGreaterThan(10);
  });

  it('are valid against the supergraph', () => {
    const invalid = documents.flatMap(({ file, doc }) => {
      try {
        return validate(schema, parse(doc)).map((e) => `${file}: ${e.message}`);
      } catch (err) {
        return [`${file}: ${(err as Error).message} in ${doc}`];
      }
    });
    expect(invalid).toEqual([]);
  });
});
