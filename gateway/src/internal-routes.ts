import type { FastifyInstance } from 'fastify';
import { DomainError, INTERNAL_PRINCIPAL_HEADER, INTERNAL_SCOPE, signPrincipal, verifyPrincipal, type RevocationList } from '@svc/platform';
import { INTERNAL_PRINCIPAL } from './authenticate.js';
import { graphqlError, graphqlHttpHandler, requestIdOf, setRetryAfter, type GatewayHttpOptions } from './http.js';

/**
 * The gateway's side of the facade's hop in the distributed mode, served only on the internal
 * listener (SVC_INTERNAL_PORT), never on the public one:
 *
 * - `GET /internal/principal`: authenticate a caller's bearer credential once and answer its
 *   principal (with a signed copy); `?lookup=none` answers only what is provable without a database
 *   query (the facade asks this for an address over its failed-authentication limit);
 * - `POST /graphql`: run an operation as the principal in the `x-svc-principal` header, which must
 *   be signed with the deployment's internal secret, unexpired, and whose token, session or OAuth
 *   client must not be revoked. The facade already counted its rate limits, so they are not counted again.
 */
export function registerInternalGatewayRoutes(app: FastifyInstance, options: GatewayHttpOptions & { revocations: RevocationList }): void {
  app.get('/internal/principal', async (req, reply) => {
    const requestId = requestIdOf(req);
    try {
      if ((req.query as Record<string, unknown>)['lookup'] === 'none') {
        const known = await options.authenticator.authenticateWithoutLookup(req.headers.authorization, requestId);
        return { principal: known, token: known ? await signPrincipal(known, options.internalSecret) : null };
      }
      const principal = await options.authenticator.authenticate(req.headers.authorization, requestId);
      return { principal, token: await signPrincipal(principal, options.internalSecret) };
    } catch (err) {
      const { status, body } = graphqlError(err);
      setRetryAfter(reply, err, status);
      return reply.code(status).send(body);
    }
  });

  // A facade's batch of request-log entries, for the partner subgraph (only the internal principal may send one).
  app.post('/internal/request-log', async (req, reply) => {
    const requestId = requestIdOf(req);
    const forwarded = req.headers[INTERNAL_PRINCIPAL_HEADER];
    let principal;
    try {
      principal = typeof forwarded === 'string' ? await verifyPrincipal(forwarded, options.internalSecret, options.revocations) : null;
    } catch {
      principal = null;
    }
    if (!principal?.scopes.includes(INTERNAL_SCOPE)) return reply.code(401).send({ errors: [{ message: 'The internal principal is required.', extensions: { code: 'UNAUTHENTICATED' } }] });
    const response = await options.gateway.callSubgraph(
      'partner',
      { query: 'mutation RecordApiRequests($batch: String!) { recordApiRequests(batch: $batch) }', variables: { batch: JSON.stringify(req.body) } },
      { principal: INTERNAL_PRINCIPAL, requestId },
    );
    if (response.errors?.length) return reply.code(502).send({ errors: response.errors });
    return reply.code(204).send();
  });

  app.post(
    '/graphql',
    graphqlHttpHandler(options, async (req) => {
      const forwarded = req.headers[INTERNAL_PRINCIPAL_HEADER];
      if (typeof forwarded !== 'string') {
        throw new DomainError('UNAUTHENTICATED', `The internal /graphql accepts only requests with a signed ${INTERNAL_PRINCIPAL_HEADER} header.`);
      }
      try {
        return { principal: await verifyPrincipal(forwarded, options.internalSecret, options.revocations) };
      } catch {
        throw new DomainError('UNAUTHENTICATED', 'The forwarded principal is invalid, expired or revoked.');
      }
    }),
  );
}
