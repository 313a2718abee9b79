import { connectionType, DomainError, type RequestLogBatch, type SubgraphBuilder as Builder } from '@svc/platform';
import { readRequestLog, recordRequestBatch, REQUEST_METHODS, STATUS_CLASSES } from '../domain/request-log.js';
import type { StoredRequest } from '../entities/request-log.js';

/**
 * Query.apiRequestLog: the caller's partner's own recent API requests (GET /api/partner/requests);
 * and the edges' internal write of their buffered entries.
 */
export function defineRequestLog(builder: Builder) {
  const ApiRequest = builder.objectRef<StoredRequest>('ApiRequest').implement({
    description: 'One API request of your partner, as the service answered it. Never a body, a query string, a header or a secret.',
    fields: (t) => ({
      occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'When the answer was sent.' }),
      method: t.exposeString('method'),
      route: t.exposeString('route', { description: 'The route template (/api/identity/{gpid}, /graphql), without the query string.' }),
      status: t.exposeInt('status', { description: 'The HTTP status answered.' }),
      requestId: t.exposeString('requestId', { description: 'The X-Request-Id of the answer: quote it to support.' }),
      latencyMs: t.exposeInt('latencyMs', { description: 'Milliseconds from the request to the answer.' }),
      credentialId: t.exposeString('credentialId', { nullable: true, description: 'The credential that authenticated it: tok_… (API token), cli_… (OAuth client), ses_… (portal session).' }),
      credentialKind: t.exposeString('credentialKind', { description: 'api_token, oauth_client, portal_session or operator.' }),
    }),
  });
  const Connection = connectionType(builder, 'ApiRequest', ApiRequest);

  builder.queryFields((t) => ({
    apiRequestLog: t.field({
      type: Connection,
      description:
        "Your partner's own recent API requests (REST and GraphQL over HTTP), newest first. Kept SVC_REQUEST_LOG_RETENTION_HOURS (72 by default) and at most SVC_REQUEST_LOG_MAX_PER_PARTNER (10,000) per partner; written within seconds of the answer.",
      args: {
        first: t.arg.int({ description: 'Page size, 1 to 100 (default 20).' }),
        after: t.arg.string({ description: 'endCursor of the previous page.' }),
        statusClass: t.arg.string({ description: `Only answers of one status class: ${STATUS_CLASSES.join(', ')}.` }),
        method: t.arg.string({ description: `Only one HTTP method: ${REQUEST_METHODS.join(', ')}.` }),
        credentialId: t.arg.string({ description: 'Only the requests of one credential (tok_…, cli_…, ses_…).' }),
        since: t.arg({ type: 'DateTime', description: 'Only requests at or after this instant.' }),
        until: t.arg({ type: 'DateTime', description: 'Only requests before this instant.' }),
      },
      authScopes: { anyScope: ['cms.tokens.manage', 'cms.pipeline.read', 'cms.admin'] },
      resolve: (_root, args, ctx) => {
        const partnerGpid = ctx.principal.partnerGpid;
        if (!partnerGpid) throw new DomainError('FORBIDDEN', 'Only a partner credential has a request log.');
        return readRequestLog(ctx.em, partnerGpid, args);
      },
    }),
  }));

  builder.mutationFields((t) => ({
    recordApiRequests: t.boolean({
      inaccessible: true,
      description: 'Write a batch of request-log entries and token uses buffered by an edge (the facade, the gateway). Internal; hidden from the supergraph.',
      args: { batch: t.arg.string({ required: true, description: 'JSON: { requests: RequestLogEntry[], tokensUsed: TokenUse[] }.' }) },
      authScopes: { internal: true },
      resolve: async (_root, { batch }, ctx) => {
        const parsed = JSON.parse(batch) as RequestLogBatch;
        if (!Array.isArray(parsed.requests) || !Array.isArray(parsed.tokensUsed)) throw new DomainError('BAD_REQUEST', 'batch must hold requests and tokensUsed.');
        await recordRequestBatch(ctx.em, parsed);
        return true;
      },
    }),
  }));
}
