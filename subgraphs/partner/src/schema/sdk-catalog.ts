import type { SubgraphBuilder as Builder } from '@svc/platform';
import { SDK_CATALOG, SDK_FEATURES, type SdkCatalogEntry } from '../domain/sdk-catalog.js';

/** `sdkCatalog`: the official SDKs, the data behind both SDK catalog REST paths. */
export function defineSdkCatalog(builder: Builder) {
  const Feature = builder.objectRef<{ code: string; description: string }>('SdkFeature').implement({
    fields: (t) => ({ code: t.exposeString('code'), description: t.exposeString('description') }),
  });
  const Sdk = builder.objectRef<SdkCatalogEntry>('Sdk').implement({
    description: 'An official SDK.',
    fields: (t) => ({
      id: t.exposeID('id'),
      language: t.exposeString('language'),
      packageName: t.exposeString('package_name'),
      registry: t.exposeString('registry', { description: 'npm, pypi, maven_central, nuget, go_modules or rubygems.' }),
      version: t.exposeString('version', { description: 'Latest published version (semantic versioning).' }),
      repositoryUrl: t.exposeString('repository_url'),
      documentationUrl: t.exposeString('documentation_url'),
      minRuntime: t.exposeString('min_runtime'),
      features: t.stringList({ description: 'Codes of SdkFeature.', resolve: (s) => [...s.features] }),
      status: t.exposeString('status', { description: 'stable or beta.' }),
      releasedAt: t.exposeString('released_at', { description: 'Release date of `version` (ISO 8601 date).' }),
      install: t.exposeString('install', { description: 'Command that installs the package.' }),
    }),
  });
  const Catalog = builder.objectRef<{ sdks: readonly SdkCatalogEntry[] }>('SdkCatalog').implement({
    fields: (t) => ({
      sdks: t.field({ type: [Sdk], resolve: (c) => [...c.sdks] }),
      features: t.field({ type: [Feature], description: 'What the feature codes mean.', resolve: () => SDK_FEATURES.map((f) => ({ ...f })) }),
    }),
  });
  builder.queryFields((t) => ({
    sdkCatalog: t.field({
      type: Catalog,
      description: 'The live SDK catalog (cms.sdk.read).',
      authScopes: { scope: 'cms.sdk.read' },
      resolve: () => ({ sdks: SDK_CATALOG }),
    }),
  }));
}
