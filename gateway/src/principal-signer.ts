import { signPrincipal, SIGNED_PRINCIPAL_LIFETIME_SECONDS, type Principal } from '@svc/platform';

/** How long one signed principal is reused: it still has at least (lifetime − this) to live when sent. */
const REUSE_MS = 5_000;
/** Distinct principals remembered; past this the memory starts over (a burst of new credentials). */
const MAX_ENTRIES = 10_000;

interface Signed {
  token: Promise<string>;
  /** Reuse until then (ms since the epoch). */
  until: number;
}

/**
 * Signs the principal sent to our subgraphs once per credential and a few seconds, instead of once
 * per subgraph fetch: an HMAC JWT per fetch showed up in the gateway's CPU profile. Reusing it is
 * safe because the token says exactly the same (same claims) and every subgraph checks it against
 * its revocation list on every request, so a revocation still takes effect at once; a reused token
 * is at most REUSE_MS older, and never reused within 5 s of its expiry (a credential about to
 * expire caps the token's `exp`, see signPrincipal).
 */
export class PrincipalSigner {
  private readonly cache = new Map<string, Signed>();

  constructor(private readonly secret: string) {}

  sign(principal: Principal): Promise<string> {
    const now = Date.now();
    const key = JSON.stringify([principal.kind, principal.partnerGpid, principal.clientId, principal.tokenId, principal.credentialExpiresAt, principal.scopes, principal.clientAddress, principal.patient]);
    const hit = this.cache.get(key);
    if (hit && now < hit.until) return hit.token;
    const token = signPrincipal(principal, this.secret);
    const expiresAt = Math.min(now + SIGNED_PRINCIPAL_LIFETIME_SECONDS * 1000, principal.credentialExpiresAt ?? Number.POSITIVE_INFINITY);
    const until = Math.min(now + REUSE_MS, expiresAt - REUSE_MS);
    if (until > now) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(key, { token, until });
      token.catch(() => this.cache.delete(key));
    }
    return token;
  }
}
