import createClient, { type Client } from 'openapi-fetch';
import { applicantApi } from './applicant.js';
import { tokenProvider, type Credentials } from './auth.js';
import type { DeprecationWarning } from './deprecation.js';
import { apiErrorOf } from './errors.js';
import { ClientEventEmitter, type ClientEvents, type Listener } from './events.js';
import { FhirClient } from './fhir.js';
import type { paths } from './generated/openapi.js';
import { ok, type JsonBody, type QueryOf } from './operations.js';
import { DEFAULT_RETRY, transportFetch, type RetryOptions } from './transport.js';

export interface PartnerClientOptions {
  /** The service's base URL, e.g. https://sandbox.example.org (no trailing /fhir/R4). */
  baseUrl: string;
  /** An API token, or OAuth client credentials (client_secret or private_key_jwt). */
  credentials?: Credentials;
  /** The OAuth token endpoint (default `${baseUrl}/oauth/token`). */
  tokenUrl?: string;
  /** Retries after 429/503 and network failures (see transport.ts); `false` turns them off. */
  retry?: RetryOptions | false;
  /** Called when a deprecated route is used (also the `deprecation` event). */
  onDeprecation?: (warning: DeprecationWarning) => void;
  /** Another fetch (a proxy agent, a test double); default the global fetch. */
  fetch?: typeof fetch;
  userAgent?: string;
}

/** One partner's connection to the platform: the typed REST client, FHIR, and task-shaped helpers. */
export interface PartnerClient {
  /** Every REST operation, typed from the OpenAPI document (openapi-fetch: `rest.GET('/cms/tokens')`). */
  rest: Client<paths>;
  fhir: FhirClient;
  identity: ReturnType<typeof identityApi>;
  pipeline: ReturnType<typeof pipelineApi>;
  tefca: ReturnType<typeof tefcaApi>;
  clearinghouse: ReturnType<typeof clearinghouseApi>;
  webhooks: ReturnType<typeof webhooksApi>;
  /** The partner's event log and replay. */
  events: ReturnType<typeof eventsApi>;
  /** Sync jobs of the pipeline (created and finished by the partner's own ingestion). */
  syncJobs: ReturnType<typeof syncJobsApi>;
  /** The partner's own onboarding application and its status. */
  application: ReturnType<typeof applicationApi>;
  /** Applying to become a partner: a draft application, saved step by step with its resume token. */
  applicant: ReturnType<typeof applicantApi>;
  /** Listen to `deprecation` and `retry` events; the answer stops listening. */
  on<K extends keyof ClientEvents>(name: K, listener: Listener<K>): () => void;
}

export const SDK_VERSION = '1.0.0';

export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const events = new ClientEventEmitter();
  if (options.onDeprecation) events.on('deprecation', options.onDeprecation);
  const tokenUrl = options.tokenUrl ?? `${baseUrl}/oauth/token`;
  const tokens = options.credentials ? tokenProvider(options.credentials, { tokenUrl, fetch: fetchImpl }) : undefined;
  const retry = options.retry === false ? { ...DEFAULT_RETRY, maxRetries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const send = transportFetch({ tokens, retry, fetch: fetchImpl, events, userAgent: options.userAgent ?? `health-partner-sdk-typescript/${SDK_VERSION}` });
  const rest = createClient<paths>({ baseUrl, fetch: send });
  return {
    rest,
    fhir: new FhirClient(`${baseUrl}/fhir/R4`, send),
    identity: identityApi(rest),
    pipeline: pipelineApi(rest),
    tefca: tefcaApi(rest),
    clearinghouse: clearinghouseApi(rest, baseUrl, send),
    webhooks: webhooksApi(rest),
    events: eventsApi(rest),
    syncJobs: syncJobsApi(rest),
    application: applicationApi(rest),
    applicant: applicantApi(rest),
    on: (name, listener) => events.on(name, listener),
  };
}

