import { createHash } from 'node:crypto';
import { SANDBOX_PEER_COMMUNITY_ID, SANDBOX_PEER_REPOSITORY_ID, type TefcaDocumentMetadata, type TefcaPatient } from '@svc/platform';

/**
 * The sample data set of the built-in sandbox peer community: a few invented people and their
 * documents, fixed in code so that every sandbox (and every replica) answers the same. No record
 * describes a real person: the names are made up, and every document says it is synthetic.
 */

export interface SamplePatient {
  id: string;
  given: string[];
  family: string;
  birthDate: string;
  gender: NonNullable<TefcaPatient['gender']>;
}

export interface SampleDocument extends TefcaDocumentMetadata {
  /** The document itself (what a retrieve answers, base64-encoded on the wire). */
  text: string;
}

export const SAMPLE_PATIENTS: readonly SamplePatient[] = Object.freeze([
  { id: 'SBX-PAT-0001', given: ['Jordan'], family: 'Sample', birthDate: '1980-04-12', gender: 'female' },
  { id: 'SBX-PAT-0002', given: ['Avery', 'Lee'], family: 'Sample', birthDate: '1975-11-03', gender: 'male' },
  { id: 'SBX-PAT-0003', given: ['Riley'], family: 'Testwell', birthDate: '1992-06-30', gender: 'other' },
  { id: 'SBX-PAT-0004', given: ['Morgan'], family: 'Placeholder', birthDate: '1958-01-21', gender: 'female' },
  { id: 'SBX-PAT-0005', given: ['Casey'], family: 'Sample', birthDate: '2001-09-09', gender: 'unknown' },
]);

/** The patient a partner is shown as an example to search for. */
export const SAMPLE_PATIENT_EXAMPLE = SAMPLE_PATIENTS[0]!;

const LOINC = 'http://loinc.org';
const KINDS = [
  { suffix: 'SUM', typeCode: '34133-9', typeDisplay: 'Summary of episode note', title: 'Summary of care', contentType: 'text/plain', day: '03-02' },
  { suffix: 'LAB', typeCode: '11502-2', typeDisplay: 'Laboratory report', title: 'Laboratory report', contentType: 'application/json', day: '05-14' },
] as const;

function documentText(p: SamplePatient, kind: (typeof KINDS)[number]): string {
  const banner = 'SYNTHETIC SAMPLE DATA from the sandbox peer community: this is not a real person.';
  if (kind.contentType === 'text/plain') {
    return [banner, '', `${kind.title} for ${p.given.join(' ')} ${p.family} (born ${p.birthDate})`, 'Reason for visit: annual check-up.', 'Assessment: no acute findings.', 'Plan: routine follow-up in 12 months.', ''].join('\n');
  }
  const seed = Number(p.id.slice(-4));
  return JSON.stringify({
    note: banner,
    patient: { id: p.id, name: `${p.given.join(' ')} ${p.family}` },
    results: [
      { code: '4548-4', display: 'Hemoglobin A1c', value: 5 + (seed % 4) * 0.4, unit: '%' },
      { code: '2093-3', display: 'Cholesterol, total', value: 160 + seed * 7, unit: 'mg/dL' },
    ],
  });
}

function buildDocuments(): SampleDocument[] {
  return SAMPLE_PATIENTS.flatMap((p, i) =>
    KINDS.map((kind) => {
      const text = documentText(p, kind);
      const bytes = Buffer.from(text, 'utf8');
      return {
        homeCommunityId: SANDBOX_PEER_COMMUNITY_ID,
        repositoryId: SANDBOX_PEER_REPOSITORY_ID,
        documentId: `${p.id}-${kind.suffix}`,
        patientId: p.id,
        title: `${kind.title} (synthetic sample)`,
        typeCode: kind.typeCode,
        typeSystem: LOINC,
        typeDisplay: kind.typeDisplay,
        contentType: kind.contentType,
        created: `${2024 + (i % 2)}-${kind.day}T09:30:00Z`,
        size: bytes.length,
        // XDS DocumentEntry.hash is the SHA-1 of the document (ITI TF-3 4.2.3.2.11).
        hash: createHash('sha1').update(bytes).digest('hex'),
        text,
      };
    }),
  );
}

export const SAMPLE_DOCUMENTS: readonly SampleDocument[] = Object.freeze(buildDocuments());
