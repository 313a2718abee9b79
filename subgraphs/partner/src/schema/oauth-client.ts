import type { SubgraphServices, SubgraphBuilder as Builder } from '@svc/platform';
import type { OAuthClient } from '../entities/oauth-client.js';
import { CLIENT_GRANT_TYPES, MAX_ACTIVE_CLIENTS_PER_PARTNER, registerOAuthClient, revokeOAuthClient, TOKEN_ENDPOINT_AUTH_METHODS } from '../domain/oauth-client-registration.js';
import { MAX_PREVIOUS_SECRET_GRACE_SECONDS, rotateOAuthClientSecret, type RotatedClientSecret } from '../domain/oauth-client-secret-rotation.js';
import { publishRevocation } from './publish.js';
import type { TokenRevocationRef } from './token-revocation.js';

/** OAuth clients: registration (RFC 7591 semantics) and revocation. */
export function defineOAuthClient(builder: Builder, services: SubgraphServices, revocationRef: TokenRevocationRef) {
  const ref = builder.objectRef<OAuthClient>('OAuthClient').implement({
    description: 'An OAuth 2.0 client_credentials client of a partner. Its secret, if it has one, is shown once at registration.',
    fields: (t) => ({
      clientId: t.exposeID('id', { description: 'cli_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      clientName: t.exposeString('clientName'),
      scopes: t.exposeStringList('scopes', { description: 'The most an access token of this client may carry.' }),
      tokenEndpointAuthMethod: t.exposeString('tokenEndpointAuthMethod', { description: TOKEN_ENDPOINT_AUTH_METHODS.join(', ') }),
      grantTypes: t.stringList({ resolve: () => [...CLIENT_GRANT_TYPES] }),
      jwks: t.field({ type: 'JSONObject', nullable: true, description: 'Registered public keys (private_key_jwt).', resolve: (c) => c.jwks as Record<string, unknown> | null }),
      patient: t.exposeString('patient', { nullable: true, description: "SMART patient launch context: the FHIR Patient id the client's tokens are bound to; null for none." }),
      createdAt: t.expose('createdAt', { type: 'DateTime', description: 'RFC 7591 client_id_issued_at.' }),
      secretRotatedAt: t.expose('secretRotatedAt', { type: 'DateTime', nullable: true, description: 'When the secret was last replaced; null if never.' }),
      previousSecretExpiresAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'Until when the secret replaced by the last rotation is still accepted; null when none is.',
        resolve: (c) => (c.previousSecretExpiresAt && c.previousSecretExpiresAt > new Date() ? c.previousSecretExpiresAt : null),
      }),
      revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    }),
  });

  const Registration = builder.objectRef<{ client: OAuthClient; clientSecret: string | null }>('OAuthClientRegistration').implement({
    description: 'A registered client with its secret. The secret is shown here once and cannot be retrieved again.',
    fields: (t) => ({
      client: t.field({ type: ref, resolve: (r) => r.client }),
      clientSecret: t.exposeString('clientSecret', { nullable: true, description: 'svc_cs_… for client_secret_basic and client_secret_post; null for private_key_jwt. Never expires.' }),
    }),
  });

  const RegisterOAuthClientInput = builder.inputType('RegisterOAuthClientInput', {
    fields: (t) => ({
      partnerGpid: t.id({ description: "Operators only: the partner to register for (default: the caller's)." }),
      clientName: t.string({ required: true }),
      scope: t.string({ required: true, description: "Space-separated scopes, within the partner's grant." }),
      tokenEndpointAuthMethod: t.string({ description: `${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}; default client_secret_basic.` }),
      grantTypes: t.stringList({ description: 'If given, ["client_credentials"].' }),
      jwks: t.field({ type: 'JSONObject', description: 'Public JWK Set; required for private_key_jwt.' }),
      jwksUri: t.string({ description: 'Not supported (register jwks inline); present so the refusal is explicit.' }),
      patient: t.string({ description: "SMART patient launch context: bind every token of the client to this FHIR Patient id; the FHIR server then narrows the client's access to that patient's compartment, whatever its scopes." }),
    }),
  });

  const Rotation = builder.objectRef<RotatedClientSecret>('OAuthClientSecretRotation').implement({
    description: 'A client with its new secret. The secret is shown here once and cannot be retrieved again.',
    fields: (t) => ({
      client: t.field({ type: ref, resolve: (r) => r.client }),
      clientSecret: t.exposeString('clientSecret', { description: 'svc_cs_…, the new secret.' }),
      previousSecretExpiresAt: t.expose('previousSecretExpiresAt', { type: 'DateTime', nullable: true, description: 'Until when the replaced secret is still accepted; null: it stopped at once.' }),
    }),
  });

  builder.mutationFields((t) => ({
    rotateOAuthClientSecret: t.field({
      type: Rotation,
      description: `Give a secret client a new secret. The old one stops at once, or after previousSecretValidForSeconds (at most ${MAX_PREVIOUS_SECRET_GRACE_SECONDS}) so running instances can switch over. Access tokens already issued keep their expiry; revoke the client to end them at once. CONFLICT for a revoked or private_key_jwt client.`,
      args: {
        clientId: t.arg.id({ required: true, description: 'cli_…' }),
        previousSecretValidForSeconds: t.arg.int({ description: `0 (default) to ${MAX_PREVIOUS_SECRET_GRACE_SECONDS}.` }),
      },
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: (_root, { clientId, previousSecretValidForSeconds }, ctx) =>
        ctx.em.transactional((tx) => rotateOAuthClientSecret(tx, ctx.principal, String(clientId), previousSecretValidForSeconds, new Date())),
    }),
    registerOAuthClient: t.field({
      type: Registration,
      description: `Register a client_credentials client (at most ${MAX_ACTIVE_CLIENTS_PER_PARTNER} active per partner).`,
      args: { input: t.arg({ type: RegisterOAuthClientInput, required: true }) },
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: (_root, { input }, ctx) =>
        ctx.em.transactional((tx) =>
          registerOAuthClient(
            tx,
            ctx.principal,
            {
              partnerGpid: input.partnerGpid === null || input.partnerGpid === undefined ? null : String(input.partnerGpid),
              clientName: input.clientName,
              scope: input.scope,
              tokenEndpointAuthMethod: input.tokenEndpointAuthMethod ?? null,
              grantTypes: input.grantTypes ?? null,
              jwks: input.jwks ?? null,
              jwksUri: input.jwksUri ?? null,
              patient: input.patient ?? null,
            },
            new Date(),
          ),
        ),
    }),
    revokeOAuthClient: t.field({
      type: revocationRef,
      description: 'Revoke an OAuth client: no new tokens, and its access tokens are refused at once. Emits partner.token.revoked (token_id = the client id).',
      args: {
        clientId: t.arg.id({ required: true, description: 'cli_…' }),
        reason: t.arg.string({ description: 'partner_request (default), compromised, or admin_action (operators).' }),
      },
      authScopes: { scope: 'cms.tokens.manage' },
      resolve: async (_root, { clientId, reason }, ctx) => {
        const outcome = await ctx.em.transactional((tx) => revokeOAuthClient(tx, ctx.principal, String(clientId), reason, new Date()));
        await publishRevocation(services, ctx, outcome.eventId);
        return outcome.revocation;
      },
    }),
  }));

  return ref;
}

export type OAuthClientRef = ReturnType<typeof defineOAuthClient>;
