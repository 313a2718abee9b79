import type { EntityManager } from '@mikro-orm/core';
import { CertificationAttestationEntity, type CertificationAttestation } from './certification-attestation.js';
import { CertificationEvidenceEntity, type CertificationEvidenceRow } from './certification-evidence.js';
import { CertificationSubmissionEntity, type CertificationSubmission } from './certification-submission.js';

/** Certification queries: evidence (append-only), attestations (the partner's checkboxes), submissions. */
export const certificationRecords = {
  /** Every piece of evidence recorded for a partner, oldest first. */
  evidenceFor(em: EntityManager, partnerGpid: string): Promise<CertificationEvidenceRow[]> {
    return em.find(CertificationEvidenceEntity, { partnerGpid }, { orderBy: { observedAt: 'asc', id: 'asc' } });
  },

  /** True when this observation (partner, item, source) was already recorded. */
  async hasEvidence(em: EntityManager, key: { partnerGpid: string; itemId: string; source: string }): Promise<boolean> {
    return (await em.count(CertificationEvidenceEntity, key)) > 0;
  },

  /** True when the item has any evidence for the partner. */
  async hasAnyEvidence(em: EntityManager, partnerGpid: string, itemId: string): Promise<boolean> {
    return (await em.count(CertificationEvidenceEntity, { partnerGpid, itemId })) > 0;
  },

  /** Stage one piece of evidence; a unique index on (partner, item, source) refuses a duplicate. */
  addEvidence(em: EntityManager, row: Omit<CertificationEvidenceRow, 'id'>): CertificationEvidenceRow {
    return em.create(CertificationEvidenceEntity, row);
  },

  attestationsFor(em: EntityManager, partnerGpid: string): Promise<CertificationAttestation[]> {
    return em.find(CertificationAttestationEntity, { partnerGpid });
  },

  /** Set the partner's checkboxes for these items, creating rows as needed. */
  async setAttestations(em: EntityManager, partnerGpid: string, progress: Readonly<Record<string, boolean>>, updatedBy: string | null, now: Date): Promise<void> {
    const itemIds = Object.keys(progress);
    if (itemIds.length === 0) return;
    const existing = await em.find(CertificationAttestationEntity, { partnerGpid, itemId: { $in: itemIds } });
    const byItem = new Map(existing.map((row) => [row.itemId, row]));
    for (const itemId of itemIds) {
      const checked = progress[itemId] === true;
      const row = byItem.get(itemId);
      if (row) {
        row.checked = checked;
        row.updatedBy = updatedBy;
        row.updatedAt = now;
      } else {
        em.create(CertificationAttestationEntity, { partnerGpid, itemId, checked, updatedBy, updatedAt: now });
      }
    }
  },

  submissionsFor(em: EntityManager, partnerGpid: string): Promise<CertificationSubmission[]> {
    return em.find(CertificationSubmissionEntity, { partnerGpid }, { orderBy: { submittedAt: 'asc', id: 'asc' } });
  },

  submission(em: EntityManager, partnerGpid: string, checklistId: string): Promise<CertificationSubmission | null> {
    return em.findOne(CertificationSubmissionEntity, { partnerGpid, checklistId });
  },

  /** Stage a submission; a unique index allows one per partner and checklist. */
  addSubmission(em: EntityManager, row: Omit<CertificationSubmission, 'id'>): CertificationSubmission {
    return em.create(CertificationSubmissionEntity, row);
  },
};
