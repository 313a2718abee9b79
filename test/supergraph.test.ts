import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeSupergraph, CompositionError, SUBGRAPHS, supergraphOf } from '@svc/gateway';
import { printArtifacts } from '../gateway/src/compose-cli.js';

const root = join(import.meta.dirname, '..');

describe('committed schema artifacts', () => {
  it('are what `npm run compose` prints today (run it after changing a schema)', async () => {
    const { files } = await printArtifacts();
    expect(Object.keys(files).sort()).toEqual(
      ['supergraph.graphql', 'supergraph.yaml', ...SUBGRAPHS.map((s) => `subgraphs/${s.name}/schema.graphql`)].sort(),
    );
    for (const [path, content] of Object.entries(files)) {
      expect(readFileSync(join(root, path), 'utf8'), `${path} is stale: run npm run compose`).toBe(content);
    }
  });

  it('snapshot: every subgraph exposes _service and _entities', () => {
    for (const s of SUBGRAPHS) {
      const sdl = readFileSync(join(root, 'subgraphs', s.name, 'schema.graphql'), 'utf8');
      expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.6"');
    }
    const supergraph = readFileSync(join(root, 'supergraph.graphql'), 'utf8');
    expect(supergraph).toMatch(/syncJobs: \[SyncJob!\]! @join__field\(graph: PIPELINE\)/);
  });
});

describe('the committed composition', () => {
  const committed = SUBGRAPHS.map((s, i) => ({ name: s.name, url: `http://10.1.2.${i + 1}:8080/graphql`, sdl: readFileSync(join(root, 'subgraphs', s.name, 'schema.graphql'), 'utf8') }));

  it('is reused for the committed schemas, with the routing URLs asked for, and equals a fresh composition', () => {
    const reused = supergraphOf(committed);
    expect(reused.trim()).toBe(composeSupergraph(committed).trim());
    for (const s of committed) expect(reused).toContain(`@join__graph(name: "${s.name}", url: "${s.url}")`);
  });

  it('is not reused when a schema differs: that input is composed', () => {
    const changed = committed.map((s) => (s.name === 'partner' ? { ...s, sdl: `${s.sdl}\nextend type Query { compositionProbe: Int }\n` } : s));
    expect(supergraphOf(changed)).toContain('compositionProbe: Int');
  });
});

describe('composition errors', () => {
  it('name the subgraphs and the field in conflict', () => {
    const a = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"]) type Query { thing: Thing } type Thing @key(fields: "id") { id: ID! size: Int }';
    const b = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"]) type Thing @key(fields: "id") { id: ID! size: String }';
    let error: unknown;
    try {
      composeSupergraph([
        { name: 'alpha', url: 'http://a', sdl: a },
        { name: 'beta', url: 'http://b', sdl: b },
      ]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CompositionError);
    const message = (error as Error).message;
    expect(message).toContain('Thing.size');
    expect(message).toContain('"alpha"');
    expect(message).toContain('"beta"');
  });

  it('name the subgraph whose SDL does not parse', () => {
    expect(() => composeSupergraph([{ name: 'broken', url: 'http://x', sdl: 'type Query {' }])).toThrow(/\[broken\] schema does not parse/);
  });
});
