import type { EntityManager } from '@mikro-orm/core';
import { actsFor, DomainError, isValidScope, newId, newSecret, parseScopeString, sha256Hex, type Principal } from '@svc/platform';
import { OAuthClientEntity, type OAuthClient, type PublicJwks, type TokenEndpointAuthMethod } from '../entities/oauth-client.js';
import { oauthClients } from '../entities/oauth-clients.js';
import { readCredentialName } from './api-token-input.js';
import { readClientJwks } from './client-jwks.js';
import { creatorOf, credentialOwner } from './credential-owner.js';
import { readRevocationReason, recordTokenRevoked } from './credential-revocation.js';
import type { RevocationOutcome } from './api-token-issuance.js';
import { invalidClientMetadata } from './oauth-errors.js';
import { assertDelegable, MAX_SCOPES_PER_CREDENTIAL, RESERVED_SCOPES } from './partner-scopes.js';

/** The token endpoint authentication methods a client may register (RFC 7591 §2). */
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** The one grant type clients are registered for. */
export const CLIENT_GRANT_TYPES = ['client_credentials'] as const;

/** Active (unrevoked) OAuth clients one partner may hold; one more is a 409. */
export const MAX_ACTIVE_CLIENTS_PER_PARTNER = 10;

/** A registration request, in RFC 7591 terms. */
export interface ClientRegistrationRequest {
  partnerGpid?: string | null;
  clientName: string;
  /** Space-separated scopes the client may request (RFC 7591 `scope`); required here. */
  scope: string;
  /** Default client_secret_basic, as RFC 7591 says. */
  tokenEndpointAuthMethod?: string | null;
  /** If given, exactly ["client_credentials"]. */
  grantTypes?: readonly string[] | null;
  /** Public keys; required for private_key_jwt, refused otherwise. */
  jwks?: unknown;
  /** Not supported: fetching keys from a client-supplied URL would let anyone aim our servers at any URL. */
  jwksUri?: string | null;
  /**
   * SMART patient launch context: bind the client to one FHIR Patient (its logical id). Every token
   * then carries `patient`, and the FHIR server narrows all of the client's access to that patient's
   * compartment, whatever its scopes.
   */
  patient?: string | null;
}

/** A registered client, with its secret when it has one: shown in this answer only. */
export interface RegisteredClient {
  client: OAuthClient;
  clientSecret: string | null;
}

function readClientScopes(scope: string): string[] {
  const scopes = parseScopeString(scope);
  if (scopes.length === 0) throw invalidClientMetadata('scope', 'must name at least one scope');
  if (scopes.length > MAX_SCOPES_PER_CREDENTIAL) throw invalidClientMetadata('scope', `must name at most ${MAX_SCOPES_PER_CREDENTIAL} scopes`);
  const malformed = scopes.filter((s) => !isValidScope(s) || RESERVED_SCOPES.includes(s));
  if (malformed.length > 0) throw invalidClientMetadata('scope', `has malformed or reserved scopes: ${malformed.join(', ')}`);
  return scopes;
}

/** The FHIR id grammar (R4 `id`): what a patient context names. */
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

function readPatient(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (!FHIR_ID.test(value)) throw invalidClientMetadata('patient', 'must be a FHIR Patient id (1-64 of A-Z a-z 0-9 - .)');
  return value;
}

/**
 * What a client bound to one patient may hold: the scopes whose every use the FHIR subgraph narrows
 * to the patient's compartment (SMART and FHIR product scopes, analytics over FHIR data). Partner-wide
 * products (identity, TEFCA, clearinghouse, wearables, webhooks, tokens, …) would reach past the patient.
 */
const PATIENT_CONTEXT_SCOPE = /^(patient|user|system)\/|^launch\/patient$|^cms\.fhir\.|^analytics\./;

function assertPatientContextScopes(scopes: readonly string[]): void {
  const beyond = scopes.filter((s) => !PATIENT_CONTEXT_SCOPE.test(s));
  if (beyond.length > 0) {
    throw invalidClientMetadata('scope', `has scopes that reach past the client's patient context: ${beyond.join(', ')}; a client with a patient may hold only SMART, cms.fhir.* and analytics.* scopes`);
  }
}

function readAuthMethod(value: string | null | undefined): TokenEndpointAuthMethod {
  const method = value ?? 'client_secret_basic';
  if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(method)) {
    throw invalidClientMetadata('token_endpoint_auth_method', `must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`);
  }
  return method as TokenEndpointAuthMethod;
}