function identityApi(rest: Client<paths>) {
  return {
    /** Candidates for a person's demographics, with the agreement of each field (no GPID is created). */
    match: (body: JsonBody<'identity.match'>) => ok(rest.POST('/api/identity/match', { body })),
    /** The person's GPID: an existing one when the match is sure, else a new one (or a review item). */
    resolve: (body: JsonBody<'identity.resolve'>) => ok(rest.POST('/api/identity/resolve', { body })),
    get: (gpid: string) => ok(rest.GET('/api/identity/{gpid}', { params: { path: { gpid } } })),
    /** The 22 entity types of the registry. */
    entityTypes: () => ok(rest.GET('/api/identity/entity-types', {})),
    /** One page of merge and split requests, newest first; pass `cursor: next_cursor` for the next. */
    changeRequests: (query?: QueryOf<'identity.change-requests.list'>) => ok(rest.GET('/api/identity/change-requests', { params: { query } })),
    changeRequest: (requestId: string) => ok(rest.GET('/api/identity/change-requests/{request_id}', { params: { path: { request_id: requestId } } })),
    /** One page of the hash-chained audit entries, oldest first. */
    auditEntries: (query?: QueryOf<'identity.audit.list'>) => ok(rest.GET('/api/identity/audit', { params: { query } })),
    /** Walk the audit chain, recomputing every hash. */
    verifyAudit: () => ok(rest.GET('/api/identity/audit/verification', {})),
  };
}

function pipelineApi(rest: Client<paths>) {
  return {
    /** The partner's pipeline health: jobs, consumers, webhook deliveries. */
    health: (query?: QueryOf<'pipeline.health'>) => ok(rest.GET('/cms/pipeline/health', { params: { query } })),
  };
}

function tefcaApi(rest: Client<paths>) {
  return {
    /** XCPD patient discovery across the TEFCA network. */
    patientDiscovery: (body: JsonBody<'tefca.xcpd.search'>) => ok(rest.POST('/tefca/xcpd/search', { body })),
    /** XCA document query for a discovered patient. */
    documentQuery: (body: JsonBody<'tefca.xca.query'>) => ok(rest.POST('/tefca/xca/query', { body })),
    /** XCA retrieve of documents found by a query. */
    retrieve: (body: JsonBody<'tefca.xca.retrieve'>) => ok(rest.POST('/tefca/xca/retrieve', { body })),
    /** The partner's exchanges (audit trail of its TEFCA requests). */
    exchanges: (query?: QueryOf<'tefca.exchanges'>) => ok(rest.GET('/tefca/exchanges', { params: { query } })),
    exchange: (exchangeId: string) => ok(rest.GET('/tefca/exchanges/{exchange_id}', { params: { path: { exchange_id: exchangeId } } })),
    /** The network directory: this community and its peers. */
    communities: () => ok(rest.GET('/tefca/communities', {})),
  };
}

