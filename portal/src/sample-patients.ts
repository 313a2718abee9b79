/**
 * The sandbox's sample patients for the analytics playground: six invented people (family name
 * "Sample", no real person) with a few conditions, as one FHIR transaction Bundle the partner adds
 * to their own sandbox data with one click. Every resource carries the sample-data tag and an
 * identifier of the sample set, and is created only if none with that identifier exists, so a
 * second click adds nothing. The portal offers it only when the service says it is a sandbox.
 */

export const SAMPLE_TAG = { system: 'https://health-partner.example/fhir/CodeSystem/data-origin', code: 'sandbox-sample', display: 'Synthetic sample data (sandbox)' };
const IDS = 'urn:svc:sandbox-sample';
const ICD = 'http://hl7.org/fhir/sid/icd-10-cm';

const PEOPLE: { key: string; given: string; gender: 'female' | 'male'; birthDate: string; conditions: [string, string, string][] }[] = [
  { key: 'a', given: 'Harper', gender: 'female', birthDate: '1950-03-02', conditions: [['E11.9', 'Type 2 diabetes mellitus without complications', '2021-05-04'], ['I10', 'Essential (primary) hypertension', '2018-02-11']] },
  { key: 'b', given: 'Rowan', gender: 'male', birthDate: '1948-07-19', conditions: [['E11.9', 'Type 2 diabetes mellitus without complications', '2019-09-30']] },
  { key: 'c', given: 'Quinn', gender: 'female', birthDate: '1985-10-10', conditions: [['J45.909', 'Unspecified asthma, uncomplicated', '2024-01-15']] },
  { key: 'd', given: 'Emery', gender: 'female', birthDate: '1956-01-05', conditions: [['E11.9', 'Type 2 diabetes mellitus without complications', '2022-08-08']] },
  { key: 'e', given: 'Sasha', gender: 'male', birthDate: '1972-12-12', conditions: [['I10', 'Essential (primary) hypertension', '2020-06-01']] },
  { key: 'f', given: 'Ellis', gender: 'female', birthDate: '2010-06-06', conditions: [] },
];

const conditional = (type: string, value: string) => ({ method: 'POST', url: type, ifNoneExist: `identifier=${IDS}|${value}` });

/** The transaction Bundle of the sample set. */
export function sampleBundle(): Record<string, unknown> {
  const entry = PEOPLE.flatMap((p) => {
    const patientUrl = `urn:uuid:5a3b1e00-0000-4000-8000-00000000000${p.key === 'a' ? 1 : p.key.charCodeAt(0) - 96}`;
    const meta = { tag: [SAMPLE_TAG] };
    return [
      {
        fullUrl: patientUrl,
        resource: { resourceType: 'Patient', meta, identifier: [{ system: IDS, value: `patient-${p.key}` }], name: [{ family: 'Sample', given: [p.given] }], gender: p.gender, birthDate: p.birthDate },
        request: conditional('Patient', `patient-${p.key}`),
      },
      ...p.conditions.map(([code, display, onset]) => ({
        resource: {
          resourceType: 'Condition',
          meta,
          identifier: [{ system: IDS, value: `condition-${p.key}-${code}` }],
          clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
          verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'confirmed' }] },
          code: { coding: [{ system: ICD, code, display }] },
          subject: { reference: patientUrl },
          onsetDateTime: onset,
        },
        request: conditional('Condition', `condition-${p.key}-${code}`),
      })),
    ];
  });
  return { resourceType: 'Bundle', type: 'transaction', entry };
}

/** How many sample patients the set holds. */
export const SAMPLE_PATIENT_COUNT = PEOPLE.length;
