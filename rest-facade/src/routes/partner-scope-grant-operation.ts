import type { GatewayOperation, JsonSchema } from './route.js';
import { BodyReader } from './body-readers.js';
import { snakeKeys } from './snake-case.js';

/**
 * `PUT /cms/partners/{gpid}/scopes` `{ "scopes": [...] }` (operators): replace a partner's grant
 * through `updatePartnerScopeGrant`, the same capability and limit as the GraphQL mutation.
 */
export const updatePartnerScopes: GatewayOperation = {
  document: `mutation UpdatePartnerScopeGrant($partnerGpid: ID!, $scopes: [String!]!) {
    updatePartnerScopeGrant(partnerGpid: $partnerGpid, scopes: $scopes) {
      partner { gpid } grantedScopes previousScopes addedScopes removedScopes updatedAt
      revokedCredentials { credentialId kind exceedingScopes }
    }
  }`,
  variables: ({ params, body }) => {
    const reader = new BodyReader(body);
    const scopes = reader.stringArray('scopes', true);
    reader.done();
    return { partnerGpid: params['gpid'] ?? '', scopes };
  },
  result: (data) => {
    const change = data['updatePartnerScopeGrant'] as { partner: { gpid: string } } & Record<string, unknown>;
    const { partner, ...rest } = change;
    return { partner_gpid: partner.gpid, ...(snakeKeys(rest) as Record<string, unknown>) };
  },
};

const SCOPES: JsonSchema = { type: 'array', items: { type: 'string' } };

export const updatePartnerScopesSchemas = {
  requestBody: {
    type: 'object',
    required: ['scopes'],
    description:
      'The whole new grant, 1 to 50 scopes. Each must be in the scope catalog or narrower than a catalog entry (tefca.xcpd.search under tefca.xcpd.*); `*` and cms.admin cannot be granted. Unknown scopes answer 422 naming each (scopes.<i>).',
    properties: { scopes: { ...SCOPES, minItems: 1, maxItems: 50 } },
  },
  responseBody: {
    type: 'object',
    description:
      'The grant now in force. Active credentials of the partner carrying a scope the new grant does not cover are revoked at once (partner.token.revoked / partner.session.revoked, reason admin_action) and listed here. Sending the grant the partner already has changes nothing: updated_at is null and no event is emitted. Emits partner.scopes.updated.',
    required: ['partner_gpid', 'granted_scopes', 'previous_scopes', 'added_scopes', 'removed_scopes', 'revoked_credentials', 'updated_at'],
    properties: {
      partner_gpid: { type: 'string', pattern: '^CMS-[0-9]{8}$' },
      granted_scopes: SCOPES,
      previous_scopes: SCOPES,
      added_scopes: SCOPES,
      removed_scopes: SCOPES,
      revoked_credentials: {
        type: 'array',
        items: {
          type: 'object',
          required: ['credential_id', 'kind', 'exceeding_scopes'],
          properties: {
            credential_id: { type: 'string', description: 'tok_…, cli_… or ses_…' },
            kind: { type: 'string', enum: ['api_token', 'oauth_client', 'portal_session'] },
            exceeding_scopes: SCOPES,
          },
        },
      },
      updated_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
} satisfies Record<string, JsonSchema>;
