export * from './purpose-of-use.js';
export * from './exchange.js';
export * from './settings.js';
export * from './patient.js';
export * from './graphql.js';
export * from './run-exchange.js';
export * from './document.js';
export * from './sandbox-peer.js';
