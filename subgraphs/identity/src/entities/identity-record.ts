/**
 * The `identity_records` row and its mapping to the domain's `IdentityRecord` (the one definition of
 * a golden record: status, `mergedInto`, fingerprints). Demographics are never stored in clear:
 * `fields` and `blocking_keys` hold keyed fingerprints only.
 */
import { storedDate, storedJson } from '@svc/platform';
import type { EntityTypeId, FieldSets, IdentityRecord, IdentityStatus, SourceOrigin } from '../domain/index.js';
import { type Sql } from './sql.js';

export const RECORDS = 'identity_records';
export const BLOCKING_KEYS = 'identity_blocking_keys';
export const SOURCES = 'identity_sources';
export const MATCH_HISTORY = 'identity_match_history';
export const LINEAGE = 'identity_lineage';
export const CHANGE_REQUESTS = 'identity_change_requests';
export const AUDIT = 'identity_audit';
export const BOUNDARY_OBSERVATIONS = 'identity_boundary_observations';
export const SEQUENCES = 'identity_sequences';
export const KEY_CHECKS = 'identity_key_checks';

export interface IdentityRecordRow {
  gpid: string;
  entity_type: string;
  status: string;
  merged_into: string | null;
  version: number | string;
  fields: unknown;
  blocking_keys: unknown;
  sources: unknown;
  links: unknown;
  created_at: unknown;
  updated_at: unknown;
}

export const RECORD_COLUMNS = ['gpid', 'entity_type', 'status', 'merged_into', 'version', 'fields', 'blocking_keys', 'sources', 'links', 'created_at', 'updated_at'] as const;

export function recordFromRow(row: IdentityRecordRow): IdentityRecord {
  return {
    gpid: row.gpid,
    entityType: row.entity_type as EntityTypeId,
    status: row.status as IdentityStatus,
    mergedInto: row.merged_into ?? null,
    version: Number(row.version),
    fields: storedJson<FieldSets>(row.fields),
    blockingKeys: storedJson<string[]>(row.blocking_keys),
    sources: storedJson<SourceOrigin[]>(row.sources),
    links: storedJson<string[]>(row.links),
    createdAt: storedDate(row.created_at).toISOString(),
    updatedAt: storedDate(row.updated_at).toISOString(),
  };
}

export function rowFromRecord(sql: Sql, record: IdentityRecord): Record<string, unknown> {
  return {
    gpid: record.gpid,
    entity_type: record.entityType,
    status: record.status,
    merged_into: record.mergedInto,
    version: record.version,
    fields: JSON.stringify(record.fields),
    blocking_keys: JSON.stringify(record.blockingKeys),
    sources: JSON.stringify(record.sources),
    links: JSON.stringify(record.links),
    created_at: sql.date(new Date(record.createdAt)),
    updated_at: sql.date(new Date(record.updatedAt)),
  };
}

/** The keys a record is findable by: none once MERGED (stage 3 would skip it anyway). */
export function indexedKeys(record: Pick<IdentityRecord, 'status' | 'blockingKeys'>): string[] {
  return record.status === 'MERGED' ? [] : [...new Set(record.blockingKeys)];
}
