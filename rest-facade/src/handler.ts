import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  admitClientAuthentication,
  ANONYMOUS,
  authenticateBearer,
  CAPABILITIES,
  claimedClient,
  clientSubject,
  deferredChild,
  DependencyUnavailable,
  DomainError,
  FACADE_PRINCIPAL,
  hasAnyScope,
  isAuthenticated,
  isConnectionFailure,
  isErrorCode,
  noteRequestPrincipal,
  portalCookieSecure,
  RETRY_AFTER_SECONDS,
  rateLimitedError,
  rateLimitHeaders,
  rateLimitSubject,
  requestAuthorization,
  recordClientAuthentication,
  type Capability,
  type ClientClaim,
  type FieldError,
  type Logger,
  type Principal,
  type RateLimiter,
} from '@svc/platform';
import type { RouteInput, RouteResult, RouteSpec } from './routes/route.js';
import type { FacadeGateway } from './gateway-client.js';
import { deprecationHeaders, isSunset } from './deprecation.js';
import { sendDomainError, sendError } from './render-error.js';
import { rawBodyOf } from './raw-body.js';
import { sendOAuthError } from './render-oauth-error.js';

export interface HandlerDeps {
  gateway: FacadeGateway;
  /** The whole route table (local routes such as the catalog describe it). */
  routes: readonly RouteSpec[];
  /** Null when rate limiting is switched off (SVC_RATE_LIMITS=off). */
  limiter: RateLimiter | null;
  publicUrl: string;
  now: () => Date;
  /** Our TEFCA home community id: a retrieve for it is answered here, for another community forwarded. */
  homeCommunityId?: string;
}

/** Who may use a route's credential class. */
function assertCredentialClass(route: RouteSpec, principal: Principal): void {
  if (route.auth === 'none') return;
  if (!isAuthenticated(principal)) throw new DomainError('UNAUTHENTICATED', 'This route requires a bearer credential.');
  if (route.auth === 'service' && principal.kind !== 'service' && principal.clientId === undefined) {
    throw new DomainError('FORBIDDEN', 'This route requires a service credential: an OAuth client_credentials access token.');
  }
  if (route.scopes.length > 0 && !hasAnyScope(principal.scopes, route.scopes)) {
    throw new DomainError('INSUFFICIENT_SCOPE', `The credential lacks a required scope (one of: ${route.scopes.join(', ')}).`, { details: { required_scopes: route.scopes } });
  }
}

/** The first error of a gateway answer as a DomainError, keeping its code, field errors and details. */
function errorFromGateway(errors: readonly { message: string; extensions?: Record<string, unknown> }[]): DomainError {
  const first = errors[0]!;
  // The gateway's own annotations (which subgraph answered, stack traces) are not the caller's business.
  const { code, status: _status, fieldErrors, serviceName: _service, exception: _exception, stacktrace: _stack, ...details } = first.extensions ?? {};
  if (isErrorCode(code)) return new DomainError(code, first.message, { fieldErrors: Array.isArray(fieldErrors) ? (fieldErrors as FieldError[]) : [], details });
  // GraphQL-level rejections (a document the schema does not accept) mean the route table and the
  // supergraph disagree: that is our fault, not the caller's.
  return new DomainError('INTERNAL', 'The request could not be completed.');
}

/** The capability whose limit and counter a route spends: its declared one, else the route itself. */
function capabilityOf(route: RouteSpec): Pick<Capability, 'id' | 'product' | 'limit' | 'clientAuthentication'> {
  if (route.capability) return CAPABILITIES[route.capability];
  return { id: route.id, product: route.product, ...(route.rateLimit ? { limit: route.rateLimit } : {}) };
}

/** The OAuth client a token request claims to be (from the variables the route would send), before verification. */
function clientClaimOf(route: RouteSpec, input: RouteInput): ClientClaim {
  const operation = route.operation;
  if (!operation || 'local' in operation || !operation.variables) return { clientId: null, secretHash: null };
  try {
    return claimedClient(operation.variables(input)['input']);
  } catch {
    return { clientId: null, secretHash: null };
  }
}

/**
 * The one handler every route shares: deprecation, authentication, rate limits, scopes, then the
 * route's gateway operation, with its result and errors mapped to HTTP.
 */
