import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** By the field's nodes, which graphql-js shares among every item of a list it resolves. */
const selections = new WeakMap<readonly FieldNode[], ReadonlySet<string>>();

/**
 * The names of the fields selected under the field being resolved, through inline fragments and
 * fragment spreads (a field under `@skip` or `@include` counts as selected: a superset is safe).
 * For reads that fetch only the columns a query asks for. A walk this small does not need
 * graphql-parse-resolve-info, which also resolves aliases and arguments that such a read ignores.
 * Walked once per field of an operation, not once per item of the list it is in.
 */
export function selectedFieldNames(info: GraphQLResolveInfo): ReadonlySet<string> {
  const known = selections.get(info.fieldNodes);
  if (known) return known;
  const names = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined, seen: ReadonlySet<string>): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet, seen);
      else if (!seen.has(selection.name.value)) visit(info.fragments[selection.name.value]?.selectionSet, new Set([...seen, selection.name.value]));
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet, new Set());
  selections.set(info.fieldNodes, names);
  return names;
}
