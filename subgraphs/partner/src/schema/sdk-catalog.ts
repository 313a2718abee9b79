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
      registry: t.exposeString('registry', { description: 'The registry the package is meant for: npm, pypi, maven_central, nuget, go_modules or rubygems.' }),
      published: t.exposeBoolean('published', { description: 'False while the package is installed from this repository (a path or a packed archive), not from its registry.' }),
      version: t.exposeString('version', { description: 'Version of the package in this repository (semantic versioning).' }),
      source: t.exposeString('source', { description: 'Its directory in the platform repository.' }),
      readme: t.exposeString('readme', { description: 'Its README (quick start) in the platform repository.' }),
      generator: t.exposeString('generator', { nullable: true, description: 'The command that generates it from the OpenAPI document, for a generated package.' }),
      minRuntime: t.exposeString('min_runtime'),
      features: t.stringList({ description: 'Codes of SdkFeature.', resolve: (s) => [...s.features] }),
      status: t.exposeString('status', { description: 'stable or beta.' }),
      releasedAt: t.exposeString('released_at', { description: 'Date of `version` (ISO 8601 date).' }),
      install: t.exposeString('install', { description: 'A command that installs it today, from a checkout of the platform repository.' }),
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
