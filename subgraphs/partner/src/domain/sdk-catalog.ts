/**
 * The official SDK catalog served by `GET /cms-ecosystem/sdk-catalog` and `GET /api/cms/sdk-catalog`.
 * The catalog is data, checked against the packages in this repository by test/sdk-catalog.test.ts.
 */

/** Package registries the SDKs are published to. */
export type SdkRegistry = 'npm' | 'pypi' | 'maven_central' | 'nuget' | 'go_modules' | 'rubygems';

/** Maturity of an SDK: `stable` follows semantic versioning strictly; `beta` may still change. */
export type SdkStatus = 'stable' | 'beta';

/** What an SDK covers. */
export const SDK_FEATURES = [
  { code: 'partner_tokens', description: 'Create, list and revoke scoped API tokens.' },
  { code: 'oauth_client_credentials', description: 'OAuth 2.0 client_credentials with automatic token refresh.' },
  { code: 'smart_backend_services', description: 'private_key_jwt client authentication (SMART Backend Services).' },
  { code: 'fhir_r4', description: 'Typed FHIR R4 search, read, create, update and bundles.' },
  { code: 'bulk_export', description: 'FHIR Bulk Data $export with status polling and NDJSON download.' },
  { code: 'identity', description: 'Identity match, resolve, get, merge and split.' },
  { code: 'webhook_verification', description: 'Webhook signature verification and delivery-id deduplication helpers.' },
  { code: 'pipeline_monitoring', description: 'Pipeline health and per-partner metrics.' },
  { code: 'retry_and_rate_limits', description: 'Retries with backoff that honour 429 Retry-After.' },
  { code: 'deprecation_warnings', description: 'Surfaces Deprecation and Sunset response headers as warnings.' },
  { code: 'tefca', description: 'TEFCA patient discovery and document query and retrieve.' },
] as const;

/** Code of an SDK feature. */
export type SdkFeature = (typeof SDK_FEATURES)[number]['code'];

/** One SDK in the catalog: a package whose sources are in this repository. */
export interface SdkCatalogEntry {
  id: string;
  language: string;
  /** The name it is installed and imported by. */
  package_name: string;
  /** The registry it is meant for; `published` says whether it is there yet. */
  registry: SdkRegistry;
  /** False while the package is installed from this repository (a path or a packed archive) rather than from its registry. */
  published: boolean;
  /** Version of the package in this repository (semantic versioning). */
  version: string;
  /** Its directory in this repository. */
  source: string;
  /** Its README in this repository: the quick start. */
  readme: string;
  /** The command that generates it from the OpenAPI document, for a generated package. */
  generator: string | null;
  /** Oldest supported runtime, such as `Node.js 18.17`. */
  min_runtime: string;
  features: readonly SdkFeature[];
  status: SdkStatus;
  /** Date of `version` (ISO 8601 date). */
  released_at: string;
  /** A command that installs it today, from a checkout of this repository. */
  install: string;
}

/**
 * The SDK catalog, in the portal's display order. Only packages that exist: the TypeScript SDK
 * (sdk/typescript) and the Python client generated from the OpenAPI document (sdk/python). The
 * catalog test compares every entry with the package's own manifest.
 */
export const SDK_CATALOG: readonly SdkCatalogEntry[] = [
  {
    id: 'typescript',
    language: 'TypeScript / JavaScript',
    package_name: '@health-partner/sdk',
    registry: 'npm',
    published: false,
    version: '1.0.0',
    source: 'sdk/typescript',
    readme: 'sdk/typescript/README.md',
    generator: null,
    min_runtime: 'Node.js 18.17',
    features: ['partner_tokens', 'oauth_client_credentials', 'smart_backend_services', 'fhir_r4', 'bulk_export', 'identity', 'webhook_verification', 'pipeline_monitoring', 'retry_and_rate_limits', 'deprecation_warnings', 'tefca'],
    status: 'stable',
    released_at: '2026-12-02',
    install: 'npm install ./sdk/typescript',
  },
  {
    id: 'python',
    language: 'Python',
    package_name: 'health-partner-sdk',
    registry: 'pypi',
    published: false,
    // The generated client's version is the API version of the document it was generated from.
    version: '2.2.0',
    source: 'sdk/python',
    readme: 'sdk/python/README.md',
    generator: 'npm run sdk:python',
    min_runtime: 'Python 3.9',
    features: ['partner_tokens', 'oauth_client_credentials', 'identity', 'pipeline_monitoring', 'retry_and_rate_limits', 'tefca'],
    status: 'beta',
    released_at: '2026-12-02',
    install: 'pip install ./sdk/python',
  },
];
