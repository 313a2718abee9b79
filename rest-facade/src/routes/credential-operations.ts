import { DomainError, isId, validationError } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput } from './route.js';
import { BodyReader, singleQueryValue } from './body-readers.js';
import { snakeKeys } from './snake-case.js';
import { NO_STORE } from './no-store.js';

/**
 * The credential routes of the partner ecosystem (sign-in, API tokens, OAuth): how each maps HTTP
 * to its one gateway operation, and the JSON Schemas OpenAPI shows for it.
 */


const TOKEN_FIELDS = 'tokenId partnerGpid name scopes createdAt expiresAt lastUsedAt lastUsedRoute environment';
const CLIENT_FIELDS = 'clientId partnerGpid clientName scopes tokenEndpointAuthMethod grantTypes jwks patient createdAt';
const REVOCATION_FIELDS = 'tokenId partnerGpid revokedAt reason';

const TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };
const PARTNER_GPID: JsonSchema = { type: 'string', pattern: '^CMS-[0-9]{8}$', description: 'CMS GPID.' };
const SCOPE_LIST: JsonSchema = { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 50 };

// ---------------------------------------------------------------------------------------------
// POST /cms/partner-login

/** `{ email, password }` → a portal session bearer (8 hours). */
export const partnerLogin: GatewayOperation = {
  document: `mutation PortalLogin($email: String!, $password: String!, $clientAddress: String) {
    portalLogin(email: $email, password: $password, clientAddress: $clientAddress) { accessToken tokenType expiresIn expiresAt partnerGpid sessionId }
  }`,
  // The subgraph counts failures per client address only when the facade vouches for the address.
  asFacade: true,
  variables: ({ body, clientIp }) => {
    const reader = new BodyReader(body);
    const email = reader.string('email', true);
    const password = reader.string('password', true);
    reader.done();
    return { email, password, clientAddress: clientIp ?? null };
  },
  result: (data) => data['portalLogin'],
  respond: (data) => {
    const s = data['portalLogin'] as Record<string, unknown>;
    return {
      body: { access_token: s['accessToken'], token_type: s['tokenType'], expires_in: s['expiresIn'], expires_at: s['expiresAt'], partner_gpid: s['partnerGpid'], session_id: s['sessionId'] },
      headers: NO_STORE,
    };
  },
};

export const partnerLoginSchemas = {
  requestBody: {
    type: 'object',
    required: ['email', 'password'],
    properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 1, maxLength: 128, writeOnly: true } },
  },
  responseBody: {
    type: 'object',
    description:
      'A portal session. Unknown e-mail and wrong password both answer 401 with the same body; 5 failures for one e-mail in 15 minutes lock it for 15 minutes (423 ACCOUNT_LOCKED with Retry-After); 20 failures from one address in 15 minutes refuse that address for 15 minutes (429).',
    required: ['access_token', 'token_type', 'expires_in', 'expires_at', 'partner_gpid', 'session_id'],
    properties: {
      access_token: { type: 'string', description: 'svc_ses_…: send as "Authorization: Bearer <access_token>". Shown once.' },
      token_type: { type: 'string', const: 'Bearer' },
      expires_in: { type: 'integer', description: 'Seconds (8 hours at sign-in).' },
      expires_at: TIMESTAMP,
      partner_gpid: PARTNER_GPID,
      session_id: { type: 'string', description: 'ses_…; the GraphQL mutation logout(sessionId) ends it.' },
    },
  },
} satisfies Record<string, JsonSchema>;

// ---------------------------------------------------------------------------------------------
// POST /cms/tokens

/** `{ name, scopes, expires_at? | expires_in_days?, partner_gpid? }` → 201 with the secret, once. */
export const createToken: GatewayOperation = {
  document: `mutation CreateApiToken($input: CreateApiTokenInput!) { createApiToken(input: $input) { secret token { ${TOKEN_FIELDS} } } }`,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const input = {
      name: reader.string('name', true),
      scopes: reader.stringArray('scopes', true),
      expiresAt: reader.dateTime('expires_at') ?? null,
      expiresInDays: reader.integer('expires_in_days') ?? null,
      partnerGpid: reader.string('partner_gpid') ?? null,
    };
    reader.done();
    return { input };
  },
  result: (data) => data['createApiToken'],
  respond: (data) => {
    const created = data['createApiToken'] as { secret: string; token: Record<string, unknown> };
    const token = snakeKeys(created.token) as Record<string, unknown>;
    return { body: { token_id: token['token_id'], secret: created.secret, ...token }, headers: NO_STORE };
  },
};

