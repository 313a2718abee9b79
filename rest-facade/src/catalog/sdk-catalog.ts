import type { GatewayOperation, JsonSchema } from '../routes/route.js';
import { snakeKeys } from '../routes/snake-case.js';

/**
 * The SDK catalog, live from the partner subgraph (`sdkCatalog`). Both documented paths,
 * `GET /cms-ecosystem/sdk-catalog` and `GET /api/cms/sdk-catalog`, answer the same body.
 */
export const sdkCatalogOperation: GatewayOperation = {
  document:
    'query SdkCatalog { sdkCatalog { sdks { id language packageName registry published version source readme generator minRuntime features status releasedAt install } features { code description } } }',
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
        required: ['id', 'language', 'package_name', 'registry', 'published', 'version', 'source', 'readme', 'generator', 'min_runtime', 'features', 'status', 'released_at', 'install'],
        properties: {
          id: { type: 'string', examples: ['typescript'] },
          language: { type: 'string' },
          package_name: { type: 'string' },
          registry: { type: 'string', enum: ['npm', 'pypi', 'maven_central', 'nuget', 'go_modules', 'rubygems'], description: 'The registry the package is meant for.' },
          published: { type: 'boolean', description: 'False while the package is installed from the platform repository (a path or a packed archive), not from its registry.' },
          version: { type: 'string', description: 'Version of the package in the platform repository (semantic versioning).' },
          source: { type: 'string', description: 'Its directory in the platform repository.', examples: ['sdk/typescript'] },
          readme: { type: 'string', description: 'Its README (quick start) in the platform repository.' },
          generator: { type: ['string', 'null'], description: 'The command that generates it from the OpenAPI document, for a generated package.' },
          min_runtime: { type: 'string' },
          features: { type: 'array', items: { type: 'string' } },
          status: { type: 'string', enum: ['stable', 'beta'] },
          released_at: { type: 'string', format: 'date' },
          install: { type: 'string', description: 'A command that installs it today, from a checkout of the platform repository.' },
        },
      },
    },
    features: { type: 'array', items: { type: 'object', required: ['code', 'description'], properties: { code: { type: 'string' }, description: { type: 'string' } } } },
  },
};
