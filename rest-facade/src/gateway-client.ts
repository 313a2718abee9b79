import { DomainError, signPrincipal, INTERNAL_PRINCIPAL_HEADER, type GraphQLRequest, type Principal } from '@svc/platform';
import type { Authenticator, Gateway, SubgraphResponse } from '@svc/gateway';

/** The facade's one way into the platform: authenticate a caller, then run a gateway operation. */
export interface FacadeGateway {
  authenticate(authorization: string | undefined, requestId: string): Promise<Principal>;
  execute(request: GraphQLRequest, principal: Principal, requestId: string): Promise<SubgraphResponse>;
}

/** The embedded mode: the gateway in the same process. */
export function inProcessGateway(gateway: Gateway, authenticator: Authenticator): FacadeGateway {
  return {
    authenticate: (authorization, requestId) => authenticator.authenticate(authorization, requestId),
    execute: (request, principal, requestId) => gateway.execute(request, { principal, requestId }),
  };
}

/**
 * The distributed mode: the gateway's internal listener over HTTP (`SVC_GATEWAY_URL`); the
 * principal travels signed, for 15 seconds at most, and the gateway checks it against revocations.
 */
export function httpGateway(baseUrl: string, internalSecret: string): FacadeGateway {
  const base = baseUrl.replace(/\/+$/, '');
  const unavailable = () => new DomainError('UPSTREAM_UNAVAILABLE', 'The gateway is unavailable; retry shortly.');
  return {
    async authenticate(authorization, requestId) {
      const headers: Record<string, string> = { 'x-request-id': requestId };
      if (authorization !== undefined) headers['authorization'] = authorization;
      const response = await fetch(`${base}/internal/principal`, { headers }).catch(() => {
        throw unavailable();
      });
      const body = (await response.json().catch(() => null)) as { principal?: Principal; errors?: { message: string; extensions?: { code?: string } }[] } | null;
      if (response.ok && body?.principal) return body.principal;
      const error = body?.errors?.[0];
      if (error?.extensions?.code === 'INVALID_TOKEN' || error?.extensions?.code === 'UNAUTHENTICATED') {
        throw new DomainError(error.extensions.code, error.message);
      }
      throw unavailable();
    },
    async execute(request, principal, requestId) {
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-request-id': requestId,
          [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(principal, internalSecret),
        },
        body: JSON.stringify(request),
      }).catch(() => {
        throw unavailable();
      });
      const body = (await response.json().catch(() => null)) as SubgraphResponse | null;
      if (!body) throw unavailable();
      return body;
    },
  };
}