const TOKEN_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['token_id', 'partner_gpid', 'name', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'last_used_route', 'environment'],
  properties: {
    token_id: { type: 'string', pattern: '^tok_[0-9a-z]{26}$' },
    partner_gpid: PARTNER_GPID,
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    created_at: TIMESTAMP,
    expires_at: { ...TIMESTAMP, type: ['string', 'null'] },
    last_used_at: { ...TIMESTAMP, type: ['string', 'null'], description: 'When the token last authenticated a request (null: never); recorded at most about once a minute per token.' },
    last_used_route: { type: ['string', 'null'], description: 'The method and route template of that request, e.g. "GET /cms/tokens".' },
    environment: { type: 'string', enum: ['sandbox', 'production'], description: 'The environment of the service that issued the token; it authenticates only there.' },
  },
};

export const createTokenSchemas = {
  requestBody: {
    type: 'object',
    required: ['name', 'scopes'],
    description:
      "Scopes must be held by the partner (403 lists the ones that are not) and, when the caller is itself an API token or OAuth token, carried by the caller. At most 25 active tokens per partner (409). Lifetime: 90 days by default, 365 at most.",
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      scopes: SCOPE_LIST,
      expires_at: { ...TIMESTAMP, description: 'At most 365 days ahead. Not with expires_in_days.' },
      expires_in_days: { type: 'integer', minimum: 1, maximum: 365, description: 'Default 90. Not with expires_at.' },
      partner_gpid: { ...PARTNER_GPID, description: "Operators only: create the token for this partner (default: the caller's)." },
    },
  },
  responseBody: {
    ...TOKEN_SCHEMA,
    required: [...(TOKEN_SCHEMA['required'] as string[]), 'secret'],
    properties: { ...(TOKEN_SCHEMA['properties'] as Record<string, JsonSchema>), secret: { type: 'string', description: 'svc_pat_…: shown in this answer only. Send as "Authorization: Bearer <secret>".' } },
  },
} satisfies Record<string, JsonSchema>;

export const listTokensSchemas = {
  responseBody: { type: 'object', required: ['tokens'], properties: { tokens: { type: 'array', items: TOKEN_SCHEMA } } },
} satisfies Record<string, JsonSchema>;

// ---------------------------------------------------------------------------------------------
// DELETE /cms/tokens

/** The credential a DELETE names: `?token_id=` or a JSON body `{ token_id, reason? }` (either, not conflicting). */
function revocationTarget({ query, body }: RouteInput): { id: string; reason: string | null } {
  const fromQuery = singleQueryValue(query, 'token_id');
  const reader = new BodyReader(body, { allowEmpty: true });
  const fromBody = reader.string('token_id');
  const reason = reader.string('reason') ?? singleQueryValue(query, 'reason') ?? null;
  reader.done();
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody) {
    throw validationError([{ field: 'token_id', message: 'the query and the body name different credentials' }]);
  }
  const id = fromQuery ?? fromBody;
  if (id === undefined) throw validationError([{ field: 'token_id', message: 'is required: ?token_id=tok_… (or cli_…), or a JSON body { "token_id": … }' }]);
  if (!isId('tok', id) && !isId('cli', id)) throw validationError([{ field: 'token_id', message: 'must be an API token id (tok_…) or an OAuth client id (cli_…)' }]);
  return { id, reason };
}

/** Revoke an API token (`tok_…`) or an OAuth client (`cli_…`); both emit partner.token.revoked. */
const REVOKE_CLIENT_DOC = `mutation RevokeOAuthClient($id: ID!, $reason: String) { revocation: revokeOAuthClient(clientId: $id, reason: $reason) { ${REVOCATION_FIELDS} } }`;
const REVOKE_TOKEN_DOC = `mutation RevokeApiToken($id: ID!, $reason: String) { revocation: revokeApiToken(tokenId: $id, reason: $reason) { ${REVOCATION_FIELDS} } }`;

export const revokeToken: GatewayOperation = {
  document: (_principal, input) =>
    isId('cli', singleQueryValue(input.query, 'token_id') ?? (input.body as { token_id?: unknown } | undefined)?.token_id) ? REVOKE_CLIENT_DOC : REVOKE_TOKEN_DOC,
  documents: [REVOKE_CLIENT_DOC, REVOKE_TOKEN_DOC],
  variables: (input) => revocationTarget(input),
  result: (data) => snakeKeys(data['revocation']),
};

