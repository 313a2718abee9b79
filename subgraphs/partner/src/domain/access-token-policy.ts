/** The documented lifetimes of OAuth access tokens and of their signing keys. */
export const ACCESS_TOKEN_POLICY = {
  /** Access tokens live 15 minutes; clients ask for a new one with their client credentials. */
  lifetimeSeconds: 15 * 60,
  /** The one algorithm access tokens are signed with (ECDSA P-256, RFC 7518 §3.4). */
  algorithm: 'ES256',
  /** Verifiers accept this much clock difference. */
  clockSkewSeconds: 60,
  /** RFC 9068 §2.1: access tokens carry this JOSE `typ`. */
  jwtType: 'at+jwt',
} as const;

/**
 * How long a retired signing key stays in the JWKS: the longest an access token it signed can
 * still be valid, plus the clock skew verifiers allow.
 */
export const RETIRED_KEY_PUBLISH_SECONDS = ACCESS_TOKEN_POLICY.lifetimeSeconds + ACCESS_TOKEN_POLICY.clockSkewSeconds;
