/**
 * The one declaration of every rate-limited capability: its per-subject limit, the product whose
 * overall and burst limits it also spends, and the GraphQL root fields that are its twin. The REST
 * route table reads its limits from here, and the gateway applies the same limits (and the same
 * counters) to the twin fields on /graphql, so a capability costs the same whichever door it is
 * called through.
 */

/** Products group capabilities for the overall and burst limits of the spec's Limits table. */
export type Product = 'partner-ecosystem' | 'identity' | 'fhir' | 'tefca' | 'analytics' | 'clearinghouse' | 'wearables' | 'platform';

export interface RateLimit {
  points: number;
  per: 'second' | 'minute' | 'hour';
}

const SECONDS: Record<RateLimit['per'], number> = { second: 1, minute: 60, hour: 3600 };

/** Length of a limit's window in seconds. */
export function windowSeconds(limit: RateLimit): number {
  return SECONDS[limit.per];
}

/** The spec's Limits table: the overall and burst limits per subject, by product. */
export const PRODUCT_LIMITS: Record<Product, { overall: RateLimit; burst: RateLimit }> = {
  'partner-ecosystem': { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  identity: { overall: { points: 1000, per: 'minute' }, burst: { points: 50, per: 'second' } },
  fhir: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  tefca: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  analytics: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  clearinghouse: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  wearables: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  platform: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
};

export interface Capability {
  /** Also the counter's name: a REST route and its GraphQL twin spend the same counter. */
  id: string;
  product: Product;
  /** The per-subject limit; absent: only the product's overall and burst limits apply. */
  limit?: RateLimit;
  /**
   * GraphQL twin fields: `Mutation.portalLogin`, or `Query.partner.baaSignatures` for a field one
   * level below a root field (each occurrence inside any `partner` selection counts).
   */
  graphql: readonly string[];
  /**
   * The capability authenticates an OAuth client from its input (the token endpoint): it is
   * counted per claimed client_id instead of per address, and its failures are counted per
   * client_id and per address (see the README's rate-limit keying).
   */
  clientAuthentication?: boolean;
}

const perMinute = (points: number): RateLimit => ({ points, per: 'minute' });

function capability(id: string, product: Product, limit: RateLimit | undefined, graphql: readonly string[], extra: Partial<Capability> = {}): Capability {
  return Object.freeze({ id, product, ...(limit ? { limit } : {}), graphql: Object.freeze([...graphql]), ...extra });
}

/** Every capability with a REST route and a GraphQL twin. Ids are the REST route ids, or name the routes they share. */
export const CAPABILITIES = {
  // Partner ecosystem (the spec's endpoint table)
  'partner.login': capability('partner.login', 'partner-ecosystem', perMinute(10), ['Mutation.portalLogin', 'Mutation.openPartnerApplication']),
  'tokens.create': capability('tokens.create', 'partner-ecosystem', perMinute(5), ['Mutation.createApiToken']),
  'tokens.list': capability('tokens.list', 'partner-ecosystem', perMinute(30), ['Query.apiTokens']),
  'tokens.revoke': capability('tokens.revoke', 'partner-ecosystem', perMinute(10), ['Mutation.revokeApiToken', 'Mutation.revokeOAuthClient']),
  'oauth.register': capability('oauth.register', 'partner-ecosystem', { points: 3, per: 'hour' }, ['Mutation.registerOAuthClient']),
  'oauth.token': capability('oauth.token', 'partner-ecosystem', perMinute(30), ['Mutation.issueAccessToken'], { clientAuthentication: true }),
  'oauth.jwks': capability('oauth.jwks', 'partner-ecosystem', undefined, ['Query.oauthJwks']),
  'oauth.metadata': capability('oauth.metadata', 'partner-ecosystem', undefined, ['Query.oauthServerMetadata']),
  'pipeline.health': capability('pipeline.health', 'partner-ecosystem', perMinute(60), ['Query.pipelineHealth']),
  // GET /cms/pipeline/partners reads partners (operators) or partner(gpid) { pipelineMetrics } (a partner).
  'pipeline.partners': capability('pipeline.partners', 'partner-ecosystem', perMinute(30), ['Query.partners', 'Query.partner.syncJobs', 'Query.partner.pipelineMetrics']),
  // Both SDK catalog paths serve one capability and share its counter.
  'sdk.catalog': capability('sdk.catalog', 'partner-ecosystem', perMinute(60), ['Query.sdkCatalog']),
  // A partner's own counters (the portal's usage chart); operators read any partner's.
  'partners.rate-limits': capability('partners.rate-limits', 'partner-ecosystem', perMinute(60), ['Query.partner.rateLimitUsage']),
  // OAuth clients: the list, and a new secret for a client (held tighter than reading, like registration).
  'oauth.clients.list': capability('oauth.clients.list', 'partner-ecosystem', perMinute(30), ['Query.partner.oauthClients']),
  'oauth.clients.rotate-secret': capability('oauth.clients.rotate-secret', 'partner-ecosystem', { points: 10, per: 'hour' }, ['Mutation.rotateOAuthClientSecret']),
  // Operators: replace a partner's granted scopes.
  'partners.scopes.update': capability('partners.scopes.update', 'partner-ecosystem', perMinute(30), ['Mutation.updatePartnerScopeGrant']),
  // Scope requests: a partner asks (held tight: a request waits for a person), anyone reads its own, operators decide.
  'scope-requests.list': capability('scope-requests.list', 'partner-ecosystem', perMinute(60), ['Query.scopeRequests', 'Query.scopeRequest']),
  'scope-requests.create': capability('scope-requests.create', 'partner-ecosystem', perMinute(10), ['Mutation.requestScopes']),
  // Portal password resets: an operator issues a one-time link; whoever holds it uses it once (held tight: it takes a password guess).
  'portal.password-resets.create': capability('portal.password-resets.create', 'partner-ecosystem', perMinute(10), ['Mutation.createPortalPasswordReset']),
  'portal.password-resets.use': capability('portal.password-resets.use', 'partner-ecosystem', perMinute(10), ['Mutation.resetPortalPassword']),
  'scope-requests.decide': capability('scope-requests.decide', 'partner-ecosystem', perMinute(30), ['Mutation.grantScopeRequest', 'Mutation.refuseScopeRequest']),
  // Webhooks: the spec's three routes and their twins; managing one endpoint (test.ping, delivery log, redelivery,
  // secret rotation, enabling) shares one counter on both doors.
  'webhooks.register': capability('webhooks.register', 'partner-ecosystem', perMinute(10), ['Mutation.createWebhook']),
  'webhooks.list': capability('webhooks.list', 'partner-ecosystem', perMinute(60), ['Query.webhooks']),
  'webhooks.remove': capability('webhooks.remove', 'partner-ecosystem', perMinute(30), ['Mutation.removeWebhook']),
  'webhooks.manage': capability('webhooks.manage', 'partner-ecosystem', perMinute(60), [
    'Query.webhook',
    'Query.webhookDelivery',
    'Mutation.rotateWebhookSecret',
    'Mutation.enableWebhook',
    'Mutation.disableWebhook',
    'Mutation.sendWebhookTestPing',
    'Mutation.redeliverWebhookDelivery',
    'Mutation.updateWebhook',
    'Mutation.sendWebhookSample',
  ]),
  'webhooks.event-types': capability('webhooks.event-types', 'partner-ecosystem', perMinute(60), ['Query.webhookEventTypes']),
  // The partner's own request log (the portal's Request log page).
  'requests.log': capability('requests.log', 'partner-ecosystem', perMinute(60), ['Query.apiRequestLog']),
  // The partner's own onboarding application, as the partner reads it once approved.
  'partners.application': capability('partners.application', 'partner-ecosystem', perMinute(30), ['Query.partner.application']),
  // Identity
  'identity.match': capability('identity.match', 'identity', perMinute(120), ['Query.identityMatch']),
  'identity.resolve': capability('identity.resolve', 'identity', perMinute(60), ['Mutation.resolveIdentity']),
  'identity.get': capability('identity.get', 'identity', perMinute(120), ['Query.identity']),
  // Approving or rejecting a change is served by both /merge and /split (same limit); GraphQL counts it as a merge.
  'identity.merge': capability('identity.merge', 'identity', perMinute(10), ['Mutation.requestIdentityMerge', 'Mutation.approveIdentityChange', 'Mutation.rejectIdentityChange']),
  'identity.split': capability('identity.split', 'identity', perMinute(10), ['Mutation.requestIdentitySplit']),
  // The review queue (ours): the list and one item share a counter; a decision may open a merge request.
  'identity.review.read': capability('identity.review.read', 'identity', perMinute(120), ['Query.identityReviewQueue', 'Query.identityReviewItem']),
  'identity.review.decide': capability('identity.review.decide', 'identity', perMinute(30), ['Mutation.decideIdentityReview']),
  // Merge and split requests read one by one or listed, the audit chain and its verification (which
  // recomputes every hash of the chain, so it is held tighter), and the entity type list.
  'identity.changes.read': capability('identity.changes.read', 'identity', perMinute(120), ['Query.identityChangeRequests', 'Query.identityChangeRequest']),
  'identity.audit.read': capability('identity.audit.read', 'identity', perMinute(60), ['Query.identityAuditEntries']),
  'identity.audit.verify': capability('identity.audit.verify', 'identity', perMinute(10), ['Query.identityAuditVerification']),
  'identity.entity-types': capability('identity.entity-types', 'identity', perMinute(60), ['Query.identityEntityTypes']),
  'identity.model.get': capability('identity.model.get', 'identity', perMinute(30), ['Query.identityScoringModel', 'Query.identityScoringModels']),
  'identity.model.activate': capability('identity.model.activate', 'identity', perMinute(10), ['Mutation.activateIdentityScoringModel']),
  'identity.model.train': capability('identity.model.train', 'identity', perMinute(2), ['Mutation.trainIdentityScoringModel']),
  // Legal documents and certification
  'legal.documents.list': capability('legal.documents.list', 'partner-ecosystem', perMinute(60), ['Query.legalDocuments']),
  'legal.documents.download': capability('legal.documents.download', 'partner-ecosystem', perMinute(60), ['Query.legalDocument']),
  'legal.baa.sign': capability('legal.baa.sign', 'partner-ecosystem', perMinute(10), ['Mutation.signBaa']),
  'legal.baa.list': capability('legal.baa.list', 'partner-ecosystem', perMinute(30), ['Query.partner.baaSignatures']),
  'certification.status': capability('certification.status', 'partner-ecosystem', perMinute(30), ['Query.partner.certification']),
  'certification.submit': capability('certification.submit', 'partner-ecosystem', perMinute(10), ['Mutation.submitCertification']),
  'certification.progress': capability('certification.progress', 'partner-ecosystem', perMinute(30), ['Mutation.updateCertificationProgress']),
  // The checklist definitions (public, as on GraphQL).
  'certification.checklists': capability('certification.checklists', 'partner-ecosystem', perMinute(60), ['Query.certificationChecklists']),
  'changelog.rss': capability('changelog.rss', 'platform', perMinute(60), ['Query.releaseHistory']),
  'fhir.metadata': capability('fhir.metadata', 'fhir', undefined, ['Query.fhirCapabilityStatement']),
  // The FHIR interactions have no per-route limit in the spec: over GraphQL every fhir* field (the
  // generic JSON ones and the typed fhir<Type> / fhir<Type>s ones) spends the FHIR product's overall
  // and burst counters, which the REST routes under /fhir/R4 spend too.
  'fhir.interactions': capability('fhir.interactions', 'fhir', undefined, ['Query.fhir*', 'Mutation.fhir*']),
  // Wearable ingest: one batch (up to 1,000 readings) per call; a device hub syncing every few seconds fits.
  'wearables.ingest': capability('wearables.ingest', 'wearables', perMinute(120), ['Mutation.wearableEventsIngest']),
  // Clearinghouse (X12 005010 against the sandbox payer)
  'clearinghouse.eligibility': capability('clearinghouse.eligibility', 'clearinghouse', perMinute(120), ['Mutation.clearinghouseEligibility']),
  'clearinghouse.claim-status': capability('clearinghouse.claim-status', 'clearinghouse', perMinute(120), ['Query.clearinghouseClaimStatus']),
  'clearinghouse.claims.submit': capability('clearinghouse.claims.submit', 'clearinghouse', perMinute(60), ['Mutation.clearinghouseSubmitClaims']),
  'clearinghouse.claims.get': capability('clearinghouse.claims.get', 'clearinghouse', perMinute(120), ['Query.clearinghouseClaim']),
  // Analytics (spec: "Other routes named"; no published limit, ours): interpreting is cheap, executing
  // runs an aggregate over the FHIR index tables, so it is held tighter.
  'analytics.query.nl': capability('analytics.query.nl', 'analytics', perMinute(60), ['Mutation.analyticsQueryInterpret']),
  'analytics.query.execute': capability('analytics.query.execute', 'analytics', perMinute(30), ['Query.analyticsQueryExecute']),
  'analytics.score.compute': capability('analytics.score.compute', 'analytics', perMinute(120), ['Query.analyticsScore']),
  // TEFCA exchange: the product's overall and burst limits (no per-route limit in the spec).
  'tefca.xcpd.search': capability('tefca.xcpd.search', 'tefca', undefined, ['Mutation.tefcaSearchPatients']),
  'tefca.xcpd.discover': capability('tefca.xcpd.discover', 'tefca', undefined, ['Mutation.tefcaDiscoverPatients']),
  'tefca.xca.search': capability('tefca.xca.search', 'tefca', undefined, ['Mutation.tefcaSearchDocuments']),
  'tefca.xca.query': capability('tefca.xca.query', 'tefca', undefined, ['Mutation.tefcaQueryDocuments']),
  'tefca.xca.retrieve': capability('tefca.xca.retrieve', 'tefca', undefined, ['Mutation.tefcaRetrieveDocument', 'Mutation.tefcaRetrieveRemoteDocument']),
  'tefca.exchanges': capability('tefca.exchanges', 'tefca', undefined, ['Query.tefcaExchanges', 'Query.tefcaExchange', 'Query.tefcaCommunities']),
  // Anonymous onboarding (POST /api/partner/applications and the routes under it, or GraphQL): per address, like sign-in.
  'onboarding.start': capability('onboarding.start', 'partner-ecosystem', perMinute(10), ['Mutation.startPartnerApplication']),
  'onboarding.resume': capability('onboarding.resume', 'partner-ecosystem', perMinute(60), [
    'Query.partnerApplication',
    'Mutation.savePartnerApplicationStep',
    'Mutation.submitPartnerApplication',
  ]),
} as const satisfies Record<string, Capability>;

export type CapabilityId = keyof typeof CAPABILITIES;

const TWIN_FIELDS = Object.values(CAPABILITIES as Record<string, Capability>).flatMap((c) => c.graphql.map((field) => [field, c] as const));
const EXACT_TWINS: ReadonlyMap<string, Capability> = new Map(TWIN_FIELDS.filter(([field]) => !field.endsWith('*')));
const PREFIX_TWINS = TWIN_FIELDS.filter(([field]) => field.endsWith('*')).map(([field, c]) => [field.slice(0, -1), c] as const);

/**
 * The capability a GraphQL field is the twin of: `Mutation.portalLogin`, or a nested one such as
 * `Query.partner.baaSignatures`. An entry ending in `*` names every field that starts with it
 * (`Query.fhir*`); an exact entry wins over a prefix.
 */
export function graphqlTwin(field: string): Capability | undefined {
  return EXACT_TWINS.get(field) ?? PREFIX_TWINS.find(([prefix]) => field.startsWith(prefix))?.[1];
}

/** What a REST route spreads into its spec: the capability it serves, its product and its limit. */
export function capabilityRoute(id: CapabilityId): { capability: CapabilityId; product: Product; rateLimit?: RateLimit } {
  const c: Capability = CAPABILITIES[id];
  return { capability: id, product: c.product, ...(c.limit ? { rateLimit: c.limit } : {}) };
}
