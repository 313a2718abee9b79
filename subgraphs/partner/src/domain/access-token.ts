import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { OAuthClient } from '../entities/oauth-client.js';
import { ACCESS_TOKEN_POLICY } from './access-token-policy.js';
import type { ActiveSigningKey } from './signing-key-ring.js';

/** What the token endpoint answers on success (RFC 6749 §5.1). */
export interface IssuedAccessToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  /** The granted scopes, space-separated. */
  scope: string;
  /** SMART launch context: the FHIR Patient id the token is bound to (null: none). */
  patient: string | null;
}

/**
 * Sign an RFC 9068 JWT access token for a client_credentials client. `sub` is the client itself
 * (no user is involved); `partner_gpid` names the partner it acts for; `aud` is the API the token
 * is for, which is the platform's public base URL, like `iss`. A client registered with a patient
 * context adds the SMART `patient` claim (the FHIR Patient id).
 */
export async function signAccessToken(
  key: ActiveSigningKey,
  claims: { issuer: string; audience: string; client: OAuthClient; scopes: readonly string[] },
  now: Date,
): Promise<IssuedAccessToken> {
  const iat = Math.floor(now.getTime() / 1000);
  const scope = claims.scopes.join(' ');
  const patient = claims.client.patient ?? null;
  const accessToken = await new SignJWT({ client_id: claims.client.id, scope, partner_gpid: claims.client.partnerGpid, ...(patient === null ? {} : { patient }) })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_POLICY.jwtType })
    .setIssuer(claims.issuer)
    .setSubject(claims.client.id)
    .setAudience(claims.audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_POLICY.lifetimeSeconds)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(key.privateKey);
  return { accessToken, tokenType: 'Bearer', expiresIn: ACCESS_TOKEN_POLICY.lifetimeSeconds, scope, patient };
}
