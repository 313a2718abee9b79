import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import {
  INTERNAL_PRINCIPAL_HEADER,
  RETRY_AFTER_SECONDS,
  signPrincipal,
  type DependencyHealth,
  type GraphQLRequest,
  type Principal,
  type Subgraph,
} from '@svc/platform';

/** The wire shape of a subgraph's answer (errors already formatted). */
export interface SubgraphResponse {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** How the gateway reaches one subgraph: in-process or over HTTP. Either way it sends a principal. */
export interface SubgraphClient {
  readonly name: string;
  /** A subgraph of someone else's supergraph: it gets no principal, and no internal lookup. */
  readonly foreign?: boolean;
  execute(request: GraphQLRequest, principal: Principal, requestId: string): Promise<SubgraphResponse>;
}

function formatted(result: ExecutionResult): SubgraphResponse {
  const response: SubgraphResponse = { data: (result.data as Record<string, unknown> | null | undefined) ?? null };
  if (result.errors) response.errors = result.errors.map((e) => e.toJSON());
  return response;
}

/** The embedded mode: a function call, no HTTP hop. */
export function inProcessClient(subgraph: Subgraph): SubgraphClient {
  return {
    name: subgraph.name,
    execute: async (request, principal, requestId) => formatted(await subgraph.execute(request, principal, requestId)),
  };
}

/** How long the gateway waits for a subgraph's answer unless told otherwise (SVC_UPSTREAM_TIMEOUT_MS). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * The answer for a subgraph that could not be reached, timed out or did not answer GraphQL: one
 * UPSTREAM_UNAVAILABLE error, which the gateway turns into 503 with Retry-After. The subgraph's name
 * and the socket error go to the log (once per outage), not to the caller.
 */
export function unavailableResponse(): SubgraphResponse {
  return {
    data: null,
    errors: [{ message: 'A service this request needs is unavailable right now; retry shortly.', extensions: { code: 'UPSTREAM_UNAVAILABLE', status: 503, retry_after: RETRY_AFTER_SECONDS } }],
  };
}

/**
 * The distributed mode: POST to the subgraph with a short-lived, gateway-signed principal. A
 * foreign subgraph (someone else's supergraph) gets `internalSecret: null`: no principal at all,
 * since our signed principal is nobody else's business.
 */
export function httpClient(
  name: string,
  url: string,
  internalSecret: string | null,
  options: { timeoutMs?: number; health?: DependencyHealth } = {},
): SubgraphClient {
  const dependency = `subgraph:${name}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  return {
    name,
    foreign: internalSecret === null,
    async execute(request, principal, requestId) {
      let response: Response;
      let body: SubgraphResponse | null;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'x-request-id': requestId,
            ...(internalSecret === null ? {} : { [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(principal, internalSecret) }),
          },
          body: JSON.stringify(request),
          signal: AbortSignal.timeout(timeoutMs),
        });
        body = (await response.json().catch(() => null)) as SubgraphResponse | null;
      } catch (err) {
        // Refused, reset, or no answer within the timeout.
        options.health?.down(dependency, err);
        return unavailableResponse();
      }
      if (!body || typeof body !== 'object' || (body.data === undefined && body.errors === undefined)) {
        options.health?.down(dependency, new Error(`answered HTTP ${response.status} without a GraphQL response`));
        return unavailableResponse();
      }
      return body;
    },
  };
}
