import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_CATALOG } from '@svc/platform';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

/** The scope reference says what a bundle needs, and the service does exactly that. */
describe('cms.fhir.bundle.push: reference and behaviour agree', () => {
  let t: TestSystem;
  let gpid: string;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    gpid = await registerPartner(t, 'Bundle Reference Clinic');
  });
  afterAll(() => t?.close());

  const bundle = { resourceType: 'Bundle', type: 'transaction', entry: [{ resource: { resourceType: 'Patient', gender: 'female' }, request: { method: 'POST', url: 'Patient' } }] };

  it('the reference names the entry scopes, and a Patient-creating bundle needs cms.fhir.rest.write besides bundle.push', async () => {
    const entry = SCOPE_CATALOG.find((s) => s.scope === 'cms.fhir.bundle.push')!;
    expect(entry.description).toContain('cms.fhir.rest.write to create, update or delete');

    const pushOnly = await fhir(t, await apiToken(t, gpid, ['cms.fhir.bundle.push']), 'POST', '', bundle);
    expect(pushOnly.statusCode).toBe(403);
    expect(JSON.stringify(pushOnly.json())).toContain('cms.fhir.rest.write');

    const withWrite = await fhir(t, await apiToken(t, gpid, ['cms.fhir.bundle.push', 'cms.fhir.rest.write']), 'POST', '', bundle);
    expect(withWrite.statusCode).toBe(200);
  });
});
