import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

/** Composite search parameters: both components must match on the same element. */
describe('FHIR R4 composite search parameters', () => {
  let t: TestSystem;
  let token: string;
  const ids: Record<string, string> = {};

  const found = async (query: string): Promise<string[]> => {
    const res = await fhir(t, token, 'GET', query);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return ((res.json().entry ?? []) as { resource: { id: string } }[]).map((e) => e.resource.id).sort();
  };
  const names = (...keys: string[]) => keys.map((k) => ids[k]!).sort();

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    token = await apiToken(t, await registerPartner(t, 'Composite Clinic'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const loinc = (code: string) => ({ coding: [{ system: 'http://loinc.org', code }] });
    const create = async (key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    await create('weight', { resourceType: 'Observation', status: 'final', code: loinc('29463-7'), valueQuantity: { value: 72, unit: 'kg', system: 'http://unitsofmeasure.org', code: 'kg' } });
    await create('height', { resourceType: 'Observation', status: 'final', code: loinc('8302-2'), valueQuantity: { value: 180, unit: 'cm', system: 'http://unitsofmeasure.org', code: 'cm' } });
    await create('bp', {
      resourceType: 'Observation',
      status: 'final',
      code: loinc('85354-9'),
      component: [
        { code: loinc('8480-6'), valueQuantity: { value: 140, unit: 'mmHg', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
        { code: loinc('8462-4'), valueQuantity: { value: 90, unit: 'mmHg', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' } },
      ],
    });
    await create('smoker', { resourceType: 'Observation', status: 'final', code: loinc('72166-2'), valueCodeableConcept: { coding: [{ system: 'http://snomed.info/sct', code: '77176002' }] } });
    await create('note', { resourceType: 'Observation', status: 'final', code: loinc('8251-1'), valueString: 'Feeling Better today' });
    await create('when', { resourceType: 'Observation', status: 'final', code: loinc('11778-8'), valueDateTime: '2024-03-10' });
    await create('group', { resourceType: 'Group', type: 'person', actual: false, characteristic: [{ code: { text: 'sex', coding: [{ code: 'sex' }] }, valueCodeableConcept: { coding: [{ code: 'female' }] }, exclude: false }] });
  });
  afterAll(() => t?.close());

  it('code-value-quantity matches code and value of the same Observation, with prefixes and units', async () => {
    expect(await found('/Observation?code-value-quantity=http://loinc.org|29463-7$72')).toEqual(names('weight'));
    expect(await found('/Observation?code-value-quantity=29463-7$gt70|http://unitsofmeasure.org|kg')).toEqual(names('weight'));
    expect(await found('/Observation?code-value-quantity=29463-7$gt100')).toEqual([]);
    // 180 belongs to the height: code and value must come from one Observation.
    expect(await found('/Observation?code-value-quantity=29463-7$180')).toEqual([]);
    expect(await found('/Observation?code-value-quantity=29463-7$72,8302-2$180')).toEqual(names('weight', 'height'));
  });

  it('component-code-value-quantity and combo-code-value-quantity pair code and value within one component', async () => {
    expect(await found('/Observation?component-code-value-quantity=http://loinc.org|8480-6$ge140')).toEqual(names('bp'));
    // 90 is the diastolic value, not the systolic one.
    expect(await found('/Observation?component-code-value-quantity=8480-6$90')).toEqual([]);
    expect(await found('/Observation?component-code-value-quantity=8462-4$lt100|http://unitsofmeasure.org|mm[Hg]')).toEqual(names('bp'));
    expect(await found('/Observation?combo-code-value-quantity=8462-4$90')).toEqual(names('bp'));
    expect(await found('/Observation?combo-code-value-quantity=29463-7$72')).toEqual(names('weight'));
  });

  it('code-value-concept, code-value-string, code-value-date, Group characteristic-value and :missing', async () => {
    expect(await found('/Observation?code-value-concept=72166-2$http://snomed.info/sct|77176002')).toEqual(names('smoker'));
    expect(await found('/Observation?code-value-concept=72166-2$other')).toEqual([]);
    expect(await found('/Observation?combo-code-value-concept=72166-2$77176002')).toEqual(names('smoker'));
    expect(await found('/Observation?code-value-string=8251-1$feeling')).toEqual(names('note'));
    expect(await found('/Observation?code-value-date=11778-8$2024-03')).toEqual(names('when'));
    expect(await found('/Observation?code-value-date=11778-8$gt2025')).toEqual([]);
    expect(await found('/Group?characteristic-value=sex$female')).toEqual(names('group'));
    expect(await found('/Observation?code-value-quantity:missing=false')).toEqual(names('weight', 'height'));
  });

  it('refuses a composite value with the wrong number of parts, naming the parameter; the CapabilityStatement lists composites', async () => {
    const bad = await fhir(t, token, 'GET', '/Observation?code-value-quantity=29463-7');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issue[0].expression).toEqual(['code-value-quantity']);
    const wrongValue = await fhir(t, token, 'GET', '/Observation?code-value-quantity=29463-7$heavy');
    expect(wrongValue.statusCode).toBe(400);
    const metadata = (await t.request({ method: 'GET', url: '/fhir/R4/metadata' })).json();
    const observation = metadata.rest[0].resource.find((r: { type: string }) => r.type === 'Observation');
    expect(observation.searchParam).toContainEqual(expect.objectContaining({ name: 'component-code-value-quantity', type: 'composite' }));
  });
});
