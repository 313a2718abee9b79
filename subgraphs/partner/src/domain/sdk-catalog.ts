/**
 * The official SDK catalog served by `GET /cms-ecosystem/sdk-catalog` and `GET /api/cms/sdk-catalog`.
 * The official SDKs shipped with portal release v2.0.0; the catalog is data so the portal's static
 * fallback list and the live endpoint cannot drift apart.
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

/** One SDK in the catalog. */
export interface SdkCatalogEntry {
  id: string;
  language: string;
  package_name: string;
  registry: SdkRegistry;
  /** Latest published version (semantic versioning). */
  version: string;
  repository_url: string;
  documentation_url: string;
  /** Oldest supported runtime, such as `Node.js 20`. */
  min_runtime: string;
  features: readonly SdkFeature[];
  status: SdkStatus;
  /** Release date of `version` (ISO 8601 date). */
  released_at: string;
  /** Command that installs the package. */
  install: string;
}

const CORE_FEATURES: readonly SdkFeature[] = [
  'partner_tokens',
  'oauth_client_credentials',
  'fhir_r4',
  'identity',
  'webhook_verification',
  'retry_and_rate_limits',
  'deprecation_warnings',
];

const repo = (name: string): string => `https://github.com/health-partner/${name}`;

/** The SDK catalog, in the portal's display order. */
export const SDK_CATALOG: readonly SdkCatalogEntry[] = [
  {
    id: 'typescript',
    language: 'TypeScript / JavaScript',
    package_name: '@health-partner/sdk',
    registry: 'npm',
    version: '2.2.0',
    repository_url: repo('sdk-typescript'),
    documentation_url: `${repo('sdk-typescript')}#readme`,
    min_runtime: 'Node.js 20',
    features: [...CORE_FEATURES, 'smart_backend_services', 'bulk_export', 'pipeline_monitoring', 'tefca'],
    status: 'stable',
    released_at: '2026-08-27',
    install: 'npm install @health-partner/sdk',
  },
  {
    id: 'python',
    language: 'Python',
    package_name: 'health-partner-sdk',
    registry: 'pypi',
    version: '2.2.0',
    repository_url: repo('sdk-python'),
    documentation_url: `${repo('sdk-python')}#readme`,
    min_runtime: 'Python 3.10',
    features: [...CORE_FEATURES, 'smart_backend_services', 'bulk_export', 'pipeline_monitoring', 'tefca'],
    status: 'stable',
    released_at: '2026-08-28',
    install: 'pip install health-partner-sdk',
  },
  {
    id: 'java',
    language: 'Java',
    package_name: 'org.healthpartner:health-partner-sdk',
    registry: 'maven_central',
    version: '2.1.0',
    repository_url: repo('sdk-java'),
    documentation_url: `${repo('sdk-java')}#readme`,
    min_runtime: 'Java 17',
    features: [...CORE_FEATURES, 'smart_backend_services', 'bulk_export'],
    status: 'stable',
    released_at: '2026-07-28',
    install: 'implementation("org.healthpartner:health-partner-sdk:2.1.0")',
  },
  {
    id: 'dotnet',
    language: 'C# / .NET',
    package_name: 'HealthPartner.Sdk',
    registry: 'nuget',
    version: '2.1.0',
    repository_url: repo('sdk-dotnet'),
    documentation_url: `${repo('sdk-dotnet')}#readme`,
    min_runtime: '.NET 8',
    features: [...CORE_FEATURES, 'smart_backend_services', 'bulk_export'],
    status: 'stable',
    released_at: '2026-07-30',
    install: 'dotnet add package HealthPartner.Sdk',
  },
  {
    id: 'go',
    language: 'Go',
    package_name: 'github.com/health-partner/sdk-go',
    registry: 'go_modules',
    version: '0.9.0',
    repository_url: repo('sdk-go'),
    documentation_url: 'https://pkg.go.dev/github.com/health-partner/sdk-go',
    min_runtime: 'Go 1.22',
    features: CORE_FEATURES,
    status: 'beta',
    released_at: '2026-09-08',
    install: 'go get github.com/health-partner/sdk-go@v0.9.0',
  },
  {
    id: 'ruby',
    language: 'Ruby',
    package_name: 'health_partner_sdk',
    registry: 'rubygems',
    version: '0.8.1',
    repository_url: repo('sdk-ruby'),
    documentation_url: `${repo('sdk-ruby')}#readme`,
    min_runtime: 'Ruby 3.2',
    features: ['partner_tokens', 'oauth_client_credentials', 'fhir_r4', 'webhook_verification', 'retry_and_rate_limits'],
    status: 'beta',
    released_at: '2026-09-15',
    install: 'gem install health_partner_sdk',
  },
];

/** The SDK with this id, or `undefined`. */
export function findSdk(id: string): SdkCatalogEntry | undefined {
  return SDK_CATALOG.find((entry) => entry.id === id);
}
