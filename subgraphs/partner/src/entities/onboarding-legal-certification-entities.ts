import { BaaSignatureEntity } from './baa-signature.js';
import { CertificationAttestationEntity } from './certification-attestation.js';
import { CertificationEvidenceEntity } from './certification-evidence.js';
import { CertificationSubmissionEntity } from './certification-submission.js';
import { PartnerApplicationEntity } from './partner-application.js';

/** The entities of onboarding applications, BAA e-signatures and certification (migration m003). */
export const ONBOARDING_LEGAL_CERTIFICATION_ENTITIES = [
  PartnerApplicationEntity,
  BaaSignatureEntity,
  CertificationEvidenceEntity,
  CertificationAttestationEntity,
  CertificationSubmissionEntity,
];
