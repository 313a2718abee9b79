import type { Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';
import { foreignSubgraph } from './support/foreign-subgraph.js';

/**
 * The cases of the federation-gateway-audit that stock @apollo/gateway 2.14 answers wrongly, each on
 * a small supergraph of four foreign subgraphs, through the gateway's HTTP interface. They hold
 * because of the patches under patches/ (gateway/README.md, "Query planner patches").
 */

const products = [
  { upc: 'p1', name: 'p-name-1', price: 11, weight: 1 },
  { upc: 'p2', name: 'p-name-2', price: 22, weight: 2 },
];
const comments = [
  { id: 'c1', postId: 'p1', authorId: 'a2' },
  { id: 'c2', postId: 'p1', authorId: 'a2' },
  { id: 'c3', postId: 'p1', authorId: 'a2' },
  { id: 'c4', postId: 'p2', authorId: 'a1' },
  { id: 'c5', postId: 'p2', authorId: 'a1' },
  { id: 'c6', postId: 'p2', authorId: 'a1' },
];
const items: Record<string, { id: string; name: string; compositeId: { one: string; two: string; three: string } }> = {
  '1': { id: '1', name: 'a.1', compositeId: { one: 'a.1.one', two: 'a.1.two', three: 'a.1.three' } },
};

type Ref = Record<string, unknown>;

/** Products with a price per currency; entities A (one resolvable key of several); an interface no type implements. */
const catalog = () =>
  foreignSubgraph(
    `extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key"])
     type Query { products: [Product] a: Node }
     type Product @key(fields: "upc") { upc: String! name: String price(currency: String!): Int weight: Int }
     interface Node @key(fields: "id") { id: ID! }
     type A @key(fields: "id") @key(fields: "compositeId { one two }", resolvable: false) @key(fields: "id compositeId { two three }", resolvable: false) {
       id: ID! compositeId: CompositeID! name: String!
     }
     type CompositeID { one: ID! two: ID! three: ID! }`,
    {
      Query: { products: () => products, a: () => ({ __typename: 'Node', id: 'n1' }) },
      Product: {
        __resolveReference: (ref: Ref) => products.find((p) => p.upc === ref['upc']),
        price: (p: { price: number }, args: { currency: string }) => {
          if (args.currency === 'EUR') return p.price * 2;
          if (args.currency === 'USD') return p.price;
          throw new Error(`Unsupported currency ${args.currency}`);
        },
      },
      A: { __resolveReference: (ref: Ref) => items[String(ref['id'])] ?? null },
    },
  );

/** Two @requires of the same field with different arguments; an @interfaceObject that is not resolvable. */
const shipping = () =>
  foreignSubgraph(
    `extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key", "@external", "@requires", "@interfaceObject"])
     type Product @key(fields: "upc") {
       upc: String! weight: Int @external price(currency: String!): Int @external
       shippingEstimate: Int @requires(fields: "price(currency: \\"USD\\") weight")
       shippingEstimateEUR: Int @requires(fields: "price(currency: \\"EUR\\") weight")
     }
     type Node @key(fields: "id", resolvable: false) @interfaceObject { id: ID! field: String }`,
    {
      Product: {
        __resolveReference: (ref: Ref) => ref,
        shippingEstimate: (p: { price: number; weight: number }) => p.price * p.weight * 10,
        shippingEstimateEUR: (p: { price: number; weight: number }) => p.price * p.weight * 10,
      },
      Node: { field: () => 'foo' },
    },
  );

/** Posts and comments; B holds As, and its A needs A.name (from catalog) for nameInB. */
const posts = () =>
  foreignSubgraph(
    `extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key", "@external", "@requires"])
     type Query { feed: [Post] shelf: B }
     type Post @key(fields: "id") { id: ID! }
     type Comment @key(fields: "id") { id: ID! authorId: ID }
     type B @key(fields: "id") { id: ID! a: [A!]! }
     type A @key(fields: "compositeId { one two }", resolvable: false) @key(fields: "id compositeId { two three }") @key(fields: "id", resolvable: false) {
       id: ID! compositeId: CompositeID! name: String! @external nameInB: String! @requires(fields: "name")
     }
     type CompositeID { one: ID! two: ID! three: ID! }`,
    {
      Query: { feed: () => [{ id: 'p1' }, { id: 'p2' }], shelf: () => ({ id: '100', a: ['1'] }) },
      Post: { __resolveReference: (ref: Ref) => ({ id: ref['id'] }) },
      Comment: { __resolveReference: (ref: Ref) => comments.find((c) => c.id === ref['id']) ?? null },
      B: { a: (b: { a: string[] }) => b.a.map((id) => ({ id, compositeId: items[id]!.compositeId })) },
      A: {
        // Only the key "id compositeId { two three }" is resolvable here: a representation without `id` finds nothing.
        __resolveReference: (ref: Ref) => {
          const item = items[String(ref['id'])];
          return item ? { id: item.id, compositeId: item.compositeId, name: ref['name'] } : null;
        },
        nameInB: (a: { name?: string }) => {
          if (!a.name) throw new Error('A.name was not provided');
          return `b.a.nameInB ${a.name}`;
        },
      },
    },
  );

/** A post's author is read from its third comment, named through a field with an argument. */
const authors = () =>
  foreignSubgraph(
    `extend schema @link(url: "https://specs.apollo.dev/federation/v2.5", import: ["@key", "@external", "@requires"])
     type Post @key(fields: "id") {
       id: ID! author: Author @requires(fields: "comments(limit: 3) { authorId }") comments(limit: Int!): [Comment]
     }
     type Comment @key(fields: "id") { id: ID! authorId: ID @external }
     type Author { id: ID! }`,
    {
      Post: {
        __resolveReference: (ref: Ref) => {
          const required = ref['comments'] as { authorId: string }[] | undefined;
          if (required && required.length !== 3) throw new Error('Expected 3 comments');
          return { id: ref['id'], authorId: required?.[2]?.authorId };
        },
        author: (post: { authorId?: string }) => (post.authorId ? { id: post.authorId } : null),
        comments: (post: { id: string }, args: { limit: number }) =>
          comments.filter((c) => c.postId === post.id).slice(0, args.limit).map((c) => ({ id: c.id })),
      },
    },
  );

describe('query planning cases stock @apollo/gateway gets wrong (federation-gateway-audit)', () => {
  const servers: Server[] = [];
  let system: RunningSystem;
  const dir = mkdtempSync(join(tmpdir(), 'svc-planner-patches-'));

  beforeAll(async () => {
    let yaml = 'federation_version: =2.6.0\nsubgraphs:\n';
    for (const [name, make] of [['catalog', catalog], ['shipping', shipping], ['posts', posts], ['authors', authors]] as const) {
      const { server, sdl } = make();
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      writeFileSync(join(dir, `${name}.graphql`), sdl);
      yaml += `  ${name}:\n    routing_url: http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql\n    schema:\n      file: ./${name}.graphql\n`;
    }
    writeFileSync(join(dir, 'supergraph.yaml'), yaml);
    const config = loadConfig({ SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'supergraph.yaml'), SVC_LOG_LEVEL: 'silent', SVC_DATA_DIR: dir, SVC_RATE_LIMITS: 'off' });
    system = await startSystem(config);
    await system.app.ready();
  });
  afterAll(async () => {
    await system?.stop();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function graphql(query: string, variables?: Record<string, unknown>) {
    const res = await system.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query, variables } });
    return { status: res.statusCode, body: res.json() as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
  }

  const feed = { feed: [{ author: { id: 'a2' }, comments: [{ id: 'c1' }] }, { author: { id: 'a1' }, comments: [{ id: 'c4' }] }] };

  it('a field the operation selects with other arguments than a @requires names keeps its own arguments (requires-with-argument_2)', async () => {
    expect(await graphql('{ feed { author { id } comments(limit: 1) { id } } }')).toEqual({ status: 200, body: { data: feed } });
  });

  it('the same through a variable and two fragments (requires-with-argument_3, _4)', async () => {
    const query = 'query ($limit: Int = 1) { feed { author { id } ...Foo ...Bar } } fragment Foo on Post { comments(limit: $limit) { id } } fragment Bar on Post { comments(limit: $limit) { id } }';
    expect(await graphql(query)).toEqual({ status: 200, body: { data: feed } });
  });

  it('two @requires of one field with different arguments each get their own value (requires-with-argument-conflict_0)', async () => {
    expect(await graphql('{ products { upc shippingEstimate shippingEstimateEUR } }')).toEqual({
      status: 200,
      body: { data: { products: [{ upc: 'p1', shippingEstimate: 110, shippingEstimateEUR: 220 }, { upc: 'p2', shippingEstimate: 440, shippingEstimateEUR: 880 }] } },
    });
  });

  it('a @requires goes back to its subgraph through a key that subgraph resolves, not the first one declared (keys-mashup_0)', async () => {
    expect(await graphql('{ shelf { id a { id name nameInB } } }')).toEqual({
      status: 200,
      body: { data: { shelf: { id: '100', a: [{ id: '1', name: 'a.1', nameInB: 'b.a.nameInB a.1' }] } } },
    });
  });

  it('a field no subgraph can resolve from where it is asked is an error, not a silent null (non-resolvable-interface-object_1)', async () => {
    expect(await graphql('{ a { field } }')).toEqual({
      status: 400,
      body: { errors: [{ message: 'Cannot plan the selection of Node.field: no subgraph can resolve it where this operation selects it.', extensions: { code: 'QUERY_PLANNING_FAILED' } }] },
    });
    // What the subgraph resolves on the interface itself is still planned (and its bad answer is the subgraph's error).
    const { body } = await graphql('{ a { id } }');
    expect(body.data).toEqual({ a: null });
    expect(body.errors?.length).toBeGreaterThan(0);
  });
});
