import type { EventBus } from '../events/bus.js';
import type { EventEnvelope } from '../events/envelope.js';
import type { Principal } from './principal.js';

/**
 * The events that revoke a credential: partner.token.revoked names an API token (`tok_…`) or an
 * OAuth client (`cli_…`) as `token_id`; partner.session.revoked names a portal session as `session_id`.
 */
export const CREDENTIAL_REVOCATION_EVENTS: ReadonlySet<string> = new Set(['partner.token.revoked', 'partner.session.revoked']);

/**
 * How long a revoked credential id is remembered. It must outlast everything that can still present
 * the credential without asking the partner subgraph: a signed principal (seconds), a gateway's
 * positive cache entry (a minute) and a cached OAuth client status (a minute). Afterwards the
 * partner subgraph, which holds the revocation for good, answers every fresh lookup.
 */
export const REVOCATION_RETENTION_MS = 5 * 60_000;

/** The credential id a revocation event names (token, session or OAuth client), or null. */
export function revokedCredentialOf(event: EventEnvelope): string | null {
  if (!CREDENTIAL_REVOCATION_EVENTS.has(event.type)) return null;
  const id = event.data['token_id'] ?? event.data['session_id'];
  return typeof id === 'string' && id.length > 0 ? id : null;
}

/** The ids a principal's credential is known by: its API token or session, and its OAuth client. */
export function credentialIdsOf(principal: Principal): string[] {
  const ids: string[] = [];
  if (principal.tokenId) ids.push(principal.tokenId);
  if (principal.clientId) ids.push(principal.clientId);
  return ids;
}

/**
 * The credentials revoked lately, as every process learns them from the bus. One per process: the
 * gateway's authenticator, its internal listener and WebSocket connections, and every subgraph that
 * accepts a signed principal read the same list, so a revocation takes effect everywhere at the
 * moment its event arrives, and a lookup that was already under way when it arrived cannot bring
 * the credential back.
 */
export class RevocationList {
  /** id → when it may be forgotten; insertion order is revocation order. */
  private readonly revoked = new Map<string, number>();
  private readonly listeners = new Set<(id: string) => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly retentionMs = REVOCATION_RETENTION_MS,
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Learn revocations from the bus from now on; returns `this`. */
  follow(bus: EventBus): this {
    this.unsubscribe?.();
    this.unsubscribe = bus.subscribe((event) => {
      const id = revokedCredentialOf(event);
      if (id !== null) this.revoke(id);
    });
    return this;
  }

  /** Record a revocation and tell every listener (idempotent: a repeat only refreshes it). */
  revoke(id: string): void {
    this.forgetExpired();
    this.revoked.delete(id);
    this.revoked.set(id, this.now() + this.retentionMs);
    while (this.revoked.size > this.maxEntries) this.revoked.delete(this.revoked.keys().next().value!);
    for (const listener of this.listeners) {
      try {
        listener(id);
      } catch {
        // One listener's failure must not keep the revocation from the others.
      }
    }
  }

  has(id: string): boolean {
    const until = this.revoked.get(id);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.revoked.delete(id);
    return false;
  }

  /** Whether the credential behind a principal (its token, session or OAuth client) was revoked. */
  revokes(principal: Principal): boolean {
    return credentialIdsOf(principal).some((id) => this.has(id));
  }

  /** Be told of every revocation; returns the function that stops it. */
  onRevoked(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.listeners.clear();
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [id, until] of this.revoked) {
      if (until > now) break;
      this.revoked.delete(id);
    }
  }
}
