import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** How a client authenticates at the token endpoint (RFC 7591 `token_endpoint_auth_method`). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';

/** A public JWK Set as registered by a private_key_jwt client. */
export interface PublicJwks {
  keys: Record<string, unknown>[];
}

/** An OAuth 2.0 client_credentials client of a partner. */
export interface OAuthClient {
  /** cli_… */
  id: string;
  partnerGpid: string;
  clientName: string;
  /** The most a token issued to this client may carry. */
  scopes: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** SHA-256 of the client secret (secret methods only). */
  secretHash: string | null;
  /** SHA-256 of the secret before the last rotation, while its grace period lasts. */
  previousSecretHash: string | null;
  /** When the previous secret stops being accepted; null when there is none. */
  previousSecretExpiresAt: Date | null;
  secretRotatedAt: Date | null;
  /** The client's public keys (private_key_jwt only). */
  jwks: PublicJwks | null;
  /**
   * SMART patient launch context: the FHIR Patient id every access token of this client is bound to
   * (the `patient` claim and token response field); null for a client without a patient context.
   */
  patient: string | null;
  createdBy: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export const OAuthClientEntity = new EntitySchema<OAuthClient>({
  name: 'OAuthClient',
  tableName: 'partner_oauth_clients',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    clientName: { type: 'string' },
    scopes: { type: 'json' },
    tokenEndpointAuthMethod: { type: 'string' },
    secretHash: { type: 'string', nullable: true, unique: true },
    previousSecretHash: { type: 'string', nullable: true },
    previousSecretExpiresAt: { type: DateTimeType, nullable: true },
    secretRotatedAt: { type: DateTimeType, nullable: true },
    jwks: { type: 'json', nullable: true },
    patient: { type: 'string', nullable: true },
    createdBy: { type: 'string', nullable: true },
    createdAt: { type: DateTimeType },
    revokedAt: { type: DateTimeType, nullable: true },
    revokedReason: { type: 'string', nullable: true },
  },
});
