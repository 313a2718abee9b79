import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { knexOf, rowsOf } from '@svc/platform';
import { CertificationAttestationEntity, type CertificationAttestation } from './certification-attestation.js';
import { CertificationEvidenceEntity, type CertificationEvidenceRow } from './certification-evidence.js';
import { CertificationSubmissionEntity, type CertificationSubmission } from './certification-submission.js';

/** One piece of observed evidence to record (see `certificationRecords.recordObserved`). */
export interface ObservedEvidence {
  partnerGpid: string;
  itemId: string;
  /** Constant per item for observations from events: one row per partner and item. */
  source: string;
  detail: string | null;
  observedAt: Date;
  /** Counted observations (reads): added to the row's count once per `countedBy` event. */
  count?: { n: number; countedBy: string };
}

/** Bound parameters per multi-row statement (under SQLite's 32766 and PostgreSQL's 65535). */
const MAX_PARAMS = 6_000;

function chunked<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** How long the ids of counted events are kept: longer than the event stream keeps an event (7 days). */
export const COUNTED_EVENTS_RETENTION_MS = 8 * 24 * 3600_000;

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

  /**
   * Record observations from a batch of events in one transaction, with a few statements whatever
   * the batch's size: the partners that exist (evidence of an unknown partner is dropped), the
   * counting events not counted before (their ids kept in `partner_certification_counted_events`,
   * so a redelivered event adds nothing), then one multi-row upsert per kind: a counted row adds its
   * count and takes the latest observation's time and detail; any other row keeps the first
   * observation (insert, or nothing when the partner and item already have one).
   * @returns how many observations were new.
   */
  async recordObserved(em: EntityManager, observations: readonly ObservedEvidence[], now: Date): Promise<number> {
    if (observations.length === 0) return 0;
    return em.transactional(async (tx) => {
      const knex = knexOf(tx);
      const date = (at: Date) => tx.getPlatform().processDateProperty(at) as Knex.Value;
      const gpids = [...new Set(observations.map((o) => o.partnerGpid))];
      const known = new Set(rowsOf<{ gpid: string }>(await knex.raw(`select gpid from partner_partners where gpid in (${gpids.map(() => '?').join(', ')})`, gpids)).map((r) => String(r.gpid)));
      let kept = observations.filter((o) => known.has(o.partnerGpid));
      const countedBy = [...new Set(kept.flatMap((o) => (o.count ? [o.count.countedBy] : [])))];
      if (countedBy.length > 0) {
        const fresh = new Set<string>();
        for (const ids of chunked(countedBy, MAX_PARAMS / 2)) {
          const inserted = await knex.raw(
            `insert into partner_certification_counted_events (event_id, counted_at) values ${ids.map(() => '(?, ?)').join(', ')} on conflict (event_id) do nothing returning event_id`,
            ids.flatMap((id) => [id, date(now)]),
          );
          for (const row of rowsOf<{ event_id: string }>(inserted)) fresh.add(String(row.event_id));
        }
        kept = kept.filter((o) => !o.count || fresh.has(o.count.countedBy));
      }
      // One row per partner, item and source: counts summed, the latest observation's time and detail.
      const rows = new Map<string, ObservedEvidence & { n: number }>();
      for (const o of kept) {
        const key = `${o.partnerGpid}\u0000${o.itemId}\u0000${o.source}\u0000${o.count ? 'counted' : ''}`;
        const row = rows.get(key);
        if (!row) rows.set(key, { ...o, n: o.count?.n ?? 1 });
        else {
          row.n += o.count?.n ?? 0;
          if (o.observedAt > row.observedAt) Object.assign(row, { observedAt: o.observedAt, detail: o.detail });
        }
      }
      const counted = [...rows.values()].filter((r) => r.count);
      const plain = [...rows.values()].filter((r) => !r.count);
      const columns = '(partner_gpid, item_id, source, detail, observed_at, count)';
      const values = (list: readonly (ObservedEvidence & { n: number })[]) => ({
        sql: list.map(() => '(?, ?, ?, ?, ?, ?)').join(', '),
        bindings: list.flatMap((r) => [r.partnerGpid, r.itemId, r.source.slice(0, 120), r.detail?.slice(0, 500) ?? null, date(r.observedAt), r.n] as Knex.Value[]),
      });
      const t = 'partner_certification_evidence';
      for (const list of chunked(counted, MAX_PARAMS / 6)) {
        const v = values(list);
        await knex.raw(
          `insert into ${t} ${columns} values ${v.sql} on conflict (partner_gpid, item_id, source) do update set ` +
            `count = ${t}.count + excluded.count, ` +
            `detail = case when excluded.observed_at > ${t}.observed_at then excluded.detail else ${t}.detail end, ` +
            `observed_at = case when excluded.observed_at > ${t}.observed_at then excluded.observed_at else ${t}.observed_at end`,
          v.bindings,
        );
      }
      for (const list of chunked(plain, MAX_PARAMS / 6)) {
        const v = values(list);
        await knex.raw(`insert into ${t} ${columns} values ${v.sql} on conflict (partner_gpid, item_id, source) do nothing`, v.bindings);
      }
      return kept.length;
    });
  },

  /** Forget counted events older than {@link COUNTED_EVENTS_RETENTION_MS} (the stream no longer holds them). */
  async pruneCountedEvents(em: EntityManager, now: Date): Promise<number> {
    return knexOf(em)('partner_certification_counted_events')
      .where('counted_at', '<', em.getPlatform().processDateProperty(new Date(now.getTime() - COUNTED_EVENTS_RETENTION_MS)) as Date)
      .delete();
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