export const revokeTokenSchemas = {
  queryParameters: {
    token_id: { schema: { type: 'string', pattern: '^(tok|cli)_[0-9a-z]{26}$' }, description: 'The API token (tok_…) or OAuth client (cli_…) to revoke; or send it as token_id in a JSON body.' },
    reason: { schema: { type: 'string', enum: ['partner_request', 'compromised', 'admin_action'] }, description: 'Default partner_request (admin_action for operators acting on another partner); admin_action is for operators.' },
  },
  requestBody: {
    type: 'object',
    description: 'Optional: the same fields as the query parameters.',
    properties: { token_id: { type: 'string' }, reason: { type: 'string', enum: ['partner_request', 'compromised', 'admin_action'] } },
  },
  responseBody: {
    type: 'object',
    description: 'The revocation, as partner.token.revoked delivers it. Revoking again answers the first revocation unchanged.',
    required: ['token_id', 'partner_gpid', 'revoked_at', 'reason'],
    properties: { token_id: { type: 'string' }, partner_gpid: PARTNER_GPID, revoked_at: TIMESTAMP, reason: { type: 'string' } },
  },
};

// ---------------------------------------------------------------------------------------------
// POST /cms/oauth/register

/** RFC 7591 client registration request → response (a client_credentials client). */
export const registerClient: GatewayOperation = {
  document: `mutation RegisterOAuthClient($input: RegisterOAuthClientInput!) { registerOAuthClient(input: $input) { clientSecret client { ${CLIENT_FIELDS} } } }`,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const input = {
      clientName: reader.string('client_name', true),
      scope: reader.string('scope', true),
      tokenEndpointAuthMethod: reader.string('token_endpoint_auth_method') ?? null,
      grantTypes: reader.stringArray('grant_types') ?? null,
      jwks: reader.object('jwks') ?? null,
      jwksUri: reader.string('jwks_uri') ?? null,
      partnerGpid: reader.string('partner_gpid') ?? null,
      patient: reader.string('patient') ?? null,
    };
    const responseTypes = reader.stringArray('response_types');
    if (responseTypes !== undefined && responseTypes.length > 0) reader.fail('response_types', 'must be empty: client_credentials clients use no authorization endpoint');
    try {
      reader.done();
    } catch (err) {
      // RFC 7591 §3.2.2 clients look for `error`; problem+json readers for `code`. Give both.
      if (err instanceof DomainError) throw new DomainError(err.code, err.message, { fieldErrors: err.fieldErrors, details: { error: 'invalid_client_metadata', error_description: err.message } });
      throw err;
    }
    return { input };
  },
  result: (data) => data['registerOAuthClient'],
  respond: (data) => {
    const { clientSecret, client } = data['registerOAuthClient'] as { clientSecret: string | null; client: Record<string, unknown> };
    const body: Record<string, unknown> = {
      client_id: client['clientId'],
      ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 }),
      client_id_issued_at: Math.floor(Date.parse(String(client['createdAt'])) / 1000),
      client_name: client['clientName'],
      scope: (client['scopes'] as string[]).join(' '),
      grant_types: client['grantTypes'],
      response_types: [],
      token_endpoint_auth_method: client['tokenEndpointAuthMethod'],
      ...(client['jwks'] ? { jwks: client['jwks'] } : {}),
      ...(client['patient'] ? { patient: client['patient'] } : {}),
      partner_gpid: client['partnerGpid'],
    };
    return { body, headers: NO_STORE };
  },
};