/**
 * Register a client_credentials client for a partner (RFC 7591 semantics). Its scopes follow the
 * same least-privilege rule as API tokens; secret clients get a `svc_cs_…` secret (stored as its
 * SHA-256, never expiring), private_key_jwt clients register their public keys instead.
 * Call inside a transaction.
 */
export async function registerOAuthClient(em: EntityManager, caller: Principal, request: ClientRegistrationRequest, now: Date): Promise<RegisteredClient> {
  let clientName: string;
  try {
    clientName = readCredentialName(request.clientName, 'client_name');
  } catch (err) {
    const message = err instanceof DomainError ? err.fieldErrors[0]?.message ?? err.message : 'is invalid';
    throw invalidClientMetadata('client_name', message);
  }
  const scopes = readClientScopes(request.scope);
  const method = readAuthMethod(request.tokenEndpointAuthMethod);
  const patient = readPatient(request.patient);
  if (patient !== null) assertPatientContextScopes(scopes);
  if (request.grantTypes != null && (request.grantTypes.length !== 1 || request.grantTypes[0] !== 'client_credentials')) {
    throw invalidClientMetadata('grant_types', 'must be ["client_credentials"], the only grant offered');
  }
  if (request.jwksUri != null) throw invalidClientMetadata('jwks_uri', 'is not supported; register the public keys inline as jwks');
  let jwks: PublicJwks | null = null;
  if (method === 'private_key_jwt') {
    if (request.jwks == null) throw invalidClientMetadata('jwks', 'is required for private_key_jwt');
    jwks = await readClientJwks(request.jwks);
  } else if (request.jwks != null) {
    throw invalidClientMetadata('jwks', `is only for private_key_jwt clients, not ${method}`);
  }

  const partner = await credentialOwner(em, caller, request.partnerGpid);
  assertDelegable(scopes, partner.grantedScopes, caller);
  const active = await oauthClients.countActive(em, partner.gpid);
  if (active >= MAX_ACTIVE_CLIENTS_PER_PARTNER) {
    throw new DomainError('CONFLICT', `Partner ${partner.gpid} already has ${active} active OAuth clients, the most allowed (${MAX_ACTIVE_CLIENTS_PER_PARTNER}); revoke one first.`, {
      details: { max_active_clients: MAX_ACTIVE_CLIENTS_PER_PARTNER },
    });
  }
  const clientSecret = method === 'private_key_jwt' ? null : newSecret('svc_cs');
  const client = em.create(OAuthClientEntity, {
    id: newId('cli', now.getTime()),
    partnerGpid: partner.gpid,
    clientName,
    scopes,
    tokenEndpointAuthMethod: method,
    secretHash: clientSecret === null ? null : sha256Hex(clientSecret),
    previousSecretHash: null,
    previousSecretExpiresAt: null,
    secretRotatedAt: null,
    jwks,
    patient,
    createdBy: creatorOf(caller),
    createdAt: now,
    revokedAt: null,
    revokedReason: null,
  });
  await em.flush();
  return { client, clientSecret };
}

/**
 * Revoke an OAuth client: no new access tokens, and the ones it holds stop working at once
 * (gateways check the client on every request, from a cache that partner.token.revoked evicts).
 * Emits partner.token.revoked with the client id as `token_id`. Idempotent like token revocation.
 */
export async function revokeOAuthClient(em: EntityManager, caller: Principal, clientId: string, reasonInput: string | null | undefined, now: Date): Promise<RevocationOutcome> {
  const client = await oauthClients.byId(em, clientId);
  if (!client || !actsFor(caller, client.partnerGpid)) throw new DomainError('NOT_FOUND', `No OAuth client ${clientId} is visible to this credential.`);
  if (client.revokedAt) {
    return { revocation: { tokenId: client.id, partnerGpid: client.partnerGpid, revokedAt: client.revokedAt, reason: client.revokedReason ?? 'partner_request' }, eventId: null };
  }
  const reason = readRevocationReason(reasonInput, caller, client.partnerGpid);
  client.revokedAt = now;
  client.revokedReason = reason;
  const revocation = { tokenId: client.id, partnerGpid: client.partnerGpid, revokedAt: now, reason };
  const eventId = recordTokenRevoked(em, revocation);
  await em.flush();
  return { revocation, eventId };
}
