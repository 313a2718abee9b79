import { chunks, storedDate } from '@svc/platform';
import type { MatchType, ResolutionOutcome, ResolveDecisionKind, SourceOrigin, IdentityStatus } from '../domain/index.js';
import { MATCH_HISTORY } from './identity-record.js';
import type { Sql } from './sql.js';

/** One resolve that returned or created a GPID. Match (query only) never writes one. */
export interface MatchHistoryEntry {
  id: number;
  gpid: string;
  subjectGpid: string | null;
  decision: ResolveDecisionKind;
  matchType: MatchType;
  confidence: number;
  status: IdentityStatus;
  source: SourceOrigin;
  partnerGpid: string | null;
  at: Date;
}

export interface MatchHistorySummary {
  total: number;
  firstAt: Date | null;
  lastAt: Date | null;
}

export async function recordResolution(tx: Sql, r: ResolutionOutcome): Promise<void> {
  await recordResolutions(tx, [r]);
}

/** The history rows of several resolves, in their order, with multi-row INSERTs. */
export async function recordResolutions(tx: Sql, resolutions: readonly ResolutionOutcome[]): Promise<void> {
  for (const part of chunks(resolutions, 100)) {
    await tx.table(MATCH_HISTORY).insert(
      part.map((r) => ({
        gpid: r.gpid,
        subject_gpid: r.subjectGpid,
        decision: r.decision,
        match_type: r.matchType,
        confidence: r.confidence,
        status: r.status,
        source: r.source,
        partner_gpid: r.actor,
        created_at: tx.date(new Date(r.at)),
      })),
    );
  }
}

export async function historySummaries(sql: Sql, gpids: readonly string[], partnerGpid?: string): Promise<Map<string, MatchHistorySummary>> {
  const out = new Map<string, MatchHistorySummary>(gpids.map((g) => [g, { total: 0, firstAt: null, lastAt: null }]));
  for (const part of chunks([...new Set(gpids)], 500)) {
    let query = sql.table(MATCH_HISTORY).whereIn('gpid', part);
    if (partnerGpid !== undefined) query = query.where('partner_gpid', partnerGpid);
    const rows = (await query
      .groupBy('gpid')
      .select('gpid')
      .count({ total: '*' })
      .min({ first_at: 'created_at' })
      .max({ last_at: 'created_at' })) as Array<Record<string, unknown>>;
    for (const row of rows) {
      out.set(String(row['gpid']), { total: Number(row['total']), firstAt: storedDate(row['first_at']), lastAt: storedDate(row['last_at']) });
    }
  }
  return out;
}

/** The newest entries of one GPID's history; with `partnerGpid`, only that partner's resolves. */
export async function recentHistory(sql: Sql, gpid: string, limit: number, partnerGpid?: string): Promise<MatchHistoryEntry[]> {
  let query = sql.table(MATCH_HISTORY).where('gpid', gpid);
  if (partnerGpid !== undefined) query = query.where('partner_gpid', partnerGpid);
  const rows = (await query.orderBy('id', 'desc').limit(limit)) as Array<Record<string, unknown>>;
  return rows.map((row) => ({
    id: Number(row['id']),
    gpid: String(row['gpid']),
    subjectGpid: (row['subject_gpid'] as string | null) ?? null,
    decision: row['decision'] as ResolveDecisionKind,
    matchType: row['match_type'] as MatchType,
    confidence: Number(row['confidence']),
    status: row['status'] as IdentityStatus,
    source: row['source'] as SourceOrigin,
    partnerGpid: (row['partner_gpid'] as string | null) ?? null,
    at: storedDate(row['created_at']),
  }));
}
