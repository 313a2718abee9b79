import type { SubgraphServices, SubgraphBuilder as Builder } from '@svc/platform';
import { ACCESS_TOKEN_POLICY } from '../domain/access-token-policy.js';
import type { IssuedAccessToken } from '../domain/access-token.js';
import { authorizationServerMetadata, OAUTH_PATHS, type AuthorizationServerMetadata } from '../domain/authorization-server.js';
import { exchangeClientCredentials } from '../domain/token-endpoint.js';
import type { PublishedJwk, SigningKeyRing } from '../domain/signing-key-ring.js';

/** The authorization server: token issuance, its public keys, its metadata, key rotation. */
export function defineOAuthServer(builder: Builder, services: SubgraphServices, keys: SigningKeyRing) {
  const publicUrl = services.runtime.config.publicUrl;
  const urls = { issuer: publicUrl, tokenEndpoint: `${publicUrl}${OAUTH_PATHS.token}` };

  const AccessToken = builder.objectRef<IssuedAccessToken>('AccessTokenResponse').implement({
    description: `An RFC 9068 JWT access token, valid ${ACCESS_TOKEN_POLICY.lifetimeSeconds / 60} minutes.`,
    fields: (t) => ({
      accessToken: t.exposeString('accessToken'),
      tokenType: t.exposeString('tokenType'),
      expiresIn: t.exposeInt('expiresIn', { description: 'Seconds.' }),
      scope: t.exposeString('scope', { description: 'The granted scopes, space-separated.' }),
      patient: t.exposeString('patient', { nullable: true, description: "SMART launch context: the FHIR Patient id the token is bound to (the client's registered patient); null without one." }),
    }),
  });

  const Jwk = builder.objectRef<PublishedJwk>('Jwk').implement({
    description: 'A public signing key (RFC 7517). EC keys have crv, x, y; RSA keys have n, e.',
    fields: (t) => ({
      kid: t.exposeString('kid'),
      kty: t.string({ resolve: (k) => String(k.kty) }),
      alg: t.exposeString('alg'),
      use: t.exposeString('use'),
      crv: t.string({ nullable: true, resolve: (k) => k.crv ?? null }),
      x: t.string({ nullable: true, resolve: (k) => k.x ?? null }),
      y: t.string({ nullable: true, resolve: (k) => k.y ?? null }),
      n: t.string({ nullable: true, resolve: (k) => k.n ?? null }),
      e: t.string({ nullable: true, resolve: (k) => k.e ?? null }),
    }),
  });

  const Metadata = builder.objectRef<AuthorizationServerMetadata>('OAuthServerMetadata').implement({
    description: 'Authorization server metadata (RFC 8414).',
    fields: (t) => ({
      issuer: t.exposeString('issuer'),
      tokenEndpoint: t.exposeString('token_endpoint'),
      jwksUri: t.exposeString('jwks_uri'),
      registrationEndpoint: t.exposeString('registration_endpoint'),
      grantTypesSupported: t.exposeStringList('grant_types_supported'),
      responseTypesSupported: t.exposeStringList('response_types_supported'),
      tokenEndpointAuthMethodsSupported: t.exposeStringList('token_endpoint_auth_methods_supported'),
      tokenEndpointAuthSigningAlgValuesSupported: t.exposeStringList('token_endpoint_auth_signing_alg_values_supported'),
      scopesSupported: t.exposeStringList('scopes_supported'),
      accessTokenSigningAlgValuesSupported: t.exposeStringList('access_token_signing_alg_values_supported'),
    }),
  });

  const SigningKeyInfo = builder.objectRef<{ kid: string; alg: string; createdAt: Date }>('SigningKey').implement({
    description: 'An access-token signing key (its public half is in the JWKS; the private half never leaves the partner subgraph).',
    fields: (t) => ({
      kid: t.exposeString('kid'),
      alg: t.exposeString('alg'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
    }),
  });

  const AccessTokenRequestInput = builder.inputType('AccessTokenRequestInput', {
    description: 'A token request (RFC 6749 §4.4.2) with its client authentication, as the token endpoint received it.',
    fields: (t) => ({
      grantType: t.string(),
      scope: t.string(),
      clientId: t.string(),
      clientSecret: t.string(),
      clientAssertionType: t.string(),
      clientAssertion: t.string(),
      basicClientId: t.string({ description: 'From "Authorization: Basic", form-decoded.' }),
      basicClientSecret: t.string({ description: 'From "Authorization: Basic", form-decoded.' }),
    }),
  });

  builder.queryFields((t) => ({
    oauthJwks: t.field({
      type: [Jwk],
      description: 'The public keys access tokens are signed with: the current key and retired keys whose tokens may still be valid.',
      resolve: async (_root, _args, ctx) => (await keys.published(ctx.em, new Date())).map((k) => k.jwk),
    }),
    oauthServerMetadata: t.field({
      type: Metadata,
      description: 'Where the token endpoint and keys are, and what they support.',
      resolve: () => authorizationServerMetadata(publicUrl),
    }),
  }));

  builder.mutationFields((t) => ({
    issueAccessToken: t.field({
      type: AccessToken,
      description: 'The client_credentials grant. Failures carry extensions.oauth_error (RFC 6749 §5.2).',
      args: { input: t.arg({ type: AccessTokenRequestInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        exchangeClientCredentials(
          ctx.em,
          keys,
          {
            grantType: input.grantType ?? null,
            scope: input.scope ?? null,
            clientId: input.clientId ?? null,
            clientSecret: input.clientSecret ?? null,
            clientAssertionType: input.clientAssertionType ?? null,
            clientAssertion: input.clientAssertion ?? null,
            basic: input.basicClientId != null ? { clientId: input.basicClientId, clientSecret: input.basicClientSecret ?? '' } : null,
          },
          urls,
          new Date(),
        ),
    }),
    rotateSigningKey: t.field({
      type: SigningKeyInfo,
      description: 'Make a new current access-token signing key (operators). Earlier keys stay in the JWKS until every token they signed has expired.',
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, _args, ctx) => {
        const now = new Date();
        const key = await keys.rotate(ctx.em, now);
        return { kid: key.kid, alg: key.alg, createdAt: now };
      },
    }),
  }));
}
