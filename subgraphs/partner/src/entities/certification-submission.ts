import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** A submitted certification checklist, with the evaluation that allowed it. One per partner and checklist. */
export interface CertificationSubmission {
  id?: number;
  partnerGpid: string;
  checklistId: string;
  submittedAt: Date;
  /** Credential that submitted. */
  submittedBy: string | null;
  /** Snapshot of the evaluation at submission time (items and their evidence dates). */
  evaluation: Record<string, unknown>;
}

export const CertificationSubmissionEntity = new EntitySchema<CertificationSubmission>({
  name: 'CertificationSubmission',
  tableName: 'partner_certification_submissions',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    partnerGpid: { type: 'string' },
    checklistId: { type: 'string' },
    submittedAt: { type: DateTimeType },
    submittedBy: { type: 'string', nullable: true },
    evaluation: { type: 'json' },
  },
});
