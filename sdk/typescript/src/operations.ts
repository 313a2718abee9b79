import type { operations } from './generated/openapi.js';

/** The JSON request body of a REST operation, by its route id (`identity.match` …). */
export type JsonBody<Op extends keyof operations> = operations[Op] extends { requestBody?: infer R } ? (NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never) : never;

/** The query parameters of a REST operation, by its route id. */
export type QueryOf<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
