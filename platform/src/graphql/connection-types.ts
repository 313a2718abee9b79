import type { ObjectRef, SchemaTypes } from '@pothos/core';
import type { SubgraphBuilder } from './builder.js';
import type { Page } from './connection.js';

type Types = SubgraphBuilder extends PothosSchemaTypes.SchemaBuilder<infer X extends SchemaTypes> ? X : never;
type PageInfo = Page<unknown>['pageInfo'];

const pageInfoByBuilder = new WeakMap<SubgraphBuilder, ObjectRef<Types, PageInfo>>();

/** The shared, @shareable PageInfo type: every subgraph defines the same one. */
function pageInfoType(builder: SubgraphBuilder): ObjectRef<Types, PageInfo> {
  let ref = pageInfoByBuilder.get(builder);
  if (!ref) {
    ref = builder.objectRef<PageInfo>('PageInfo').implement({
      shareable: true,
      description: 'Where a page ends and whether another follows.',
      fields: (t) => ({
        hasNextPage: t.exposeBoolean('hasNextPage'),
        endCursor: t.exposeString('endCursor', { nullable: true }),
      }),
    });
    pageInfoByBuilder.set(builder, ref);
  }
  return ref;
}

/** A Relay connection type (`<Name>Connection` with `<Name>Edge`s and PageInfo) for a node type. */
export function connectionType<T>(builder: SubgraphBuilder, name: string, node: ObjectRef<Types, T>) {
  const edge = builder.objectRef<Page<T>['edges'][number]>(`${name}Edge`).implement({
    fields: (t) => ({ cursor: t.exposeString('cursor'), node: t.field({ type: node, resolve: (e) => e.node as never }) }),
  });
  const pageInfo = pageInfoType(builder);
  return builder.objectRef<Page<T>>(`${name}Connection`).implement({
    fields: (t) => ({
      edges: t.field({ type: [edge], resolve: (c) => c.edges }),
      pageInfo: t.field({ type: pageInfo, resolve: (c) => c.pageInfo }),
    }),
  });
}
