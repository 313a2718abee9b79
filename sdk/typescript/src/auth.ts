import { importJWK, importPKCS8, SignJWT, type CryptoKey, type JWK, type KeyObject } from 'jose';
import { apiErrorOf } from './errors.js';

/** An API token (`svc_…`, from POST /cms/tokens or the portal). */
export interface TokenCredentials {
  token: string;
}

/** An OAuth client registered with a secret (POST /cms/oauth/register). */
export interface ClientSecretCredentials {
  clientId: string;
  clientSecret: string;
  /** How the secret is sent: as registered (`client_secret_basic` by default). */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** Scopes to ask for (default: every scope the client was registered with). */
  scope?: string | readonly string[];
}

/** An OAuth client registered with public keys: private_key_jwt (RFC 7523, SMART Backend Services). */
export interface PrivateKeyJwtCredentials {
  clientId: string;
  /** The private key: a PKCS #8 PEM, a private JWK, or a key object. */
  privateKey: string | JWK | CryptoKey | KeyObject;
  /** The signing algorithm registered with the public key (default ES384). */
  algorithm?: 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512';
  /** The key id (`kid`) registered with the public key. */
  keyId?: string;
  scope?: string | readonly string[];
}

export type Credentials = TokenCredentials | ClientSecretCredentials | PrivateKeyJwtCredentials;

/** Where the SDK gets the bearer token of each request. */
export interface TokenProvider {
  /** A valid access token: cached, refreshed before it expires. */
  token(): Promise<string>;
  /** Forget the cached token (the API refused it): the next call fetches a new one. */
  invalidate(): void;
  /** True when `invalidate` can produce a different token (OAuth), false for a fixed API token. */
  readonly renewable: boolean;
}

export interface OAuthOptions {
  /** The token endpoint (default `${baseUrl}/oauth/token`). */
  tokenUrl: string;
  /** The audience of private_key_jwt assertions (default: the token endpoint). */
  audience?: string;
  /** Refresh this many seconds before expiry (default 60, at most half the token's lifetime). */
  refreshBeforeSeconds?: number;
  fetch: typeof fetch;
  now?: () => number;
}

/** The token provider of `credentials`. */
export function tokenProvider(credentials: Credentials, options: OAuthOptions): TokenProvider {
  if ('token' in credentials) {
    const token = credentials.token;
    return { token: () => Promise.resolve(token), invalidate: () => undefined, renewable: false };
  }
  return new ClientCredentialsTokens(credentials, options);
}

/** OAuth 2.0 client_credentials with one token in flight at a time, cached until shortly before it expires. */
class ClientCredentialsTokens implements TokenProvider {
  readonly renewable = true;
  private cached: { token: string; refreshAt: number } | undefined;
  private inFlight: Promise<string> | undefined;
  private signingKey: Promise<CryptoKey | KeyObject | Uint8Array> | undefined;

  constructor(
    private readonly credentials: ClientSecretCredentials | PrivateKeyJwtCredentials,
    private readonly options: OAuthOptions,
  ) {}

  token(): Promise<string> {
    const now = this.now();
    if (this.cached && now < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    this.inFlight ??= this.fetchToken().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const scope = this.credentials.scope;
    if (scope !== undefined) form.set('scope', typeof scope === 'string' ? scope : scope.join(' '));
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const c = this.credentials;
    if ('clientSecret' in c) {
      if (c.authMethod === 'client_secret_post') {
        form.set('client_id', c.clientId);
        form.set('client_secret', c.clientSecret);
      } else {
        // RFC 6749 §2.3.1: each part form-encoded before Basic encoding.
        headers['authorization'] = `Basic ${btoa(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`)}`;
      }
    } else {
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      form.set('client_assertion', await this.assertion(c));
    }
    const started = this.now();
    const response = await this.options.fetch(this.options.tokenUrl, { method: 'POST', headers, body: form.toString() });
    if (!response.ok) throw await apiErrorOf(response, 'POST');
    const body = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new Error('The token endpoint answered without an access_token.');
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300;
    const early = Math.min(this.options.refreshBeforeSeconds ?? 60, lifetime / 2);
    this.cached = { token: body.access_token, refreshAt: started + (lifetime - early) * 1000 };
    return body.access_token;
  }

  /** A client assertion for one token request: signed, short-lived (2 minutes), with a fresh jti. */
  private async assertion(c: PrivateKeyJwtCredentials): Promise<string> {
    const alg = c.algorithm ?? 'ES384';
    this.signingKey ??= typeof c.privateKey === 'string' ? importPKCS8(c.privateKey, alg) : isJwk(c.privateKey) ? importJWK(c.privateKey, alg) : Promise.resolve(c.privateKey);
    const nowSeconds = Math.floor(this.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg, ...(c.keyId ? { kid: c.keyId } : {}), typ: 'JWT' })
      .setIssuer(c.clientId)
      .setSubject(c.clientId)
      .setAudience(this.options.audience ?? this.options.tokenUrl)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 120)
      .setJti(crypto.randomUUID())
      .sign(await this.signingKey);
  }
}

function isJwk(key: unknown): key is JWK {
  return typeof key === 'object' && key !== null && 'kty' in key && typeof (key as { kty: unknown }).kty === 'string';
}
