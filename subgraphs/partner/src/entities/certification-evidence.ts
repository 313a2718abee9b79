import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/**
 * Evidence the platform recorded for an observed certification item. `source` names what was
 * observed (an event id, a signature id, a request id) and is unique per partner and item, so
 * recording the same observation twice is a no-op.
 */
export interface CertificationEvidenceRow {
  id?: number;
  partnerGpid: string;
  itemId: string;
  source: string;
  detail: string | null;
  observedAt: Date;
  /**
   * How many observations the row stands for: the partner's successful FHIR reads for
   * `fhir_r4_sandbox_read` (counted exactly, one row per partner); 1 for other evidence.
   */
  count?: number;
}

export const CertificationEvidenceEntity = new EntitySchema<CertificationEvidenceRow>({
  name: 'CertificationEvidence',
  tableName: 'partner_certification_evidence',
  properties: {
    id: { type: 'number', primary: true, autoincrement: true },
    partnerGpid: { type: 'string' },
    itemId: { type: 'string' },
    source: { type: 'string' },
    detail: { type: 'string', nullable: true },
    observedAt: { type: DateTimeType },
    count: { type: 'integer', default: 1 },
  },
});
