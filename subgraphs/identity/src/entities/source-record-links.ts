import { chunks } from '@svc/platform';
import type { Sql } from './sql.js';

const TABLE = 'identity_source_record_links';

export interface SourceRecordLink {
  recordKey: string;
  partnerGpid: string | null;
  gpid: string;
  /** The source origin the record was last resolved under. */
  source: string;
  recordVersion: string;
  lastEventId: string;
}

/** The link of one source record (`fhir:Patient/<id>`), if it was ever resolved. */
export async function sourceRecordLink(sql: Sql, recordKey: string): Promise<SourceRecordLink | null> {
  const rows = (await sql.table(TABLE).where({ record_key: recordKey }).select('*')) as Record<string, unknown>[];
  const r = rows[0];
  if (!r) return null;
  return { recordKey, partnerGpid: (r['partner_gpid'] as string | null) ?? null, gpid: String(r['gpid']), source: String(r['source']), recordVersion: String(r['record_version']), lastEventId: String(r['last_event_id']) };
}

/** The links of several source records (those never resolved are absent), in one read per 500. */
export async function sourceRecordLinks(sql: Sql, recordKeys: readonly string[]): Promise<Map<string, SourceRecordLink>> {
  const out = new Map<string, SourceRecordLink>();
  for (const part of chunks([...new Set(recordKeys)], 500)) {
    const rows = (await sql.table(TABLE).whereIn('record_key', part).select('*')) as Record<string, unknown>[];
    for (const r of rows) {
      const recordKey = String(r['record_key']);
      out.set(recordKey, { recordKey, partnerGpid: (r['partner_gpid'] as string | null) ?? null, gpid: String(r['gpid']), source: String(r['source']), recordVersion: String(r['record_version']), lastEventId: String(r['last_event_id']) });
    }
  }
  return out;
}

/** Records (or moves) a source record's link, in `tx`. */
export async function saveSourceRecordLink(tx: Sql, link: SourceRecordLink, at: Date): Promise<void> {
  await saveSourceRecordLinks(tx, [{ link, at }]);
}

/** Records (or moves) several source records' links with multi-row upserts; a record named twice keeps its last. */
export async function saveSourceRecordLinks(tx: Sql, links: ReadonlyArray<{ link: SourceRecordLink; at: Date }>): Promise<void> {
  const last = new Map(links.map((l) => [l.link.recordKey, l]));
  for (const part of chunks([...last.values()], 100)) {
    await tx
      .table(TABLE)
      .insert(part.map(({ link, at }) => ({ record_key: link.recordKey, partner_gpid: link.partnerGpid, gpid: link.gpid, source: link.source, record_version: link.recordVersion, last_event_id: link.lastEventId, updated_at: at.getTime() })))
      .onConflict('record_key')
      .merge(['partner_gpid', 'gpid', 'source', 'record_version', 'last_event_id', 'updated_at']);
  }
}
