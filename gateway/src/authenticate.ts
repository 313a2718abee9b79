import { ANONYMOUS, DomainError, INTERNAL_SCOPE, sha256Hex, type EventBus, type Logger, type Principal } from '@svc/platform';
import type { Gateway } from './gateway.js';

/** The gateway's own identity when it asks a subgraph something for itself. */
export const INTERNAL_PRINCIPAL: Principal = Object.freeze({ kind: 'service', partnerGpid: null, scopes: Object.freeze([INTERNAL_SCOPE]) as readonly string[] });

const CREDENTIAL_QUERY = `query Credential($secretHash: String!) {
  credential(secretHash: $secretHash) { tokenId partnerGpid principalKind scopes expiresAt revoked }
}`;

interface CredentialRow {
  tokenId: string;
  partnerGpid: string;
  principalKind: 'partner' | 'service';
  scopes: string[];
  expiresAt: string | null;
  revoked: boolean;
}

interface CacheEntry {
  principal: Principal;
  until: number;
}

const INVALID = () => new DomainError('INVALID_TOKEN', 'The bearer token is invalid, expired or revoked.');

/**
 * Authenticates once per request for the whole platform. A presented secret is hashed and looked
 * up in the partner subgraph; the answer is cached briefly, and a partner.token.revoked event
 * evicts it in every gateway at once (the bus fans out to all processes).
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly hashesByTokenId = new Map<string, string>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly gateway: Pick<Gateway, 'callSubgraph'>,
    bus: EventBus,
    private readonly logger: Logger,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {
    this.unsubscribe = bus.subscribe((event) => {
      if (event.type !== 'partner.token.revoked') return;
      const tokenId = event.data['token_id'];
      if (typeof tokenId === 'string') this.evict(tokenId);
    });
  }

  /** The principal for an Authorization header value; anonymous when there is none. */
  async authenticate(authorization: string | undefined, requestId: string): Promise<Principal> {
    if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new DomainError('UNAUTHENTICATED', 'Authorization must be "Bearer <token>".');
    const secretHash = sha256Hex(match[1]);
    const cached = this.cache.get(secretHash);
    if (cached && cached.until > Date.now()) return cached.principal;
    if (cached) this.cache.delete(secretHash);

    const response = await this.gateway
      .callSubgraph('partner', { query: CREDENTIAL_QUERY, variables: { secretHash } }, { principal: INTERNAL_PRINCIPAL, requestId })
      .catch((err: unknown) => ({ errors: [{ message: err instanceof Error ? err.message : String(err) }], data: null }));
    if (response.errors?.length) {
      this.logger.error({ errors: response.errors, requestId }, 'credential lookup failed');
      throw new DomainError('UPSTREAM_UNAVAILABLE', 'Authentication is unavailable right now; retry shortly.');
    }
    const row = (response.data?.['credential'] ?? null) as CredentialRow | null;
    const expiresAt = row?.expiresAt ? Date.parse(row.expiresAt) : Infinity;
    if (!row || row.revoked || expiresAt <= Date.now()) throw INVALID();

    const principal: Principal = Object.freeze({ kind: row.principalKind, partnerGpid: row.partnerGpid, tokenId: row.tokenId, scopes: Object.freeze([...row.scopes]) });
    if (row.principalKind === 'service') this.logger.warn({ tokenId: row.tokenId, requestId }, 'operator credential used');
    this.remember(secretHash, principal, Math.min(Date.now() + this.ttlMs, expiresAt));
    return principal;
  }

  /** Forget a revoked token at once. */
  evict(tokenId: string): void {
    const hash = this.hashesByTokenId.get(tokenId);
    if (hash) this.cache.delete(hash);
    this.hashesByTokenId.delete(tokenId);
  }

  close(): void {
    this.unsubscribe();
    this.cache.clear();
    this.hashesByTokenId.clear();
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