export function routeHandler(route: RouteSpec, deps: HandlerDeps) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const requestId = String(req.id);
    let clientClaim: ClientClaim | undefined;
    try {
      if (route.deprecated) {
        reply.headers(deprecationHeaders(route.deprecated, deps.publicUrl));
        if (isSunset(route.deprecated, deps.now())) {
          const successors = route.deprecated.successors.map((s) => `${s.method} ${s.path}`).join(' or ');
          throw new DomainError('GONE', `${route.method} ${route.path} was sunset on ${route.deprecated.sunset}; use ${successors}.`, {
            details: { sunset: route.deprecated.sunset, successors: route.deprecated.successors },
          });
        }
      }
      // Bad bearers are counted per address without locking out valid credentials behind it (credential-guard.ts).
      // The portal's cookie stands for the same bearer, after its CSRF and Origin checks (platform portal-cookie.ts).
      const principal = route.auth === 'none' ? ANONYMOUS : await authenticateBearer(deps.limiter, req.ip, requestAuthorization(req.method, req.headers), requestId, deps.gateway);
      req.log = deferredChild(req.log as Logger, { partner: principal.partnerGpid, tokenId: principal.tokenId });
      // The partner's request log attributes the answer to this credential, once it is sent.
      if (isAuthenticated(principal)) noteRequestPrincipal(req.raw, principal, requestId);
      const input: RouteInput = {
        params: (req.params ?? {}) as Record<string, string>,
        query: (req.query ?? {}) as RouteInput['query'],
        body: req.body,
        ...(rawBodyOf(req) === undefined ? {} : { rawBody: rawBodyOf(req) }),
        headers: req.headers,
        principal,
        clientIp: req.ip,
        secureCookies: portalCookieSecure(deps.publicUrl, req.protocol),
        ...(deps.homeCommunityId ? { homeCommunityId: deps.homeCommunityId } : {}),
      };

      // The token endpoint is counted per claimed client, and its failures per client and per address.
      const capability = capabilityOf(route);
      clientClaim = capability.clientAuthentication ? clientClaimOf(route, input) : undefined;
      const subject = clientClaim ? clientSubject(clientClaim, req.ip) : rateLimitSubject(principal, req.ip);
      const decision = deps.limiter ? await deps.limiter.consume([{ capability, subject, points: 1 }]) : null;
      if (decision) reply.headers(rateLimitHeaders(decision));
      if (decision && !decision.allowed) throw rateLimitedError(decision.binding);
      if (clientClaim) await admitClientAuthentication(deps.limiter, req.ip, clientClaim);
      assertCredentialClass(route, principal);

      const operation = route.operation;
      let result: RouteResult;
      if ('local' in operation) {
        const execute = async (query: string, variables: Record<string, unknown> = {}) => {
          const response = await deps.gateway.execute({ query, variables }, principal, requestId);
          if (response.errors?.length) throw errorFromGateway(response.errors);
          return response.data ?? {};
        };
        result = await operation.local(input, { publicUrl: deps.publicUrl, routes: deps.routes, execute });
      } else {
        const document = typeof operation.document === 'string' ? operation.document : operation.document(principal, input);
        const caller = operation.asFacade && route.auth === 'none' ? FACADE_PRINCIPAL : principal;
        const response = await deps.gateway.execute({ query: document, variables: operation.variables?.(input) ?? {} }, caller, requestId);
        if (response.errors?.length) throw errorFromGateway(response.errors);
        const data = response.data ?? {};
        result = operation.respond ? operation.respond(data, input) : { body: operation.result(data, input) };
        if (clientClaim) await recordClientAuthentication(deps.limiter, req.ip, clientClaim, true);
      }
      reply.code(result.status ?? route.successStatus);
      if (result.headers) reply.headers(result.headers);
      const contentType = result.contentType ?? route.responseContentType ?? (route.format === 'fhir' ? 'application/fhir+json' : undefined);
      if (contentType) reply.type(contentType.includes('charset') ? contentType : `${contentType}; charset=utf-8`);
      return reply.send(result.body);
    } catch (caught) {
      const err = !(caught instanceof DomainError) && isConnectionFailure(caught) ? new DependencyUnavailable('backing service', caught) : caught;
      if (err instanceof DomainError) {
        if (clientClaim && err.code === 'UNAUTHENTICATED') await recordClientAuthentication(deps.limiter, req.ip, clientClaim, false).catch(() => undefined);
        // An outage is logged once per change of state by the dependency tracker, not here.
        if (err.status >= 500 && err.code !== 'UPSTREAM_UNAVAILABLE') req.log.error({ err }, 'route failed');
        // Refusals that say when to come back (a locked account, a throttled address, an outage) say it in HTTP too.
        const retryAfter = err.details['retry_after'] ?? (err.status === 503 ? RETRY_AFTER_SECONDS : undefined);
        if (typeof retryAfter === 'number' && !reply.hasHeader('retry-after')) reply.header('retry-after', String(retryAfter));
        if (route.errorFormat === 'oauth') return sendOAuthError(req, reply, err);
        return sendDomainError(req, reply, err);
      }
      req.log.error({ err }, 'route failed');
      if (route.errorFormat === 'oauth') return sendOAuthError(req, reply, new DomainError('INTERNAL', 'Internal server error.'));
      return sendError(req, reply, 'INTERNAL', 'Internal server error.');
    }
  };
}