export const registerClientSchemas = {
  requestBody: {
    type: 'object',
    required: ['client_name', 'scope'],
    description:
      'RFC 7591 client metadata for a client_credentials client. Scopes follow the API-token rule (held by the partner, 403 otherwise); at most 10 active clients per partner (409). Unknown metadata is ignored; bad metadata is a 422 problem that also carries error=invalid_client_metadata.',
    properties: {
      client_name: { type: 'string', minLength: 1, maxLength: 100 },
      scope: { type: 'string', description: 'Space-separated scopes the client may request.' },
      token_endpoint_auth_method: { type: 'string', enum: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'], default: 'client_secret_basic' },
      grant_types: { type: 'array', items: { type: 'string', const: 'client_credentials' } },
      response_types: { type: 'array', maxItems: 0 },
      jwks: { type: 'object', description: 'Public JWK Set (EC P-256/384/521 or RSA ≥ 2048 bits, 1 to 5 keys); required for private_key_jwt.', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } } },
      jwks_uri: { type: 'string', description: 'Not supported: register jwks inline.' },
      partner_gpid: { ...PARTNER_GPID, description: "Operators only: register for this partner (default: the caller's)." },
      patient: { type: 'string', pattern: '^[A-Za-z0-9\\-.]{1,64}$', description: "SMART patient launch context: bind every token of the client to this FHIR Patient id. The FHIR server then narrows all of the client's access to that patient's compartment, whatever its scopes; the token response names it in `patient`." },
    },
  },
  responseBody: {
    type: 'object',
    description: 'RFC 7591 §3.2.1 client information response.',
    required: ['client_id', 'client_id_issued_at', 'client_name', 'scope', 'grant_types', 'token_endpoint_auth_method', 'partner_gpid'],
    properties: {
      client_id: { type: 'string', pattern: '^cli_[0-9a-z]{26}$' },
      client_secret: { type: 'string', description: 'svc_cs_…: secret methods only, shown in this answer only.' },
      client_secret_expires_at: { type: 'integer', const: 0, description: 'The secret does not expire (revoke the client to end it).' },
      client_id_issued_at: { type: 'integer', description: 'Unix epoch seconds.' },
      client_name: { type: 'string' },
      scope: { type: 'string' },
      grant_types: { type: 'array', items: { type: 'string' } },
      response_types: { type: 'array', maxItems: 0 },
      token_endpoint_auth_method: { type: 'string' },
      jwks: { type: 'object' },
      patient: { type: 'string', description: 'The FHIR Patient id of the client\'s patient context, when it has one.' },
      partner_gpid: PARTNER_GPID,
    },
  },
} satisfies Record<string, JsonSchema>;

// ---------------------------------------------------------------------------------------------
// POST /oauth/token

const FORM = 'application/x-www-form-urlencoded';
const TOKEN_FORM_FIELDS = ['grant_type', 'scope', 'client_id', 'client_secret', 'client_assertion_type', 'client_assertion'] as const;

function invalidRequest(description: string): DomainError {
  return new DomainError('BAD_REQUEST', description, { details: { oauth_error: 'invalid_request' } });
}