function clearinghouseApi(rest: Client<paths>, baseUrl: string, send: (request: Request) => Promise<Response>) {
  /** An X12 interchange in, the payer's X12 out. */
  const x12 = async (path: string, interchange: string): Promise<string> => {
    const response = await send(new Request(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/edi-x12', accept: 'application/edi-x12' }, body: interchange }));
    if (!response.ok) throw await apiErrorOf(response, 'POST');
    return response.text();
  };
  return {
    /** Eligibility inquiry (270 → 271) in JSON. */
    eligibility: (body: JsonBody<'clearinghouse.eligibility'>) => ok(rest.POST('/velocity/v1/clearinghouse/eligibility', { body })),
    /** Eligibility inquiry as an X12 270; answers the 271. */
    eligibilityX12: (interchange: string) => x12('/velocity/v1/clearinghouse/eligibility', interchange),
    /** Claim status inquiry (276 → 277) in JSON. */
    claimStatus: (body: JsonBody<'clearinghouse.claim-status'>) => ok(rest.POST('/velocity/v1/clearinghouse/claim-status', { body })),
    claimStatusX12: (interchange: string) => x12('/velocity/v1/clearinghouse/claim-status', interchange),
    /** Professional claims (837P) in JSON; resubmitting the same claims is safe (answered as replayed). */
    submitClaims: (body: JsonBody<'clearinghouse.claims.submit'>) => ok(rest.POST('/velocity/v1/clearinghouse/claims', { body })),
    /** An 837P interchange; answers its TA1 (when asked) and 999. Resubmitting the interchange is safe. */
    submitClaimsX12: (interchange: string) => x12('/velocity/v1/clearinghouse/claims', interchange),
    claim: (claimId: string) => ok(rest.GET('/velocity/v1/clearinghouse/claims/{claimId}', { params: { path: { claimId } } })),
  };
}

function webhooksApi(rest: Client<paths>) {
  const endpoint = (webhookId: string) => ({ params: { path: { webhook_id: webhookId } } });
  return {
    /** Register an endpoint; the answer holds its `secret` (whsec_…), shown only once. */
    register: (body: JsonBody<'webhooks.register'>) => ok(rest.POST('/api/partner/webhooks', { body })),
    list: () => ok(rest.GET('/api/partner/webhooks', {})),
    get: (webhookId: string) => ok(rest.GET('/api/partner/webhooks/{webhook_id}', endpoint(webhookId))),
    remove: (webhookId: string) => ok(rest.DELETE('/api/partner/webhooks', { params: { query: { webhook_id: webhookId } } })),
    /** Queue a signed test.ping; the delivery log shows whether the receiver verified it. */
    testPing: (webhookId: string) => ok(rest.POST('/api/partner/webhooks/{webhook_id}/test', endpoint(webhookId))),
    /** One page of the endpoint's delivery log, newest first; pass `cursor: next_cursor` for the next. */
    deliveries: (webhookId: string, query?: QueryOf<'webhooks.deliveries'>) => ok(rest.GET('/api/partner/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: webhookId }, query } })),
    delivery: (webhookId: string, deliveryId: string) => ok(rest.GET('/api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}', { params: { path: { webhook_id: webhookId, delivery_id: deliveryId } } })),
    /** Send a finished delivery again, under the same delivery id. */
    redeliver: (webhookId: string, deliveryId: string) => ok(rest.POST('/api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { params: { path: { webhook_id: webhookId, delivery_id: deliveryId } } })),
    /** A new signing secret; deliveries carry both signatures for `overlap_seconds`. */
    rotateSecret: (webhookId: string, body: JsonBody<'webhooks.rotate-secret'> = {}) => ok(rest.POST('/api/partner/webhooks/{webhook_id}/rotate-secret', { ...endpoint(webhookId), body })),
    /** Enable an endpoint again (disabled by its partner, or by the platform: gone, or failing for days). */
    enable: (webhookId: string) => ok(rest.POST('/api/partner/webhooks/{webhook_id}/enable', endpoint(webhookId))),
    /** Stop deliveries to an endpoint (its waiting deliveries are cancelled) until it is enabled again. */
    disable: (webhookId: string) => ok(rest.POST('/api/partner/webhooks/{webhook_id}/disable', endpoint(webhookId))),
    /** The event types an endpoint can subscribe to. */
    eventTypes: () => ok(rest.GET('/api/partner/webhook-event-types', {})),
  };
}

function eventsApi(rest: Client<paths>) {
  return {
    /** One page of the partner's event log. */
    list: (query?: QueryOf<'events.list'>) => ok(rest.GET('/api/partner/events', { params: { query } })),
    get: (eventId: string) => ok(rest.GET('/api/partner/events/{event_id}', { params: { path: { event_id: eventId } } })),
    /** The events after `after` (an event id), in order: resume where a consumer stopped. */
    replay: (query: QueryOf<'events.replay'>) => ok(rest.GET('/api/partner/events/replay', { params: { query } })),
  };
}

function syncJobsApi(rest: Client<paths>) {
  const job = (jobId: string) => ({ params: { path: { job_id: jobId } } });
  return {
    create: (body: JsonBody<'pipeline.sync-jobs.create'>) => ok(rest.POST('/cms/pipeline/sync-jobs', { body })),
    list: (query?: QueryOf<'pipeline.sync-jobs.list'>) => ok(rest.GET('/cms/pipeline/sync-jobs', { params: { query } })),
    get: (jobId: string) => ok(rest.GET('/cms/pipeline/sync-jobs/{job_id}', job(jobId))),
    complete: (jobId: string, body: JsonBody<'pipeline.sync-jobs.complete'>) => ok(rest.POST('/cms/pipeline/sync-jobs/{job_id}/complete', { ...job(jobId), body })),
    fail: (jobId: string, body: JsonBody<'pipeline.sync-jobs.fail'>) => ok(rest.POST('/cms/pipeline/sync-jobs/{job_id}/fail', { ...job(jobId), body })),
  };
}

function applicationApi(rest: Client<paths>) {
  return () => ok(rest.GET('/api/partner/application', {}));
}
