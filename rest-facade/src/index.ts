export * from './app.js';
export * from './gateway-client.js';
export * from './deprecation.js';
export * from './routes/route.js';
export * from './routes/table.js';
export { buildOpenApiDocument } from './catalog/openapi.js';
export { productLimits } from './catalog/products.js';
