import type { GatewayOperation, JsonSchema } from '../routes/route.js';
import { snakeKeys } from '../routes/snake-case.js';

/**
 * The SDK catalog, live from the partner subgraph (`sdkCatalog`). Both documented paths,
 * `GET /cms-ecosystem/sdk-catalog` and `GET /api/cms/sdk-catalog`, answer the same body.
 */
export const sdkCatalogOperation: GatewayOperation = {
  document:
    'query SdkCatalog { sdkCatalog { sdks { id language packageName registry version repositoryUrl documentationUrl minRuntime features status releasedAt install } features { code description } } }',
  result: (data) => snakeKeys(data['sdkCatalog']),
};

/** JSON Schema of the SDK catalog body. */
export const SDK_CATALOG_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['sdks', 'features'],
  properties: {
    sdks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'language', 'package_name', 'registry', 'version', 'repository_url', 'documentation_url', 'min_runtime', 'features', 'status', 'released_at', 'install'],
        properties: {
          id: { type: 'string', examples: ['typescript'] },
          language: { type: 'string' },
          package_name: { type: 'string' },
          registry: { type: 'string', enum: ['npm', 'pypi', 'maven_central', 'nuget', 'go_modules', 'rubygems'] },
          version: { type: 'string', description: 'Latest published version (semantic versioning).' },
          repository_url: { type: 'string', format: 'uri' },
          documentation_url: { type: 'string', format: 'uri' },
          min_runtime: { type: 'string' },
          features: { type: 'array', items: { type: 'string' } },
          status: { type: 'string', enum: ['stable', 'beta'] },
          released_at: { type: 'string', format: 'date' },
          install: { type: 'string' },
        },
      },
    },
    features: { type: 'array', items: { type: 'object', required: ['code', 'description'], properties: { code: { type: 'string' }, description: { type: 'string' } } } },
  },
};
