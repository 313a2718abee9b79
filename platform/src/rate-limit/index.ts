export * from './capabilities.js';
export * from './limiter.js';
export * from './credential-guard.js';