/** RFC 6749 §2.3.1: Basic credentials are the form-encoded client id and secret. */
function decodeFormComponent(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function basicCredentials(authorization: string | string[] | undefined): { basicClientId: string; basicClientSecret: string } | null {
  if (authorization === undefined) return null;
  const header = Array.isArray(authorization) ? authorization.join(',') : authorization;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  const invalid = () => new DomainError('UNAUTHENTICATED', 'The Authorization header must be "Basic base64(client_id:client_secret)".', { details: { oauth_error: 'invalid_client' } });
  if (!match?.[1]) throw invalid();
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw invalid();
  try {
    return { basicClientId: decodeFormComponent(decoded.slice(0, colon)), basicClientSecret: decodeFormComponent(decoded.slice(colon + 1)) };
  } catch {
    throw invalid();
  }
}

/** The client_credentials grant (RFC 6749 §4.4) with client_secret_basic, client_secret_post or private_key_jwt. */
export const tokenExchange: GatewayOperation = {
  document: 'mutation IssueAccessToken($input: AccessTokenRequestInput!) { issueAccessToken(input: $input) { accessToken tokenType expiresIn scope patient } }',
  variables: ({ body, headers }) => {
    const contentType = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== FORM) throw invalidRequest(`The token request must be ${FORM} (RFC 6749 §4.4.2).`);
    const form = (body ?? {}) as Record<string, unknown>;
    const input: Record<string, string | null> = {};
    for (const field of TOKEN_FORM_FIELDS) {
      const value = form[field];
      if (value !== undefined && typeof value !== 'string') throw invalidRequest(`${field} must be given once.`);
      input[field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = value === undefined || value === '' ? null : value;
    }
    return { input: { ...input, ...basicCredentials(headers['authorization']) } };
  },
  result: (data) => data['issueAccessToken'],
  respond: (data) => {
    const t = data['issueAccessToken'] as Record<string, unknown>;
    // SMART App Launch: a token with a patient context names the patient beside the access token.
    return { body: { access_token: t['accessToken'], token_type: t['tokenType'], expires_in: t['expiresIn'], scope: t['scope'], ...(t['patient'] ? { patient: t['patient'] } : {}) }, headers: NO_STORE };
  },
};

export const tokenExchangeSchemas = {
  requestBody: {
    type: 'object',
    description:
      'Form-encoded (application/x-www-form-urlencoded). Authenticate the client with exactly one of: HTTP Basic (client_secret_basic), client_id + client_secret (client_secret_post), or client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer + client_assertion (private_key_jwt: a JWT with iss = sub = client_id, aud = the token endpoint URL, exp at most 5 minutes ahead and a jti used once). Errors follow RFC 6749 §5.2: { error, error_description }.',
    required: ['grant_type'],
    properties: {
      grant_type: { type: 'string', const: 'client_credentials' },
      scope: { type: 'string', description: "Space-separated, within the client's scopes; default all of them." },
      client_id: { type: 'string' },
      client_secret: { type: 'string' },
      client_assertion_type: { type: 'string', const: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' },
      client_assertion: { type: 'string' },
    },
  },
  responseBody: {
    type: 'object',
    description: 'RFC 6749 §5.1. The access token is an RFC 9068 JWT (ES256, kid in the header, keys at /.well-known/jwks.json) valid 15 minutes.',
    required: ['access_token', 'token_type', 'expires_in', 'scope'],
    properties: {
      access_token: { type: 'string' },
      token_type: { type: 'string', const: 'Bearer' },
      expires_in: { type: 'integer', const: 900 },
      scope: { type: 'string' },
      patient: { type: 'string', description: 'SMART launch context: the FHIR Patient id the token is bound to (clients registered with a patient only).' },
    },
  },
} satisfies Record<string, JsonSchema>;

// ---------------------------------------------------------------------------------------------
// GET /.well-known/jwks.json and /.well-known/oauth-authorization-server

/** The public keys access tokens are signed with (RFC 7517 JWK Set). */
export const jwks: GatewayOperation = {
  document: '{ oauthJwks { kid kty alg use crv x y n e } }',
  result: (data) => data['oauthJwks'],
  respond: (data) => ({
    body: { keys: (data['oauthJwks'] as Record<string, unknown>[]).map((k) => Object.fromEntries(Object.entries(k).filter(([, v]) => v !== null))) },
    headers: { 'cache-control': 'public, max-age=300' },
  }),
};

export const jwksSchemas = {
  responseBody: {
    type: 'object',
    description: 'The current signing key and retired keys whose tokens may still be valid (up to 16 minutes after a rotation). Refetch on an unknown kid.',
    required: ['keys'],
    properties: {
      keys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kid', 'kty', 'alg', 'use'],
          properties: { kid: { type: 'string' }, kty: { type: 'string' }, alg: { type: 'string' }, use: { type: 'string', const: 'sig' }, crv: { type: 'string' }, x: { type: 'string' }, y: { type: 'string' }, n: { type: 'string' }, e: { type: 'string' } },
        },
      },
    },
  },
} satisfies Record<string, JsonSchema>;

/** Authorization server metadata (RFC 8414). */
export const authorizationServerMetadata: GatewayOperation = {
  document:
    '{ oauthServerMetadata { issuer tokenEndpoint jwksUri registrationEndpoint grantTypesSupported responseTypesSupported tokenEndpointAuthMethodsSupported tokenEndpointAuthSigningAlgValuesSupported scopesSupported } }',
  result: (data) => snakeKeys(data['oauthServerMetadata']),
  respond: (data) => ({ body: snakeKeys(data['oauthServerMetadata']), headers: { 'cache-control': 'public, max-age=3600' } }),
};

export const authorizationServerMetadataSchemas = {
  responseBody: {
    type: 'object',
    description: 'RFC 8414 §2 metadata of the client_credentials authorization server.',
    required: ['issuer', 'token_endpoint', 'jwks_uri', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported'],
    properties: {
      issuer: { type: 'string', format: 'uri' },
      token_endpoint: { type: 'string', format: 'uri' },
      jwks_uri: { type: 'string', format: 'uri' },
      registration_endpoint: { type: 'string', format: 'uri' },
      grant_types_supported: { type: 'array', items: { type: 'string' } },
      response_types_supported: { type: 'array', items: { type: 'string' } },
      token_endpoint_auth_methods_supported: { type: 'array', items: { type: 'string' } },
      token_endpoint_auth_signing_alg_values_supported: { type: 'array', items: { type: 'string' } },
      scopes_supported: { type: 'array', items: { type: 'string' } },
    },
  },
} satisfies Record<string, JsonSchema>;
