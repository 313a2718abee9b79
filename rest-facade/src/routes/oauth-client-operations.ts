import { isPartnerGpid, validationError } from '@svc/platform';
import type { GatewayOperation, JsonSchema } from './route.js';
import { BodyReader, singleQueryValue } from './body-readers.js';
import { NO_STORE } from './no-store.js';

/**
 * The OAuth client routes beside registration: listing a partner's clients and giving one a new
 * secret, each one gateway operation with the JSON Schemas OpenAPI shows for it.
 */

const CLIENT_FIELDS = 'clientId partnerGpid clientName scopes tokenEndpointAuthMethod grantTypes patient createdAt secretRotatedAt previousSecretExpiresAt';

interface ClientRow {
  clientId: string;
  partnerGpid: string;
  clientName: string;
  scopes: string[];
  tokenEndpointAuthMethod: string;
  grantTypes: string[];
  patient: string | null;
  createdAt: string;
  secretRotatedAt: string | null;
  previousSecretExpiresAt: string | null;
}

/** A client in RFC 7591 client-information terms, plus our rotation fields. */
function clientInformation(c: ClientRow) {
  return {
    client_id: c.clientId,
    client_id_issued_at: Math.floor(Date.parse(c.createdAt) / 1000),
    client_name: c.clientName,
    scope: c.scopes.join(' '),
    grant_types: c.grantTypes,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    ...(c.patient ? { patient: c.patient } : {}),
    partner_gpid: c.partnerGpid,
    secret_rotated_at: c.secretRotatedAt,
    previous_secret_expires_at: c.previousSecretExpiresAt,
  };
}

const CLIENT_INFORMATION: JsonSchema = {
  type: 'object',
  required: ['client_id', 'client_id_issued_at', 'client_name', 'scope', 'grant_types', 'token_endpoint_auth_method', 'partner_gpid', 'secret_rotated_at', 'previous_secret_expires_at'],
  properties: {
    client_id: { type: 'string', pattern: '^cli_[0-9a-z]{26}$' },
    client_id_issued_at: { type: 'integer', description: 'Unix epoch seconds.' },
    client_name: { type: 'string' },
    scope: { type: 'string' },
    grant_types: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_method: { type: 'string' },
    patient: { type: 'string' },
    partner_gpid: { type: 'string', pattern: '^CMS-[0-9]{8}$' },
    secret_rotated_at: { type: ['string', 'null'], format: 'date-time', description: 'When the secret was last replaced; null if never.' },
    previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time', description: 'Until when the secret replaced by the last rotation is still accepted; null when none is.' },
  },
};

// ---------------------------------------------------------------------------------------------
// GET /cms/oauth/clients

/** The caller's active clients (operators: `?partner_gpid=`), newest first; never their secrets. */
export const listClients: GatewayOperation = {
  document: `query ListOAuthClients($gpid: ID!) { partner(gpid: $gpid) { oauthClients { ${CLIENT_FIELDS} } } }`,
  variables: ({ query, principal }) => {
    const unknown = Object.keys(query).filter((k) => k !== 'partner_gpid');
    if (unknown.length > 0) throw validationError(unknown.map((field) => ({ field, message: 'is not a parameter of this route (known: partner_gpid)' })));
    const gpid = singleQueryValue(query, 'partner_gpid') ?? principal.partnerGpid;
    if (gpid === null || !isPartnerGpid(gpid)) throw validationError([{ field: 'partner_gpid', message: 'must be a CMS GPID (CMS- and 8 digits)' }]);
    return { gpid };
  },
  // Another partner's GPID reads like one nobody has: an empty list.
  result: (data) => ({ clients: ((data['partner'] as { oauthClients: ClientRow[] } | null)?.oauthClients ?? []).map(clientInformation) }),
};

export const listClientsSchemas = {
  queryParameters: {
    partner_gpid: { schema: { type: 'string', pattern: '^CMS-[0-9]{8}$' }, description: "Operators: the partner whose clients to list (default: the caller's)." },
  },
  responseBody: { type: 'object', required: ['clients'], properties: { clients: { type: 'array', items: CLIENT_INFORMATION } } },
} satisfies Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// POST /cms/oauth/clients/{client_id}/secret

/** A new secret for a client; the old one ends at once or after the grace period asked for. */
export const rotateClientSecret: GatewayOperation = {
  document: `mutation RotateOAuthClientSecret($clientId: ID!, $grace: Int) {
    rotateOAuthClientSecret(clientId: $clientId, previousSecretValidForSeconds: $grace) { clientSecret previousSecretExpiresAt client { ${CLIENT_FIELDS} } }
  }`,
  variables: ({ params, body }) => {
    const reader = new BodyReader(body, { allowEmpty: true });
    const grace = reader.integer('previous_secret_valid_for_seconds') ?? null;
    reader.done();
    return { clientId: params['client_id'] ?? '', grace };
  },
  result: (data) => data['rotateOAuthClientSecret'],
  respond: (data) => {
    const { clientSecret, client } = data['rotateOAuthClientSecret'] as { clientSecret: string; client: ClientRow };
    return { body: { ...clientInformation(client), client_secret: clientSecret, client_secret_expires_at: 0 }, headers: NO_STORE };
  },
};

export const rotateClientSecretSchemas = {
  pathParameters: { client_id: { schema: { type: 'string', pattern: '^cli_[0-9a-z]{26}$' }, description: 'The client (cli_…).' } },
  requestBody: {
    type: 'object',
    description: 'Optional. Without it the old secret stops at once.',
    properties: {
      previous_secret_valid_for_seconds: {
        type: 'integer',
        minimum: 0,
        maximum: 86400,
        default: 0,
        description: 'How long the replaced secret stays accepted, so running instances can switch over (at most a day). A secret replaced earlier and still in its grace period ends now.',
      },
    },
  },
  responseBody: {
    ...CLIENT_INFORMATION,
    description:
      "The client with its new secret, shown in this answer only. Access tokens already issued keep their expiry: revoke the client (DELETE /cms/tokens?token_id=cli_…) to end them at once. 409 for a revoked client or a private_key_jwt client, which has no secret; 404 for a client the caller cannot see.",
    required: [...(CLIENT_INFORMATION['required'] as string[]), 'client_secret', 'client_secret_expires_at'],
    properties: {
      ...(CLIENT_INFORMATION['properties'] as Record<string, JsonSchema>),
      client_secret: { type: 'string', description: 'svc_cs_…, the new secret.' },
      client_secret_expires_at: { type: 'integer', const: 0, description: 'The secret does not expire.' },
    },
  },
} satisfies Record<string, unknown>;
