import type { SubgraphBuilder as Builder } from '@svc/platform';
import { credentials, type CredentialRecord } from '../entities/credentials.js';
import { oauthClients } from '../entities/oauth-clients.js';
import type { OAuthClient } from '../entities/oauth-client.js';

/** The gateway's internal lookups: an opaque secret's credential, and an OAuth client's standing. */
export function defineCredentialLookups(builder: Builder) {
  const Credential = builder.objectRef<CredentialRecord>('Credential').implement({
    description: 'What the gateway needs to authenticate a presented secret. Internal.',
    fields: (t) => ({
      tokenId: t.exposeID('id', { description: 'tok_… (API token) or ses_… (portal session).' }),
      partnerGpid: t.exposeID('partnerGpid'),
      principalKind: t.exposeString('principalKind', { description: 'partner, service or portal.' }),
      scopes: t.exposeStringList('scopes'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      revoked: t.exposeBoolean('revoked'),
    }),
  });

  const ClientStatus = builder.objectRef<OAuthClient>('OAuthClientStatus').implement({
    description: 'Whether access tokens of an OAuth client may still be honoured. Internal.',
    fields: (t) => ({
      clientId: t.exposeID('id'),
      partnerGpid: t.exposeID('partnerGpid'),
      revoked: t.boolean({ resolve: (c) => c.revokedAt !== null }),
    }),
  });

  builder.queryFields((t) => ({
    credential: t.field({
      type: Credential,
      nullable: true,
      inaccessible: true,
      description: 'Look an API token or portal session up by the SHA-256 of its secret (gateway only; hidden from the supergraph).',
      args: { secretHash: t.arg.string({ required: true }) },
      authScopes: { internal: true },
      resolve: (_root, { secretHash }, ctx) => credentials.bySecretHash(ctx.em, secretHash),
    }),
    oauthClientStatus: t.field({
      type: ClientStatus,
      nullable: true,
      inaccessible: true,
      description: 'The standing of an OAuth client, checked for every access token it presents (gateway only).',
      args: { clientId: t.arg.id({ required: true }) },
      authScopes: { internal: true },
      resolve: (_root, { clientId }, ctx) => oauthClients.byId(ctx.em, String(clientId)),
    }),
  }));
}
