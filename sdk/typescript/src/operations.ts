import { apiErrorFrom } from './errors.js';
import type { operations } from './generated/openapi.js';

/** The JSON request body of a REST operation, by its route id (`identity.match` …). */
export type JsonBody<Op extends keyof operations> = operations[Op] extends { requestBody?: infer R } ? (NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never) : never;

/** The query parameters of a REST operation, by its route id. */
export type QueryOf<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The data of a successful openapi-fetch call, or its ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw apiErrorFrom(response, '', error);
  return data as T;
}
