import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@svc/rest-facade';
import { generatePythonPackage, packageDrift } from '../sdk/python/generate.js';
import { snakeCase } from '../sdk/python/src/python-syntax.js';
import { registerPartner } from './support/fhir.js';
import { bootSystem, type TestSystem } from './support/system.js';

const SMOKE = fileURLToPath(new URL('../sdk/python/examples/smoke.py', import.meta.url));
const PYTHON_TESTS = fileURLToPath(new URL('../sdk/python/tests', import.meta.url));
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('Python SDK generator', () => {
  it('the committed package is what the generator makes of the current route table', () => {
    expect(packageDrift(generatePythonPackage()), 'run npm run sdk:python').toEqual([]);
  });

  it('has one Client method per route, named after the route id, and an OAuth client_credentials option', () => {
    const client = generatePythonPackage().get('client.py')!;
    for (const route of ROUTES) expect(client, route.id).toContain(`    def ${snakeCase(route.id)}(`);
    expect(client).toContain('client_id: Optional[str] = None');
    expect(client).toContain('token_path="/oauth/token"');
  });
});

describe.runIf(hasPython)('Python SDK runtime', () => {
  it('retries 429 and 503 after Retry-After, bounded, and raises field errors (unittest against a scripted server)', async () => {
    const { stderr } = await promisify(execFile)('python3', ['-m', 'unittest', 'discover', '-s', PYTHON_TESTS], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, timeout: 120_000 });
    expect(stderr).toMatch(/^OK$/m);
  });
});

describe.runIf(hasPython)('Python SDK against the running service over HTTP', () => {
  let t: TestSystem;
  let baseUrl: string;
  let oauthClient: { client_id: string; client_secret: string };

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    // Python needs a real listener; port 0 lets the system pick a free one.
    await t.system.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.system.app.server.address() as { port: number };
    baseUrl = `http://127.0.0.1:${port}`;
    const partnerGpid = await registerPartner(t, 'Python SDK Labs');
    const registered = await t.request({
      method: 'POST',
      url: '/cms/oauth/register',
      body: { client_name: 'python sdk smoke', scope: 'cms.pipeline.read', token_endpoint_auth_method: 'client_secret_basic', partner_gpid: partnerGpid },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    oauthClient = registered.json();
  });
  afterAll(() => t?.close());

  it('lists with a token, raises a 404 and a validation error as ApiError, and signs in with client_credentials', async () => {
    // Asynchronously: the server answers on this process's event loop while Python waits for it.
    const { stdout } = await promisify(execFile)('python3', [SMOKE], {
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: '1',
        HEALTH_PARTNER_BASE_URL: baseUrl,
        HEALTH_PARTNER_TOKEN: t.operatorToken,
        HEALTH_PARTNER_CLIENT_ID: oauthClient.client_id,
        HEALTH_PARTNER_CLIENT_SECRET: oauthClient.client_secret,
      },
      timeout: 120_000,
    });
    const steps = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { step: string })
        .map((step) => [step.step, step]),
    );
    expect(steps['list']).toMatchObject({ total: ROUTES.filter((route) => route.product === 'identity').length });
    expect((steps['list'] as unknown as { paths: string[] }).paths).toContain('/api/identity/{gpid}');
    expect(steps['not_found']).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(steps['validation']).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', fields: ['product'] });
    expect(steps['oauth']).toBeDefined();
  });
});
