/**
 * Which GPIDs a partner has a link to (tenant isolation of identity reads). The registry keeps one
 * `identity_match_history` row per resolve with the resolving partner and its source origin: that
 * row is the partner's link. A link reaches the whole current merge tree of the GPID (the terminal
 * survivor and every record merged into it, transitively), since those records are one identity;
 * a split takes the restored record out of the tree again. See the subgraph README, "Tenant
 * isolation".
 */
import { chunks, storedDate } from '@svc/platform';
import { MATCH_HISTORY, RECORDS } from './identity-record.js';
import type { SourceConfirmation } from './sources.js';
import type { Sql } from './sql.js';
import type { SourceOrigin } from '../domain/index.js';

/** A partner's view of one GPID. */
export interface PartnerLink {
  /** The partner resolved this GPID or a record of its merge tree. */
  linked: boolean;
  /** The partner's own resolves of this GPID and of the records merged into it, per source origin. */
  sources: SourceConfirmation[];
}

const NOT_LINKED: PartnerLink = Object.freeze({ linked: false, sources: [] }) as PartnerLink;
/** Bound on merge chains walked (a chain longer than this is an operator's problem, not a read's). */
const MAX_DEPTH = 32;

async function mergedIntoOf(sql: Sql, gpids: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const part of chunks([...new Set(gpids)], 500)) {
    const rows = (await sql.table(RECORDS).whereIn('gpid', part).select('gpid', 'merged_into')) as Array<{ gpid: string; merged_into: string | null }>;
    for (const row of rows) out.set(String(row.gpid), row.merged_into ?? null);
  }
  return out;
}

async function childrenOf(sql: Sql, gpids: readonly string[]): Promise<Array<{ gpid: string; parent: string }>> {
  const out: Array<{ gpid: string; parent: string }> = [];
  for (const part of chunks([...new Set(gpids)], 500)) {
    const rows = (await sql.table(RECORDS).whereIn('merged_into', part).select('gpid', 'merged_into')) as Array<{ gpid: string; merged_into: string }>;
    for (const row of rows) out.push({ gpid: String(row.gpid), parent: String(row.merged_into) });
  }
  return out;
}

/** The partner's resolves per GPID and source origin (first, last, count). */
async function resolutionsOf(sql: Sql, partnerGpid: string, gpids: readonly string[]): Promise<Map<string, SourceConfirmation[]>> {
  const out = new Map<string, SourceConfirmation[]>();
  for (const part of chunks([...new Set(gpids)], 500)) {
    const rows = (await sql
      .table(MATCH_HISTORY)
      .whereIn('gpid', part)
      .where('partner_gpid', partnerGpid)
      .groupBy('gpid', 'source')
      .select('gpid', 'source')
      .count({ total: '*' })
      .min({ first_at: 'created_at' })
      .max({ last_at: 'created_at' })) as Array<Record<string, unknown>>;
    for (const row of rows) {
      const gpid = String(row['gpid']);
      const list = out.get(gpid) ?? [];
      list.push({ gpid, source: row['source'] as SourceOrigin, firstConfirmedAt: storedDate(row['first_at']), lastConfirmedAt: storedDate(row['last_at']), confirmations: Number(row['total']) });
      out.set(gpid, list);
    }
  }
  return out;
}

/** Adds up confirmations per source (earliest first time, latest last time), first confirmed first. */
function combine(gpid: string, lists: readonly SourceConfirmation[][]): SourceConfirmation[] {
  const bySource = new Map<SourceOrigin, SourceConfirmation>();
  for (const list of lists) {
    for (const c of list) {
      const mine = bySource.get(c.source);
      if (!mine) bySource.set(c.source, { ...c, gpid });
      else {
        if (c.firstConfirmedAt < mine.firstConfirmedAt) mine.firstConfirmedAt = c.firstConfirmedAt;
        if (c.lastConfirmedAt > mine.lastConfirmedAt) mine.lastConfirmedAt = c.lastConfirmedAt;
        mine.confirmations += c.confirmations;
      }
    }
  }
  return [...bySource.values()].sort((a, b) => a.firstConfirmedAt.getTime() - b.firstConfirmedAt.getTime() || a.source.localeCompare(b.source));
}

/**
 * The partner's link to each of `gpids` (unknown GPIDs are simply not linked). A handful of
 * statements however many GPIDs: up the merge chains, down the merge trees, then the partner's
 * resolves of every tree member.
 */
export async function partnerLinks(sql: Sql, partnerGpid: string | null, gpids: readonly string[]): Promise<Map<string, PartnerLink>> {
  const out = new Map<string, PartnerLink>(gpids.map((g) => [g, NOT_LINKED]));
  if (!partnerGpid || gpids.length === 0) return out;

  // Up: every record's survivor chain.
  const parent = await mergedIntoOf(sql, gpids);
  let frontier = [...new Set([...parent.values()].filter((p): p is string => p !== null && !parent.has(p)))];
  for (let depth = 0; frontier.length > 0 && depth < MAX_DEPTH; depth++) {
    const found = await mergedIntoOf(sql, frontier);
    for (const gpid of frontier) parent.set(gpid, found.get(gpid) ?? null);
    frontier = [...new Set([...found.values()].filter((p): p is string => p !== null && !parent.has(p)))];
  }
  const rootOf = (gpid: string): string => {
    let current = gpid;
    const seen = new Set([gpid]);
    for (;;) {
      const next = parent.get(current);
      if (!next || seen.has(next) || !parent.has(next)) return current;
      seen.add(next);
      current = next;
    }
  };

  // Down: every root's tree.
  const children = new Map<string, string[]>();
  const members = new Set<string>();
  const roots = new Set(gpids.filter((g) => parent.has(g)).map(rootOf));
  for (const root of roots) members.add(root);
  frontier = [...roots];
  for (let depth = 0; frontier.length > 0 && depth < MAX_DEPTH; depth++) {
    const next: string[] = [];
    for (const { gpid, parent: of } of await childrenOf(sql, frontier)) {
      if (members.has(gpid)) continue;
      members.add(gpid);
      children.set(of, [...(children.get(of) ?? []), gpid]);
      next.push(gpid);
    }
    frontier = next;
  }
  const subtree = (gpid: string): string[] => {
    const all = [gpid];
    for (let i = 0; i < all.length && all.length <= 10_000; i++) all.push(...(children.get(all[i]!) ?? []));
    return all;
  };

  const resolutions = await resolutionsOf(sql, partnerGpid, [...members]);
  const linkedRoots = new Set([...roots].filter((root) => subtree(root).some((m) => resolutions.has(m))));
  for (const gpid of gpids) {
    if (!parent.has(gpid) || !linkedRoots.has(rootOf(gpid))) continue;
    out.set(gpid, { linked: true, sources: combine(gpid, subtree(gpid).map((m) => resolutions.get(m) ?? [])) });
  }
  return out;
}
