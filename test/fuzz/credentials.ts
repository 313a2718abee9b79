import type { TestSystem } from '../support/system.js';
import { onboardPartner, portalSession } from '../support/partner-onboarding.js';
import type { AuthMode, Dictionary } from './cases.js';

/** The bearer secrets a run speaks with, and the other partner's objects that the probes aim at. */
export interface Credentials {
  operator: string;
  /** The partner's API token with every scope a partner holds by default. */
  partner: string;
  /** The same partner's OAuth client_credentials access token, for `service` routes. */
  partnerService: string;
  other: { partnerGpid: string; tokenId: string; clientId: string; gpid: string };
  partnerGpid: string;
}

const PARTNER_SCOPES = [
  'cms.fhir.r4.read', 'cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.sdk.read', 'cms.partner.read', 'cms.partner.write', 'cms.pipeline.read',
  'cms.tokens.manage', 'cms.webhooks.manage', 'identity.match', 'identity.resolve', 'identity.read',
];
const SERVICE_SCOPE = 'identity.match identity.resolve identity.read';

async function ok(res: Promise<{ statusCode: number; body: string; json(): unknown }>, what: string): Promise<Record<string, unknown>> {
  const answer = await res;
  if (answer.statusCode >= 300) throw new Error(`fuzz setup: ${what} answered ${answer.statusCode}: ${answer.body.slice(0, 300)}`);
  return answer.json() as Record<string, unknown>;
}

/** A partner onboarded through the public API, with an API token, an OAuth client and one resolved identity. */
async function partnerWithObjects(t: TestSystem, tag: string, person: { name: string; dob: string }) {
  const { partnerGpid, email } = await onboardPartner(t, tag);
  const session = await portalSession(t, email);
  const token = await ok(t.request({ method: 'POST', url: '/cms/tokens', token: session, body: { name: `fuzz ${tag}`, scopes: PARTNER_SCOPES } }), 'POST /cms/tokens');
  const client = await ok(
    t.request({ method: 'POST', url: '/cms/oauth/register', token: session, body: { client_name: `fuzz ${tag}`, scope: SERVICE_SCOPE, token_endpoint_auth_method: 'client_secret_post' } }),
    'POST /cms/oauth/register',
  );
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: String(client['client_id']), client_secret: String(client['client_secret']) });
  const access = await ok(
    t.request({ method: 'POST', url: '/oauth/token', token: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }),
    'POST /oauth/token',
  );
  const identity = await ok(
    t.request({
      method: 'POST',
      url: '/api/identity/resolve',
      token: String(access['access_token']),
      headers: { 'x-svc-source': 'cms' },
      body: { ...person, email: `${tag}@example.org` },
    }),
    'POST /api/identity/resolve',
  );
  return { partnerGpid, email, apiToken: String(token['secret']), tokenId: String(token['token_id']), clientId: String(client['client_id']), accessToken: String(access['access_token']), gpid: String(identity['gpid']) };
}

/**
 * Set up who the fuzzer speaks as: the bootstrap operator, partner A (API token and OAuth token), and
 * partner B whose token, client and identity are the "another tenant's object" probes. Also fills
 * the dictionary of real values that valid-looking cases draw from.
 */
export async function setUpCredentials(t: TestSystem, dictionary: Dictionary): Promise<Credentials> {
  // Two people nobody could take for one: B's identity must be one that A has no link to.
  const a = await partnerWithObjects(t, 'fuzz-a', { name: 'Ada Lovelace', dob: '1985-12-10' });
  const b = await partnerWithObjects(t, 'fuzz-b', { name: 'Grace Hopper', dob: '1946-12-09' });
  // A token of A's that cases may revoke: the one they speak with must outlive the run.
  const spare = await ok(t.request({ method: 'POST', url: '/cms/tokens', token: a.apiToken, body: { name: 'fuzz spare', scopes: ['cms.sdk.read'] } }), 'POST /cms/tokens (spare)');
  const documents = await ok(t.request({ url: '/cms/legal/documents', token: null }), 'GET /cms/legal/documents');
  const documentList = (Array.isArray(documents['documents']) ? documents['documents'] : []) as Record<string, unknown>[];
  Object.assign(dictionary, {
    gpid: [a.gpid, b.gpid],
    partner_gpid: [a.partnerGpid, b.partnerGpid, 'CMS-00000000'],
    token_id: [String(spare['token_id']), `tok_${'0'.repeat(26)}`],
    file_name: documentList.map((d) => String(d['file_name'])),
    document_id: documentList.map((d) => String(d['id'])),
    email: [a.email],
    signer_email: [a.email],
    spec: ['all.yaml', 'all.json', 'identity.yaml', 'partner-ecosystem.yml'],
    resourceType: ['Patient', 'Observation', 'Bundle'],
    wearableProduct: ['pulse', 'beacon'],
    'x-svc-source': ['cms', 'pulse', 'provider'],
  } satisfies Dictionary);
  return {
    operator: t.operatorToken,
    partner: a.apiToken,
    partnerService: a.accessToken,
    partnerGpid: a.partnerGpid,
    other: { partnerGpid: b.partnerGpid, tokenId: b.tokenId, clientId: b.clientId, gpid: b.gpid },
  };
}

/** The Authorization header of a mode, for an operation that prefers a service credential or not. */
export function authorizationFor(mode: AuthMode, credentials: Credentials, service: boolean): string | undefined {
  switch (mode) {
    case 'anonymous':
      return undefined;
    case 'bad-token':
      return 'Bearer op_not-a-real-credential-0000000000';
    case 'partner':
      return `Bearer ${service ? credentials.partnerService : credentials.partner}`;
    case 'operator':
      return `Bearer ${credentials.operator}`;
  }
}
