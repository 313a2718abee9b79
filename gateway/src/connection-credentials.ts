import { credentialIdsOf, type Principal, type RevocationList } from '@svc/platform';

/** WebSocket close codes for a connection whose credential stops being valid while it is open. */
export const CREDENTIAL_CLOSE = {
  /** The token, session or OAuth client was revoked (partner.token.revoked / partner.session.revoked). */
  revoked: { code: 4403, reason: 'Forbidden: credential revoked' },
  /** The credential reached its expiry. */
  expired: { code: 4401, reason: 'Unauthorized: credential expired' },
} as const;

/** Longest delay Node's timers take (about 24.8 days); longer expiries re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

type Close = (code: number, reason: string) => void;

interface Watched {
  principal: Principal;
  close: Close;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Long-lived connections and the credential each was opened with. A revocation of that credential
 * closes the connection at once; its expiry closes it at that instant (a timer, not the next event).
 */
export class ConnectionCredentials {
  private readonly byCredential = new Map<string, Set<Watched>>();
  private readonly stopListening: () => void;

  constructor(private readonly revocations: RevocationList) {
    this.stopListening = revocations.onRevoked((id) => {
      for (const watched of [...(this.byCredential.get(id) ?? [])]) this.end(watched, CREDENTIAL_CLOSE.revoked);
    });
  }

  /**
   * Watch one connection; `close` is called at most once. Returns the function to call when the
   * connection ends on its own. A credential already revoked or expired is closed at once.
   */
  watch(principal: Principal, close: Close): () => void {
    const watched: Watched = { principal, close, timer: undefined };
    if (this.revocations.revokes(principal)) {
      close(CREDENTIAL_CLOSE.revoked.code, CREDENTIAL_CLOSE.revoked.reason);
      return () => undefined;
    }
    for (const id of credentialIdsOf(principal)) {
      let set = this.byCredential.get(id);
      if (!set) this.byCredential.set(id, (set = new Set()));
      set.add(watched);
    }
    if (principal.credentialExpiresAt !== undefined) this.armExpiry(watched, principal.credentialExpiresAt);
    return () => this.forget(watched);
  }

  close(): void {
    this.stopListening();
    for (const set of this.byCredential.values()) for (const watched of set) clearTimeout(watched.timer);
    this.byCredential.clear();
  }

  private armExpiry(watched: Watched, expiresAt: number): void {
    const delay = expiresAt - Date.now();
    if (delay <= 0) {
      this.end(watched, CREDENTIAL_CLOSE.expired);
      return;
    }
    watched.timer = setTimeout(() => this.armExpiry(watched, expiresAt), Math.min(delay, MAX_TIMER_MS));
    watched.timer.unref();
  }

  private end(watched: Watched, why: { code: number; reason: string }): void {
    this.forget(watched);
    watched.close(why.code, why.reason);
  }

  private forget(watched: Watched): void {
    clearTimeout(watched.timer);
    watched.timer = undefined;
    for (const id of credentialIdsOf(watched.principal)) {
      const set = this.byCredential.get(id);
      set?.delete(watched);
      if (set?.size === 0) this.byCredential.delete(id);
    }
  }
}
