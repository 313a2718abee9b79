import { DependencyUnavailable, DomainError, injectTraceHeaders, newId, signPrincipal, INTERNAL_PRINCIPAL_HEADER, type DependencyHealth, type GraphQLRequest, type Principal, type RequestLogBatch } from '@svc/platform';
import { INTERNAL_PRINCIPAL, type Authenticator, type Gateway, type SubgraphResponse } from '@svc/gateway';

/** The facade's one way into the platform: authenticate a caller, then run a gateway operation. */
export interface FacadeGateway {
  authenticate(authorization: string | undefined, requestId: string): Promise<Principal>;
  /** The principal only when the gateway can prove the credential valid without a database query; else null. */
  authenticateWithoutLookup(authorization: string | undefined, requestId: string): Promise<Principal | null>;
  execute(request: GraphQLRequest, principal: Principal, requestId: string): Promise<SubgraphResponse>;
  /** Write a batch of the edge's request-log entries (the partner subgraph's internal mutation); rejects when it was not written. */
  recordRequests(batch: RequestLogBatch): Promise<void>;
}

const RECORD_REQUESTS = 'mutation RecordApiRequests($batch: String!) { recordApiRequests(batch: $batch) }';

/** The embedded mode: the gateway in the same process. */
export function inProcessGateway(gateway: Gateway, authenticator: Authenticator): FacadeGateway {
  return {
    authenticate: (authorization, requestId) => authenticator.authenticate(authorization, requestId),
    authenticateWithoutLookup: (authorization, requestId) => authenticator.authenticateWithoutLookup(authorization, requestId),
    execute: (request, principal, requestId) => gateway.execute(request, { principal, requestId }),
    async recordRequests(batch) {
      const response = await gateway.callSubgraph('partner', { query: RECORD_REQUESTS, variables: { batch: JSON.stringify(batch) } }, { principal: INTERNAL_PRINCIPAL, requestId: newId('req') });
      if (response.errors?.length) throw new Error(`the request log was not written: ${response.errors[0]!.message}`);
    },
  };
}

/**
 * The distributed mode: the gateway's internal listener over HTTP (`SVC_GATEWAY_URL`); the
 * principal travels signed, for 15 seconds at most, and the gateway checks it against revocations.
 * A gateway that refuses the connection or does not answer within `timeoutMs` is an outage (503,
 * logged once by `health`).
 */
export function httpGateway(baseUrl: string, internalSecret: string, options: { timeoutMs?: number; health?: DependencyHealth } = {}): FacadeGateway {
  const base = baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const unavailable = (cause?: unknown) => {
    if (cause !== undefined) options.health?.down('gateway', cause);
    return new DependencyUnavailable('gateway', cause, 'The gateway is unavailable; retry shortly.');
  };
  const principalOf = async (authorization: string | undefined, requestId: string, withoutLookup: boolean): Promise<Principal | null> => {
    const headers: Record<string, string> = { 'x-request-id': requestId };
    if (authorization !== undefined) headers['authorization'] = authorization;
    injectTraceHeaders(headers);
    const response = await fetch(`${base}/internal/principal${withoutLookup ? '?lookup=none' : ''}`, { headers, signal: AbortSignal.timeout(timeoutMs) }).catch((err: unknown) => {
      throw unavailable(err);
    });
    const body = (await response.json().catch(() => null)) as { principal?: Principal | null; errors?: { message: string; extensions?: { code?: string } }[] } | null;
    if (response.ok && body?.principal) return body.principal;
    if (response.ok && withoutLookup && body?.principal === null) return null;
    const error = body?.errors?.[0];
    if (error?.extensions?.code === 'INVALID_TOKEN' || error?.extensions?.code === 'UNAUTHENTICATED') {
      throw new DomainError(error.extensions.code, error.message);
    }
    // The gateway answered but could not authenticate (its partner subgraph is down, say): it logs that.
    throw unavailable();
  };
  return {
    authenticate: async (authorization, requestId) => (await principalOf(authorization, requestId, false))!,
    authenticateWithoutLookup: (authorization, requestId) => principalOf(authorization, requestId, true),
    async execute(request, principal, requestId) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-request-id': requestId,
        [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(principal, internalSecret),
      };
      injectTraceHeaders(headers);
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(timeoutMs),
      }).catch((err: unknown) => {
        throw unavailable(err);
      });
      const body = (await response.json().catch(() => null)) as SubgraphResponse | null;
      if (!body || typeof body !== 'object' || (body.data === undefined && body.errors === undefined)) {
        throw unavailable(new Error(`the gateway answered HTTP ${response.status} without a GraphQL response`));
      }
      return body;
    },
    async recordRequests(batch) {
      // The gateway's internal listener forwards the batch to the partner subgraph (internal-routes.ts).
      const response = await fetch(`${base}/internal/request-log`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(INTERNAL_PRINCIPAL, internalSecret) },
        body: JSON.stringify(batch),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`the gateway answered HTTP ${response.status} to a request-log batch`);
    },
  };
}
