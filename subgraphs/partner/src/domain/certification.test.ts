import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import {
  CERTIFICATION_CHECKLISTS,
  IDENTITY_CHECKLIST,
  PARTNER_ECOSYSTEM_CHECKLIST,
  findCertificationChecklist,
  type CertificationChecklist,
} from './certification-checklists.js';
import { assertCertificationComplete, evaluateCertification, validateCertificationProgress, type CertificationEvidence } from './certification-evaluation.js';

const required = (checklist: CertificationChecklist) => checklist.items.filter((item) => item.required);
const allAttested = (checklist: CertificationChecklist): Record<string, boolean> =>
  Object.fromEntries(checklist.items.filter((item) => item.evidence === 'attested').map((item) => [item.id, true]));
const allObserved = (checklist: CertificationChecklist): CertificationEvidence[] =>
  checklist.items.filter((item) => item.evidence === 'observed').map((item) => ({ item_id: item.id, observed_at: '2026-11-02T10:00:00Z' }));

describe('certification checklists', () => {
  it('has 11 required partner ecosystem items and 12 required identity items', () => {
    expect(required(PARTNER_ECOSYSTEM_CHECKLIST)).toHaveLength(11);
    expect(required(IDENTITY_CHECKLIST)).toHaveLength(12);
  });

  it('includes the six items named by the spec', () => {
    const ids = new Set(CERTIFICATION_CHECKLISTS.flatMap((checklist) => checklist.items.map((item) => item.id)));
    for (const id of [
      'sandbox_first_authenticated_call',
      'least_privilege_scopes',
      'fhir_r4_sandbox_read',
      'gpid_boundary_headers',
      'webhook_signature_verification',
      'webhook_idempotency',
    ]) {
      expect(ids).toContain(id);
    }
  });

  it.each(CERTIFICATION_CHECKLISTS.map((checklist) => [checklist.id, checklist] as const))('%s items are well formed', (_, checklist) => {
    const ids = checklist.items.map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const item of checklist.items) {
      expect(item.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(item.title.length).toBeGreaterThan(3);
      expect(item.description.length).toBeGreaterThan(20);
      expect(['observed', 'attested']).toContain(item.evidence);
      if (item.evidence === 'observed') expect(item.observation).toBeTruthy();
    }
  });

  it('gives shared items the same definition in both checklists', () => {
    const partner = new Map(PARTNER_ECOSYSTEM_CHECKLIST.items.map((item) => [item.id, item]));
    for (const item of IDENTITY_CHECKLIST.items) if (partner.has(item.id)) expect(item).toEqual(partner.get(item.id));
  });

  it('finds a checklist by id', () => {
    expect(findCertificationChecklist('identity')).toBe(IDENTITY_CHECKLIST);
    expect(findCertificationChecklist('other')).toBeUndefined();
  });
});

describe('evaluateCertification', () => {
  it('is complete with every attested item checked and every observed item evidenced', () => {
    const result = evaluateCertification(PARTNER_ECOSYSTEM_CHECKLIST, allAttested(PARTNER_ECOSYSTEM_CHECKLIST), allObserved(PARTNER_ECOSYSTEM_CHECKLIST));
    expect(result).toMatchObject({ checklist_id: 'partner_ecosystem', complete: true, required_total: 11, required_completed: 11, incomplete: [] });
    expect(() => assertCertificationComplete(result)).not.toThrow();
  });

  it('never completes an observed item from a checkbox', () => {
    const everythingChecked = Object.fromEntries(PARTNER_ECOSYSTEM_CHECKLIST.items.map((item) => [item.id, true]));
    const result = evaluateCertification(PARTNER_ECOSYSTEM_CHECKLIST, everythingChecked, []);
    expect(result.complete).toBe(false);
    expect(result.incomplete.every((item) => item.evidence === 'observed' && item.reason === 'no_evidence')).toBe(true);
    expect(result.incomplete.map((item) => item.item_id)).toContain('sandbox_first_authenticated_call');
  });

  it('reports unchecked attested items and keeps the latest evidence time', () => {
    const evidence = [
      ...allObserved(IDENTITY_CHECKLIST),
      { item_id: 'baa_signed', observed_at: '2026-11-05T08:00:00Z' },
      { item_id: 'baa_signed', observed_at: '2026-10-01T08:00:00Z' },
    ];
    const progress = { ...allAttested(IDENTITY_CHECKLIST), match_before_resolve: false, merge_split_approval: undefined };
    const result = evaluateCertification(IDENTITY_CHECKLIST, progress, evidence);
    expect(result.incomplete.map((item) => [item.item_id, item.reason])).toEqual([
      ['match_before_resolve', 'not_attested'],
      ['merge_split_approval', 'not_attested'],
    ]);
    expect(result.required_completed).toBe(10);
    expect(result.items.find((item) => item.item_id === 'baa_signed')?.observed_at).toBe('2026-11-05T08:00:00Z');
  });

  it('refuses a submission with one field error per incomplete item', () => {
    const result = evaluateCertification(IDENTITY_CHECKLIST, {}, allObserved(IDENTITY_CHECKLIST));
    let error: unknown;
    try {
      assertCertificationComplete(result);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    const domainError = error as DomainError;
    expect(domainError.code).toBe('VALIDATION_ERROR');
    expect(domainError.fieldErrors).toHaveLength(result.incomplete.length);
    expect(domainError.fieldErrors[0]?.field).toBe('items.match_before_resolve');
    expect(domainError.details.incomplete_items).toEqual(result.incomplete.map((item) => item.item_id));
  });
});

describe('validateCertificationProgress', () => {
  it('accepts attested items with booleans', () => {
    expect(validateCertificationProgress(PARTNER_ECOSYSTEM_CHECKLIST, { webhook_idempotency: true, credential_rotation: false })).toEqual({
      ok: true,
      value: { webhook_idempotency: true, credential_rotation: false },
    });
  });

  it('refuses unknown items, observed items and non-booleans', () => {
    const result = validateCertificationProgress(PARTNER_ECOSYSTEM_CHECKLIST, { nope: true, baa_signed: true, rate_limit_backoff: 'yes' });
    expect(result.ok ? [] : result.errors.map((error) => error.field)).toEqual(['nope', 'baa_signed', 'rate_limit_backoff']);
    expect(validateCertificationProgress(PARTNER_ECOSYSTEM_CHECKLIST, [true]).ok).toBe(false);
  });
});
