import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ANONYMOUS,
  DependencyUnavailable,
  DomainError,
  FACADE_PRINCIPAL,
  hasAnyScope,
  isAuthenticated,
  isConnectionFailure,
  isErrorCode,
  RETRY_AFTER_SECONDS,
  type FieldError,
  type Principal,
} from '@svc/platform';
import type { RouteInput, RouteResult, RouteSpec } from './routes/route.js';
import type { FacadeGateway } from './gateway-client.js';
import type { RateLimiter } from './rate-limit.js';
import { rateLimitHeaders, type LimitState } from './rate-limit.js';
import { deprecationHeaders, isSunset } from './deprecation.js';
import { sendDomainError, sendError } from './render-error.js';
import { sendOAuthError } from './render-oauth-error.js';

export interface HandlerDeps {
  gateway: FacadeGateway;
  /** The whole route table (local routes such as the catalog describe it). */
  routes: readonly RouteSpec[];
  /** Null when rate limiting is switched off (SVC_RATE_LIMITS=off). */
  limiter: RateLimiter | null;
  publicUrl: string;
  now: () => Date;
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

function rateLimited(state: LimitState, reply: FastifyReply): DomainError {
  const retryAfter = Math.max(1, Math.ceil(state.resetMs / 1000));
  reply.header('retry-after', String(retryAfter));
  return new DomainError('RATE_LIMITED', `Rate limit exceeded (${state.limit} per ${state.windowSeconds}s, ${state.policy} policy); retry after ${retryAfter}s.`, {
    details: { policy: state.policy, limit: state.limit, window_seconds: state.windowSeconds, retry_after: retryAfter },
  });
}

/** A rate-limit counter store (Redis) that cannot be reached is an outage: 503 with Retry-After, not 500. */
async function counted<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof DomainError ? err : new DependencyUnavailable('redis', err);
  }
}

/** Authenticate through the gateway, refusing an address that keeps presenting bad credentials. */
async function authenticate(req: FastifyRequest, reply: FastifyReply, deps: HandlerDeps, requestId: string): Promise<Principal> {
  const blocked = await counted(async () => deps.limiter?.authFailuresExceeded(req.ip));
  if (blocked) throw rateLimited(blocked, reply);
  try {
    return await deps.gateway.authenticate(req.headers.authorization, requestId);
  } catch (err) {
    if (err instanceof DomainError && (err.code === 'INVALID_TOKEN' || err.code === 'UNAUTHENTICATED')) await counted(async () => deps.limiter?.recordAuthFailure(req.ip));
    throw err;
  }
}

/**
 * The one handler every route shares: deprecation, authentication, rate limits, scopes, then the
 * route's gateway operation, with its result and errors mapped to HTTP.
 */
export function routeHandler(route: RouteSpec, deps: HandlerDeps) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const requestId = String(req.id);
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
      const principal = route.auth === 'none' ? ANONYMOUS : await authenticate(req, reply, deps, requestId);
      req.log = req.log.child({ partner: principal.partnerGpid, tokenId: principal.tokenId });

      const decision = deps.limiter ? await counted(() => deps.limiter!.check(route, principal.partnerGpid ? `partner:${principal.partnerGpid}` : `ip:${req.ip}`)) : null;
      if (decision) reply.headers(rateLimitHeaders(decision));
      if (decision && !decision.allowed) throw rateLimited(decision.binding, reply);
      assertCredentialClass(route, principal);

      const operation = route.operation;
      if (!operation) throw new DomainError('NOT_IMPLEMENTED', `${route.method} ${route.path} is documented but not served yet.`);
      const input: RouteInput = {
        params: (req.params ?? {}) as Record<string, string>,
        query: (req.query ?? {}) as RouteInput['query'],
        body: req.body,
        headers: req.headers,
        principal,
        clientIp: req.ip,
      };
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
      }
      reply.code(result.status ?? route.successStatus);
      if (result.headers) reply.headers(result.headers);
      const contentType = result.contentType ?? route.responseContentType ?? (route.format === 'fhir' ? 'application/fhir+json' : undefined);
      if (contentType) reply.type(contentType.includes('charset') ? contentType : `${contentType}; charset=utf-8`);
      return reply.send(result.body);
    } catch (err) {
      if (!(err instanceof DomainError) && isConnectionFailure(err)) err = new DependencyUnavailable('backing service', err);
      if (err instanceof DomainError) {
        // An outage is logged once per change of state by the dependency tracker, not per request.
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
