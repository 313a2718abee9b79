import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields selected under the field being resolved, through inline fragments and
 * fragment spreads (a field under `@skip` or `@include` counts as selected: a superset is safe).
 * For reads that fetch only the columns a query asks for. A walk this small does not need
 * graphql-parse-resolve-info, which also resolves aliases and arguments that such a read ignores.
 */
export function selectedFieldNames(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined, seen: ReadonlySet<string>): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, seen);
      else if (!seen.has(selection.name.value)) visit(info.fragments[selection.name.value]?.selectionSet, new Set([...seen, selection.name.value]));
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, new Set());
  return names;
}
