import { SCOPE_CATALOG } from '@svc/platform';
import { ACCESS_TOKEN_POLICY } from './access-token-policy.js';
import { CLIENT_ASSERTION_ALGORITHMS } from './client-jwks.js';
import { TOKEN_ENDPOINT_AUTH_METHODS } from './oauth-client-registration.js';
import { LAUNCH_PATIENT, SUPPORTED_GRANT_TYPES } from './token-endpoint.js';

/** The paths of the OAuth endpoints, relative to the public base URL. */
export const OAUTH_PATHS = {
  token: '/oauth/token',
  registration: '/cms/oauth/register',
  jwks: '/.well-known/jwks.json',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

/** Authorization server metadata (RFC 8414 §2), in its own snake_case names. */
export interface AuthorizationServerMetadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  registration_endpoint: string;
  grant_types_supported: string[];
  response_types_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  token_endpoint_auth_signing_alg_values_supported: string[];
  scopes_supported: string[];
  /** RFC 9068 access tokens are signed with this (not an RFC 8414 field; widely read anyway). */
  access_token_signing_alg_values_supported: string[];
}

/** The metadata of the authorization server at `publicUrl` (its issuer identifier). */
export function authorizationServerMetadata(publicUrl: string): AuthorizationServerMetadata {
  return {
    issuer: publicUrl,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    jwks_uri: `${publicUrl}${OAUTH_PATHS.jwks}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.registration}`,
    grant_types_supported: [...SUPPORTED_GRANT_TYPES],
    // No authorization endpoint: client_credentials needs none.
    response_types_supported: [],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_ASSERTION_ALGORITHMS],
    // Everything a partner can be granted; cms.admin is for operators and never requested by clients.
    // plus SMART's launch/patient, granted to clients registered with a patient context.
    scopes_supported: [...SCOPE_CATALOG.map((s) => s.scope).filter((s) => s !== 'cms.admin'), LAUNCH_PATIENT],
    access_token_signing_alg_values_supported: [ACCESS_TOKEN_POLICY.algorithm],
  };
}
