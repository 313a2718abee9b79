/**
 * Regenerate src/generated/openapi.ts from the route table: the same OpenAPI document the service
 * serves at GET /api/openapi/all.json, built in process (no server needed).
 *
 *   npm run generate -w @health-partner/sdk
 */
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument, productLimits, ROUTES } from '@svc/rest-facade';
import { generateTypes } from './generate-types.js';

const document = buildOpenApiDocument(ROUTES, 'all', 'http://localhost:4000', await productLimits());
const target = new URL('../src/generated/openapi.ts', import.meta.url);
writeFileSync(target, await generateTypes(JSON.parse(JSON.stringify(document)) as Record<string, unknown>));
console.log(`wrote ${target.pathname}`);
