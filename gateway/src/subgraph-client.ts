import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import { INTERNAL_PRINCIPAL_HEADER, signPrincipal, type GraphQLRequest, type Principal, type Subgraph } from '@svc/platform';

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

/**
 * The distributed mode: POST to the subgraph with a short-lived, gateway-signed principal. A
 * foreign subgraph (someone else's supergraph) gets `internalSecret: null`: no principal at all,
 * since our signed principal is nobody else's business.
 */
export function httpClient(name: string, url: string, internalSecret: string | null): SubgraphClient {
  return {
    name,
    foreign: internalSecret === null,
    async execute(request, principal, requestId) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-request-id': requestId,
          ...(internalSecret === null ? {} : { [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(principal, internalSecret) }),
        },
        body: JSON.stringify(request),
      });
      const body = (await response.json().catch(() => null)) as SubgraphResponse | null;
      if (!body || (body.data === undefined && body.errors === undefined)) {
        return { data: null, errors: [{ message: `Subgraph ${name} answered HTTP ${response.status}.`, extensions: { code: 'UPSTREAM_UNAVAILABLE', status: 503 } }] };
      }
      return body;
    },
  };
}
