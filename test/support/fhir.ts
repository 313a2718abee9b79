import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { TestSystem } from './system.js';

/** Register a partner as the operator; answers its GPID. */
export async function registerPartner(t: TestSystem, legalName: string): Promise<string> {
  const res = await t.graphql<{ registerPartner: { gpid: string } }>('mutation R($n: String!) { registerPartner(input: { legalName: $n, organizationType: "LABORATORY" }) { gpid } }', { n: legalName });
  expect(res.errors).toBeUndefined();
  return res.data!.registerPartner.gpid;
}

/** An API token of `partnerGpid` (the operator's own partner when null) with exactly `scopes`. */
export async function apiToken(t: TestSystem, partnerGpid: string | null, scopes: string[]): Promise<string> {
  const res = await t.graphql<{ createApiToken: { secret: string } }>(
    'mutation T($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }',
    { i: { ...(partnerGpid ? { partnerGpid } : {}), name: `fhir ${scopes.join(' ')}`.slice(0, 60), scopes } },
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createApiToken.secret;
}

/** A FHIR request as `token`, JSON bodies sent as application/fhir+json. */
export function fhir(t: TestSystem, token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.request({
    method,
    url: `/fhir/R4${path}`,
    token,
    headers: body === undefined ? headers : { 'content-type': 'application/fhir+json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
