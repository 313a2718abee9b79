import { decodeProtectedHeader, importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';
import { ANONYMOUS, DomainError, INTERNAL_SCOPE, isId, parseScopeString, RevocationList, sha256Hex, type EventBus, type GraphQLRequest, type Logger, type Principal } from '@svc/platform';
import type { Gateway } from './gateway.js';

/** The gateway's own identity when it asks a subgraph something for itself. */
export const INTERNAL_PRINCIPAL: Principal = Object.freeze({ kind: 'service', partnerGpid: null, scopes: Object.freeze([INTERNAL_SCOPE]) as readonly string[] });

const CREDENTIAL_QUERY = `query Credential($secretHash: String!) {
  credential(secretHash: $secretHash) { tokenId partnerGpid principalKind scopes expiresAt revoked }
}`;
const CLIENT_STATUS_QUERY = 'query ClientStatus($clientId: ID!) { oauthClientStatus(clientId: $clientId) { clientId partnerGpid revoked } }';
const SIGNING_KEYS_QUERY = '{ oauthServerMetadata { issuer } oauthJwks { kid kty alg use crv x y n e } }';

/** After this event the signing keys are refetched before the next access token is verified. */
const KEY_ROTATED_EVENT = 'partner.signing_key.rotated';
/**
 * After this event the partner's portal sessions are looked up again: their scopes follow the
 * partner's grant, so a grant changed by an operator reaches an open session on its next request.
 */
const SCOPES_UPDATED_EVENT = 'partner.scopes.updated';

/** RFC 9068 access tokens: what the gateway accepts, and the clock difference it tolerates. */
const ACCESS_TOKEN_TYPE = 'at+jwt';
const ACCESS_TOKEN_ALGORITHMS = ['ES256'];
const CLOCK_SKEW_SECONDS = 60;
/**
 * A `kid` already looked for in vain is looked for again no more often than this, so a forged kid
 * cannot flood the subgraph; a rotation also announces itself (partner.signing_key.rotated).
 */
const KEY_REFRESH_MIN_INTERVAL_MS = 1_000;
/** Keys are refetched this often anyway, so a retired key is eventually forgotten. */
const KEY_SET_TTL_MS = 10 * 60_000;

/** The FHIR id grammar, which the `patient` claim of an access token must follow. */
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

interface CredentialRow {
  tokenId: string;
  partnerGpid: string;
  principalKind: 'partner' | 'service' | 'portal';
  scopes: string[];
  expiresAt: string | null;
  revoked: boolean;
}

interface CacheEntry {
  principal: Principal;
  until: number;
}

interface KeySet {
  issuer: string;
  keys: Map<string, CryptoKey>;
  fetchedAt: number;
}

const INVALID = () => new DomainError('INVALID_TOKEN', 'The bearer token is invalid, expired or revoked.');

/**
 * Authenticates once per request for the whole platform, from three kinds of bearer credential:
 *
 * - opaque secrets (API tokens `svc_pat_…`, portal sessions `svc_ses_…`, the bootstrap operator):
 *   hashed and looked up in the partner subgraph;
 * - OAuth access tokens (RFC 9068 JWTs): verified here against the partner subgraph's published
 *   keys (fetched once, refetched on an unknown `kid`), then the client is checked not revoked.
 *
 * Every answer is cached briefly (never beyond the credential's expiry), and partner.token.revoked /
 * partner.session.revoked evict it in every gateway at once (the bus fans out to all processes).
 * Every answer, cached or fresh, is also checked against the process's {@link RevocationList}, so a
 * lookup that was under way when the event arrived cannot cache the credential back to life, and a
 * revoked OAuth client's unexpired tokens are refused from the event on.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly hashesByTokenId = new Map<string, string>();
  private readonly clients = new Map<string, { active: boolean; until: number }>();
  private keySet: KeySet | undefined;
  private keyFetch: Promise<KeySet> | undefined;
  private readonly missedKids = new Set<string>();
  private readonly unsubscribe: () => void;
  private readonly stopEvicting: () => void;
  /** The revocations this authenticator honours: the process's shared list, or its own. */
  readonly revocations: RevocationList;
  private readonly ownsRevocations: boolean;

  constructor(
    private readonly gateway: Pick<Gateway, 'callSubgraph'>,
    bus: EventBus,
    private readonly logger: Logger,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
    revocations?: RevocationList,
  ) {
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type === KEY_ROTATED_EVENT) this.keySet = undefined;
      if (event.type === SCOPES_UPDATED_EVENT && event.partner_gpid) this.evictSessionsOf(event.partner_gpid);
    });
    this.ownsRevocations = revocations === undefined;
    this.revocations = revocations ?? new RevocationList().follow(bus);
    this.stopEvicting = this.revocations.onRevoked((id) => this.evict(id));
  }

  /** The principal for an Authorization header value; anonymous when there is none. */
  async authenticate(authorization: string | undefined, requestId: string): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new DomainError('UNAUTHENTICATED', 'Authorization must be "Bearer <token>".');
    const secret = match[1];
    const secretHash = sha256Hex(secret);
    const cached = this.cache.get(secretHash);
    if (cached && cached.until > Date.now()) {
      if (this.revocations.revokes(cached.principal)) {
        this.cache.delete(secretHash);
        throw INVALID();
      }
      if (cached.principal.clientId !== undefined && !(await this.clientActive(cached.principal.clientId, requestId))) throw INVALID();
      return cached.principal;
    }
    if (cached) this.cache.delete(secretHash);

    const accessToken = JWT_SHAPE.test(secret) ? accessTokenHeader(secret) : null;
    const { principal, until } = accessToken ? await this.verifyAccessToken(secret, accessToken.kid, requestId) : await this.lookUpSecret(secretHash, requestId);
    // The revocation event may have arrived while the lookup was under way: never cache past it.
    if (this.revocations.revokes(principal)) throw INVALID();
    this.remember(secretHash, principal, until);
    return principal;
  }

  /**
   * The principal only when the credential is provably valid without a database query: an opaque
   * secret in the positive cache, or an access token whose signature verifies against the keys
   * already loaded (they are fetched when none are, never for an unknown kid; its client's status
   * may be looked up once: the signature proves the token real). Null for anything else; a forged
   * or expired access token is INVALID_TOKEN. Used while the caller's address is over its
   * failed-authentication budget.
   */
  async authenticateWithoutLookup(authorization: string | undefined, requestId: string): Promise<Principal | null> {
    if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) return null;
    const secret = match[1];
    const secretHash = sha256Hex(secret);
    const cached = this.cache.get(secretHash);
    if (cached && cached.until > Date.now()) return this.authenticate(authorization, requestId);
    const accessToken = JWT_SHAPE.test(secret) ? accessTokenHeader(secret) : null;
    if (!accessToken) return null;
    // The published keys are fetched when none are loaded or they are stale (at most once per
    // refresh, whoever asks), never in search of an unknown kid.
    const loaded = this.keySet && Date.now() - this.keySet.fetchedAt <= KEY_SET_TTL_MS;
    if (loaded && !this.keySet!.keys.has(accessToken.kid)) return null;
    const { principal, until } = await this.verifyAccessToken(secret, accessToken.kid, requestId);
    this.remember(secretHash, principal, until);
    return principal;
  }

  /** Forget a revoked credential at once: an API token or session by its id, an OAuth client by its cli_ id. */
  evict(tokenId: string): void {
    if (tokenId.startsWith('cli_')) {
      this.clients.set(tokenId, { active: false, until: Date.now() + this.ttlMs });
      return;
    }
    const hash = this.hashesByTokenId.get(tokenId);
    if (hash) this.cache.delete(hash);
    this.hashesByTokenId.delete(tokenId);
  }

  /** Forget every cached portal session of a partner (its grant changed; the next lookup reads the new scopes). */
  evictSessionsOf(partnerGpid: string): void {
    for (const [hash, entry] of this.cache) {
      if (entry.principal.kind !== 'portal' || entry.principal.partnerGpid !== partnerGpid) continue;
      this.cache.delete(hash);
      if (entry.principal.tokenId) this.hashesByTokenId.delete(entry.principal.tokenId);
    }
  }

  close(): void {
    this.unsubscribe();
    this.stopEvicting();
    if (this.ownsRevocations) this.revocations.close();
    this.cache.clear();
    this.hashesByTokenId.clear();
    this.clients.clear();
  }

  private async lookUpSecret(secretHash: string, requestId: string): Promise<CacheEntry> {
    const data = await this.internalQuery({ query: CREDENTIAL_QUERY, variables: { secretHash } }, requestId);
    const row = (data['credential'] ?? null) as CredentialRow | null;
    const expiresAt = row?.expiresAt ? Date.parse(row.expiresAt) : Infinity;
    if (!row || row.revoked || expiresAt <= Date.now()) throw INVALID();
    const principal: Principal = Object.freeze({
      kind: row.principalKind,
      partnerGpid: row.partnerGpid,
      tokenId: row.tokenId,
      scopes: Object.freeze([...row.scopes]),
      ...(Number.isFinite(expiresAt) ? { credentialExpiresAt: expiresAt } : {}),
    });
    if (row.principalKind === 'service') this.logger.warn({ tokenId: row.tokenId, requestId }, 'operator credential used');
    return { principal, until: Math.min(Date.now() + this.ttlMs, expiresAt) };
  }

  /** Verify an access token locally: signature by a published key, RFC 9068 type, issuer, audience, lifetime; then its client. */
  private async verifyAccessToken(token: string, kid: string, requestId: string): Promise<CacheEntry> {
    const keys = await this.keysWith(kid, requestId);
    const key = keys.keys.get(kid);
    if (!key) throw INVALID();
    let payload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        issuer: keys.issuer,
        audience: keys.issuer,
        typ: ACCESS_TOKEN_TYPE,
        algorithms: ACCESS_TOKEN_ALGORITHMS,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
      }));
    } catch {
      throw INVALID();
    }
    const clientId = payload['client_id'];
    const partnerGpid = payload['partner_gpid'];
    const scope = payload['scope'];
    // SMART launch context: a client registered for one patient gets the `patient` claim.
    const patient = payload['patient'];
    if (typeof clientId !== 'string' || typeof partnerGpid !== 'string' || (scope !== undefined && typeof scope !== 'string')) throw INVALID();
    if (patient !== undefined && (typeof patient !== 'string' || !FHIR_ID.test(patient))) throw INVALID();
    if (!(await this.clientActive(clientId, requestId))) throw INVALID();
    const principal: Principal = Object.freeze({
      kind: 'partner',
      partnerGpid,
      clientId,
      scopes: Object.freeze(parseScopeString(scope ?? '')),
      credentialExpiresAt: payload.exp! * 1000,
      ...(patient === undefined ? {} : { patient }),
    });
    return { principal, until: Math.min(Date.now() + this.ttlMs, payload.exp! * 1000) };
  }

  /** Whether an OAuth client's tokens may still be honoured: cached, and set to revoked by the revocation event. */
  private async clientActive(clientId: string, requestId: string): Promise<boolean> {
    if (this.revocations.has(clientId)) return false;
    const known = this.clients.get(clientId);
    if (known && known.until > Date.now()) return known.active;
    const data = await this.internalQuery({ query: CLIENT_STATUS_QUERY, variables: { clientId } }, requestId);
    const row = data['oauthClientStatus'] as { revoked: boolean } | null;
    // A revocation that arrived while the status was being asked for wins over the answer.
    const active = row !== null && row !== undefined && !row.revoked && !this.revocations.has(clientId);
    if (this.clients.size >= this.maxEntries) this.clients.delete(this.clients.keys().next().value!);
    this.clients.set(clientId, { active, until: Date.now() + this.ttlMs });
    return active;
  }

  /**
   * The key set, refetched when it is stale or lacks `kid`. A well-formed kid not looked for before
   * may belong to a key rotated in a moment ago, so it is looked for at once; a kid already looked
   * for in vain is looked for again at most once a second. Concurrent requests share one fetch.
   */
  private async keysWith(kid: string, requestId: string): Promise<KeySet> {
    const now = Date.now();
    const current = this.keySet;
    const stale = !current || now - current.fetchedAt > KEY_SET_TTL_MS;
    if (!stale && current.keys.has(kid)) return current;
    const worthALook = isId('sig', kid) && (!this.missedKids.has(kid) || now - (current?.fetchedAt ?? 0) > KEY_REFRESH_MIN_INTERVAL_MS);
    if (stale || worthALook) {
      this.keyFetch ??= this.fetchKeys(requestId).finally(() => {
        this.keyFetch = undefined;
      });
      this.keySet = await this.keyFetch;
      if (!this.keySet.keys.has(kid)) {
        if (this.missedKids.size >= 1_000) this.missedKids.clear();
        this.missedKids.add(kid);
      }
    }
    return this.keySet!;
  }

  private async fetchKeys(requestId: string): Promise<KeySet> {
    const data = await this.internalQuery({ query: SIGNING_KEYS_QUERY }, requestId);
    const issuer = (data['oauthServerMetadata'] as { issuer: string }).issuer;
    const keys = new Map<string, CryptoKey>();
    for (const raw of (data['oauthJwks'] ?? []) as Record<string, string | null>[]) {
      const jwk = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null)) as unknown as JWK & { kid: string; alg: string };
      try {
        keys.set(jwk.kid, (await importJWK(jwk, jwk.alg)) as CryptoKey);
      } catch (err) {
        this.logger.error({ err, kid: jwk.kid, requestId }, 'a published signing key could not be imported');
      }
    }
    return { issuer, keys, fetchedAt: Date.now() };
  }

  private async internalQuery(request: GraphQLRequest, requestId: string): Promise<Record<string, unknown>> {
    const response = await this.gateway
      .callSubgraph('partner', request, { principal: INTERNAL_PRINCIPAL, requestId })
      .catch((err: unknown) => ({ errors: [{ message: err instanceof Error ? err.message : String(err) }], data: null }));
    if (response.errors?.length) {
      // An unreachable partner subgraph is logged once per outage by the dependency tracker.
      const outage = response.errors.every((e) => (e as { extensions?: Record<string, unknown> }).extensions?.['code'] === 'UPSTREAM_UNAVAILABLE');
      if (!outage) this.logger.error({ errors: response.errors, requestId }, 'credential lookup failed');
      throw new DomainError('UPSTREAM_UNAVAILABLE', 'Authentication is unavailable right now; retry shortly.');
    }
    return response.data ?? {};
  }

  private remember(secretHash: string, principal: Principal, until: number): void {
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(secretHash, { principal, until });
    if (principal.tokenId) this.hashesByTokenId.set(principal.tokenId, secretHash);
  }
}

/** The `kid` of a JWT that declares itself an access token (`typ: at+jwt`); null for anything else. */
function accessTokenHeader(token: string): { kid: string } | null {
  try {
    const header = decodeProtectedHeader(token);
    return header.typ === ACCESS_TOKEN_TYPE && typeof header.kid === 'string' ? { kid: header.kid } : null;
  } catch {
    return null;
  }
}
