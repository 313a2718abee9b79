import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import {
  INTERNAL_PRINCIPAL_HEADER,
  injectTraceHeaders,
  RETRY_AFTER_SECONDS,
  type DependencyHealth,
  type GraphQLRequest,
  type Principal,
  type Subgraph,
} from '@svc/platform';
import { Pool } from 'undici';
import { InFlightQueries } from './in-flight-queries.js';
import { PrincipalSigner } from './principal-signer.js';

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

/** Connections at most to each subgraph, kept alive between requests. */
export const DEFAULT_UPSTREAM_CONNECTIONS = 64;

/**
 * The distributed mode: POST to the subgraph with a short-lived, gateway-signed principal. A
 * foreign subgraph (someone else's supergraph) gets `internalSecret: null`: no principal at all,
 * since our signed principal is nobody else's business.
 *
 * The requests go through one undici `Pool` per subgraph with keep-alive connections, not the
 * global `fetch`: a CPU profile of the gateway under load showed fetch's WHATWG layers (Request and
 * Response objects, web streams, the per-request AbortSignal timer) costing about a quarter of the
 * gateway's time. `headersTimeout` / `bodyTimeout` replace the AbortSignal: a subgraph that sends
 * nothing for the timeout is given up on, as before.
 *
 * `deduplicateQueries` (SVC_GATEWAY_DEDUPLICATE_QUERIES): identical queries in flight share one
 * request (in-flight-queries.ts). Only for a subgraph whose queries record nothing per request:
 * the subgraph sees one request, with the first caller's request id, for all of them.
 */
export function httpClient(
  name: string,
  url: string,
  internalSecret: string | null,
  options: { timeoutMs?: number; health?: DependencyHealth; connections?: number; deduplicateQueries?: boolean } = {},
): SubgraphClient & { close(): Promise<void> } {
  const dependency = `subgraph:${name}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const target = new URL(url);
  const path = `${target.pathname}${target.search}`;
  const pool = new Pool(target.origin, {
    connections: options.connections ?? DEFAULT_UPSTREAM_CONNECTIONS,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
  });
  const signer = internalSecret === null ? null : new PrincipalSigner(internalSecret);
  const inFlight = options.deduplicateQueries ? new InFlightQueries<RawAnswer>() : null;
  const send = async (request: GraphQLRequest, headers: Record<string, string>): Promise<RawAnswer> => {
    const response = await pool.request({ path, method: 'POST', headers, body: JSON.stringify(request) });
    return { status: response.statusCode, text: await response.body.text() };
  };
  return {
    name,
    foreign: internalSecret === null,
    async execute(request, principal, requestId) {
      let answer: RawAnswer;
      try {
        const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'x-request-id': requestId };
        if (signer) headers[INTERNAL_PRINCIPAL_HEADER] = await signer.sign(principal);
        // W3C trace context, to every subgraph (foreign ones too: it is a standard header, no secret).
        injectTraceHeaders(headers);
        answer = await (inFlight ? inFlight.run(request, headers[INTERNAL_PRINCIPAL_HEADER], () => send(request, headers)) : send(request, headers));
      } catch (err) {
        // Refused, reset, or no answer within the timeout.
        options.health?.down(dependency, err);
        return unavailableResponse();
      }
      // Parsed by every caller, so that callers sharing one answer never share its objects.
      let body: SubgraphResponse | null;
      try {
        body = JSON.parse(answer.text) as SubgraphResponse | null;
      } catch {
        body = null;
      }
      if (!body || typeof body !== 'object' || (body.data === undefined && body.errors === undefined)) {
        options.health?.down(dependency, new Error(`answered HTTP ${answer.status} without a GraphQL response`));
        return unavailableResponse();
      }
      return body;
    },
    close: () => pool.close(),
  };
}

/** A subgraph's HTTP answer before parsing. */
interface RawAnswer {
  status: number;
  text: string;
}
