import { DateTimeType, EntitySchema } from '@mikro-orm/core';
import type { ApplicationHistoryEntry, ApplicationStatus } from '../domain/application-status.js';

/**
 * A partner application: the three onboarding steps as the applicant last saved them, and the
 * review outcome. The portal password is kept only as an argon2id hash, and the resume secret that
 * authorizes the applicant only as its SHA-256.
 */
export interface PartnerApplication {
  /** app_… */
  id: string;
  status: ApplicationStatus;
  /** Step 1 as last saved: normalized when it was valid, as entered otherwise. */
  organization: Record<string, unknown> | null;
  /** Step 2 as last saved. */
  integration: Record<string, unknown> | null;
  /** Step 3 without the password: `{ agreements }`. */
  account: Record<string, unknown> | null;
  /** argon2id hash of the portal password; never the password itself. */
  passwordHash: string | null;
  /** SHA-256 of the resume secret shown once when the application was started. */
  resumeSecretHash: string;
  /** The partner created on approval. */
  partnerGpid: string | null;
  /** Who took the last review decision (credential id of the reviewer). */
  reviewer: string | null;
  /** The reviewer's reason for rejecting or returning the application. */
  decisionReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  submittedAt: Date | null;
  decidedAt: Date | null;
  /** What happened to the application, oldest first; null on rows older than the history (see `historyOf`). */
  history: ApplicationHistoryEntry[] | null;
  /** The contact e-mail of step 1 (normalized) once it was valid: how a sign-in finds the application. */
  contactEmail: string | null;
}

export const PartnerApplicationEntity = new EntitySchema<PartnerApplication>({
  name: 'PartnerApplication',
  tableName: 'partner_applications',
  properties: {
    id: { type: 'string', primary: true },
    status: { type: 'string' },
    organization: { type: 'json', nullable: true },
    integration: { type: 'json', nullable: true },
    account: { type: 'json', nullable: true },
    passwordHash: { type: 'string', nullable: true },
    resumeSecretHash: { type: 'string' },
    partnerGpid: { type: 'string', nullable: true },
    reviewer: { type: 'string', nullable: true },
    decisionReason: { type: 'text', nullable: true },
    createdAt: { type: DateTimeType },
    updatedAt: { type: DateTimeType },
    submittedAt: { type: DateTimeType, nullable: true },
    decidedAt: { type: DateTimeType, nullable: true },
    history: { type: 'json', nullable: true },
    contactEmail: { type: 'string', nullable: true },
  },
});
