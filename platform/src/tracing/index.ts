export * from './settings.js';
export * from './spans.js';
export * from './sdk.js';
export * from './http-server.js';
export * from './sql.js';
