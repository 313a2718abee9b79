import type { AuthMode, FuzzCase } from './cases.js';
import type { Credentials } from './credentials.js';
import type { FuzzRequest } from './http.js';
import type { Operation } from './openapi.js';

/** A fixed request with, optionally, what its answer must also satisfy besides the bar. */
export interface Probe {
  testCase: FuzzCase;
  /** Acting on another tenant's object: anything but a refusal (4xx) fails. */
  mustRefuse?: boolean;
  /** The twin probe aimed at a missing object: a different status or code is reported as a note. */
  twinOf?: string;
}

const CURSORS: readonly [string, string][] = [
  ['cursor', 'AA'],
  ['after', 'AA'],
  ['cursor', Buffer.from('{"offset":-1}').toString('base64url')],
  ['cursor', '////'],
  ['cursor', 'A'.repeat(2_000)],
];

/** Same length and alphabet as a real id, but not one: its last character turned. */
function missingTwin(id: string): string {
  const last = id.at(-1) ?? '0';
  return id.slice(0, -1) + (last === '0' ? '1' : '0');
}

function unrouted(method: string, path: string): Operation {
  return { id: 'unrouted', method, path, parameters: [], implemented: true, public: true, serviceCredential: false, deprecated: false, errorDialect: 'problem' };
}

function probe(id: string, operation: Operation, auth: AuthMode, request: FuzzRequest, kind: string): FuzzCase {
  return { id: `probe:${id}`, operation, auth, mutations: [`probe:${kind}`], request };
}

const json = (value: unknown) => ({ 'content-type': 'application/json', body: Buffer.from(JSON.stringify(value)) });

function jsonRequest(method: string, path: string, value: unknown, headers: Record<string, string> = {}): FuzzRequest {
  const { 'content-type': type, body } = json(value);
  return { method, path, headers: { 'content-type': type, ...headers }, body };
}

/**
 * The fixed probes: forged pagination cursors on every GET, another tenant's objects (each beside a
 * twin aimed at a missing object), every public route bare and with odd methods, and paths no
 * route serves.
 */
export function fixedProbes(operations: readonly Operation[], credentials: Credentials): Probe[] {
  const probes: Probe[] = [];
  const find = (method: string, path: string) => operations.find((op) => op.method === method && op.path === path) ?? unrouted(method, path);

  for (const op of operations.filter((o) => o.method === 'GET' && !o.path.includes('{'))) {
    for (const auth of ['operator', 'partner'] as const) {
      CURSORS.forEach(([name, value], i) => {
        probes.push({ testCase: probe(`cursor:${op.id}:${auth}:${i}`, op, auth, { method: 'GET', path: `${op.path}?${name}=${encodeURIComponent(value)}`, headers: {} }, 'forged-cursor') });
      });
    }
  }

  const other = credentials.other;
  const tenant = (id: string, method: string, path: string, request: FuzzRequest, twin?: FuzzRequest, mustRefuse = false) => {
    const op = find(method, path);
    probes.push({ testCase: probe(`tenant:${id}`, op, 'partner', request, 'other-tenant'), mustRefuse });
    if (twin) probes.push({ testCase: probe(`tenant:${id}:missing`, op, 'partner', twin, 'missing-object'), twinOf: `probe:tenant:${id}` });
  };
  const identityHeaders = { 'x-svc-source': 'cms' };
  tenant('identity.get', 'GET', '/api/identity/{gpid}', { method: 'GET', path: `/api/identity/${other.gpid}`, headers: {} }, { method: 'GET', path: `/api/identity/${missingTwin(other.gpid)}`, headers: {} });
  tenant(
    'tokens.revoke.query', 'DELETE', '/cms/tokens',
    { method: 'DELETE', path: `/cms/tokens?token_id=${other.tokenId}`, headers: {} },
    { method: 'DELETE', path: `/cms/tokens?token_id=${missingTwin(other.tokenId)}`, headers: {} },
    true,
  );
  tenant('tokens.revoke.client', 'DELETE', '/cms/tokens', jsonRequest('DELETE', '/cms/tokens', { token_id: other.clientId }), jsonRequest('DELETE', '/cms/tokens', { token_id: missingTwin(other.clientId) }), true);
  tenant('tokens.create.for-other', 'POST', '/cms/tokens', jsonRequest('POST', '/cms/tokens', { name: 'not mine', scopes: ['cms.sdk.read'], partner_gpid: other.partnerGpid }), undefined, true);
  tenant('oauth.register.for-other', 'POST', '/cms/oauth/register', jsonRequest('POST', '/cms/oauth/register', { client_name: 'not mine', scope: 'cms.sdk.read', partner_gpid: other.partnerGpid }), undefined, true);
  tenant('pipeline.health', 'GET', '/cms/pipeline/health', { method: 'GET', path: `/cms/pipeline/health?partner_gpid=${other.partnerGpid}`, headers: {} }, { method: 'GET', path: `/cms/pipeline/health?partner_gpid=${missingTwin(other.partnerGpid)}`, headers: {} });
  tenant(
    'identity.merge', 'POST', '/api/identity/merge',
    jsonRequest('POST', '/api/identity/merge', { survivor_gpid: other.gpid, merged_gpids: [missingTwin(other.gpid)], reason: 'manual_review' }, identityHeaders),
    undefined,
    true,
  );

  for (const op of operations.filter((o) => o.public)) {
    const path = op.path.replace('{spec}', 'all.yaml').replace('{file_name}', 'x');
    for (const method of [op.method, 'HEAD', 'OPTIONS', 'TRACE']) probes.push({ testCase: probe(`public:${op.id}:${method}`, op, 'anonymous', { method, path, headers: {} }, 'public') });
  }
  const openapi = find('GET', '/api/openapi/{spec}');
  for (const spec of ['ALL.YAML', 'all.yaml%00', '..%2F..%2Fpackage.json', 'all.xml', 'all.yaml.json', '.yaml', '%2e%2e', 'all.yaml%2F..', 'identity.yaml;x']) {
    probes.push({ testCase: probe(`openapi:${spec}`, openapi, 'anonymous', { method: 'GET', path: `/api/openapi/${spec}`, headers: {} }, 'public') });
  }
  for (const [method, path] of [
    ['GET', '/'], ['GET', '/api'], ['GET', '/fhir/R4/'], ['GET', '/fhir/R4/Patient/%2e%2e'], ['GET', '//cms/tokens'], ['GET', '/cms//tokens'], ['GET', '/cms/tokens/'],
    ['GET', '/%'], ['GET', '/%00'], ['GET', '/..%2f..%2fetc%2fpasswd'], ['POST', '/fhir/R4/metadata'], ['DELETE', '/fhir/R4'], ['GET', '/internal/../cms/tokens'],
    ['GET', `/${'a'.repeat(4_000)}`], ['PATCH', '/cms/tokens'],
  ] as const) {
    probes.push({ testCase: probe(`unrouted:${method} ${path.slice(0, 40)}`, unrouted(method, path), 'operator', { method, path, headers: {} }, 'unrouted') });
  }
  return probes;
}
