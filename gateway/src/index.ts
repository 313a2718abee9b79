export * from './gateway.js';
export * from './authenticate.js';
export * from './compose.js';
export * from './subgraph-client.js';
export * from './subgraph-registry.js';
export * from './subscriptions.js';
export * from './http.js';
export * from './supergraph-source.js';
