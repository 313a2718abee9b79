/**
 * Quick start: an API token, a FHIR Patient created (once, however often it runs) and found again.
 *
 *   SVC_BASE_URL=http://localhost:4000 SVC_TOKEN=svc_… npx tsx examples/quickstart.ts
 *
 * The token needs cms.fhir.rest.write and cms.fhir.r4.read.
 */
import { pathToFileURL } from 'node:url';
import { ApiError, createPartnerClient } from '@health-partner/sdk';
import type { Patient } from '@medplum/fhirtypes';

export async function quickstart(baseUrl: string, token: string): Promise<{ patientId: string; found: number }> {
  const client = createPartnerClient({ baseUrl, credentials: { token } });
  client.on('deprecation', (w) => console.warn(`${w.method} ${w.url} is deprecated; sunset ${w.sunset?.toISOString() ?? 'unknown'}`));

  // Create a Patient, conditionally: running the example twice creates it once.
  const patient = await client.fhir.create<Patient>(
    { resourceType: 'Patient', identifier: [{ system: 'urn:example:mrn', value: 'QS-0001' }], name: [{ family: 'Quickstart', given: ['Ada'] }], birthDate: '1984-07-01', gender: 'female' },
    { ifNoneExist: 'identifier=urn:example:mrn|QS-0001' },
  );

  // Search, page after page.
  let found = 0;
  for await (const p of client.fhir.searchAll('Patient', { family: 'Quickstart', _count: 50 })) if (p.id) found++;

  try {
    await client.fhir.read('Patient', 'does-not-exist');
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
  }
  return { patientId: patient.id!, found };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await quickstart(process.env['SVC_BASE_URL'] ?? 'http://localhost:4000', process.env['SVC_TOKEN'] ?? '');
  console.log(result);
}
