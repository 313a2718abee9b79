import DataLoader from 'dataloader';

const loadersByContext = new WeakMap<object, Map<string, DataLoader<unknown, unknown>>>();

/**
 * The request's DataLoader for `name`: created on first use, shared by every resolver of the same
 * request, gone with the request. N lookups of one kind in one request become one batch.
 */
export function loaderFor<K, V>(context: object, name: string, batch: (keys: readonly K[]) => Promise<readonly (V | Error)[]>): DataLoader<K, V> {
  let loaders = loadersByContext.get(context);
  if (!loaders) {
    loaders = new Map();
    loadersByContext.set(context, loaders);
  }
  let loader = loaders.get(name) as DataLoader<K, V> | undefined;
  if (!loader) {
    loader = new DataLoader<K, V>(batch);
    loaders.set(name, loader as DataLoader<unknown, unknown>);
  }
  return loader;
}
