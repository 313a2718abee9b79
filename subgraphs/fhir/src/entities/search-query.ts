import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import type { Criterion, Prefix, SearchRequest, SearchValue, SortKey } from '../domain/search-request.js';
import { normalizeString } from '../domain/search-index.js';
import { INDEX_TABLES, RESOURCES, knexOf, toStored, whereVisible, type StoredResource } from './resource-store.js';

type QB = Knex.QueryBuilder;

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `column LIKE pattern` with backslash escapes on both dialects (SQLite has no default escape). */
function like(q: QB, column: string, pattern: string): void {
  q.whereRaw(`${column} like ? escape '\\'`, [pattern]);
}

/**
 * `column LIKE 'prefix%'` that an index can serve: SQLite's LIKE is case-insensitive, so it never
 * uses the (binary) index for it, but the same byte range can (the indexed values are already
 * lowercase). PostgreSQL turns the LIKE into that range itself through the varchar_pattern_ops
 * index of m004.
 */
function likePrefix(q: QB, column: string, prefix: string): void {
  like(q, column, `${escapeLike(prefix)}%`);
  const dialect = (q as unknown as { client?: { dialect?: string } }).client?.dialect;
  if (prefix === '' || (dialect !== 'sqlite3' && dialect !== 'better-sqlite3')) return;
  const last = prefix.charCodeAt(prefix.length - 1);
  // SQLite compares UTF-8 bytes (code point order); a surrogate or U+FFFF has no simple successor.
  if ((last >= 0xd800 && last <= 0xdfff) || last === 0xffff) return;
  q.where(column, '>=', prefix).where(column, '<', prefix.slice(0, -1) + String.fromCharCode(last + 1));
}

/** Date comparison of a target range [lowCol, highCol] against a search range, per prefix. */
function dateCondition(q: QB, lowCol: string, highCol: string, prefix: Prefix, low: string, high: string): void {
  switch (prefix) {
    case 'eq':
      q.where(lowCol, '>=', low).where(highCol, '<=', high);
      return;
    case 'ne':
      q.where((w) => w.where(lowCol, '<', low).orWhere(highCol, '>', high));
      return;
    case 'gt':
      q.where(highCol, '>', high);
      return;
    case 'lt':
      q.where(lowCol, '<', low);
      return;
    case 'ge':
      q.where(highCol, '>=', low);
      return;
    case 'le':
      q.where(lowCol, '<=', high);
      return;
    case 'sa':
      q.where(lowCol, '>', high);
      return;
    case 'eb':
      q.where(highCol, '<', low);
      return;
    case 'ap': {
      // Approximately: within 10% of the distance from now, at least a day either side.
      const now = Date.now();
      const slack = Math.max(86_400_000, Math.abs(now - Date.parse(low)) * 0.1);
      q.where(highCol, '>=', new Date(Date.parse(low) - slack).toISOString()).where(lowCol, '<=', new Date(Date.parse(high) + slack).toISOString());
      return;
    }
  }
}

/** Numeric comparison; `eq`, `ne` and `ap` honour the implied precision of the search value. */
function numberCondition(q: QB, col: string, prefix: Prefix, value: number, precision: number): void {
  const half = 0.5 * 10 ** -precision;
  switch (prefix) {
    case 'eq':
      q.where(col, '>=', value - half).where(col, '<', value + half);
      return;
    case 'ne':
      q.where((w) => w.where(col, '<', value - half).orWhere(col, '>=', value + half));
      return;
    case 'gt':
    case 'sa':
      q.where(col, '>', value);
      return;
    case 'lt':
    case 'eb':
      q.where(col, '<', value);
      return;
    case 'ge':
      q.where(col, '>=', value);
      return;
    case 'le':
      q.where(col, '<=', value);
      return;
    case 'ap': {
      const slack = Math.abs(value) * 0.1;
      q.where(col, '>=', value - slack).where(col, '<=', value + slack);
      return;
    }
  }
}

/** The condition one value puts on a row of the criterion's index table (alias `a`). */
function valueCondition(q: QB, c: Criterion, v: SearchValue, a: string): void {
  switch (v.kind) {
    case 'string':
      if (c.table === 'token') like(q, `${a}.text`, `%${escapeLike(normalizeString(v.text))}%`);
      else if (c.modifier === 'exact') q.where(`${a}.exact`, v.text);
      else if (c.modifier === 'contains') like(q, `${a}.value`, `%${escapeLike(normalizeString(v.text))}%`);
      else likePrefix(q, `${a}.value`, normalizeString(v.text));
      return;
    case 'token':
      if (v.code !== undefined) q.where(`${a}.code`, v.code);
      if (v.system === null) q.whereNull(`${a}.system`);
      else if (v.system !== undefined) q.where(`${a}.system`, v.system);
      return;
    case 'date':
      dateCondition(q, `${a}.low`, `${a}.high`, v.prefix, v.range.low, v.range.high);
      return;
    case 'number':
      numberCondition(q, `${a}.value`, v.prefix, v.value, v.precision);
      return;
    case 'quantity':
      numberCondition(q, `${a}.value`, v.prefix, v.value, v.precision);
      if (v.system) q.where(`${a}.system`, v.system);
      if (v.code) {
        const code = v.code;
        q.where((w) => w.where(`${a}.code`, code).orWhere(`${a}.unit`, code));
      }
      return;
    case 'reference':
      if (/^https?:\/\//.test(v.raw)) q.where((w) => w.where(`${a}.reference`, v.raw).orWhere((x) => x.where(`${a}.target_id`, v.id).modify((y) => (v.type ? y.where(`${a}.target_type`, v.type) : y))));
      else {
        q.where(`${a}.target_id`, v.id);
        if (v.type) q.where(`${a}.target_type`, v.type);
      }
      return;
    case 'uri':
      if (c.modifier === 'below') like(q, `${a}.value`, `${escapeLike(v.value)}%`);
      // :above: the stored URI is a prefix of the searched one (substr, not LIKE: URIs hold _ and %).
      else if (c.modifier === 'above') q.whereRaw(`substr(?, 1, length(${a}.value)) = ${a}.value`, [v.value]);
      else q.where(`${a}.value`, v.value);
      return;
    case 'valueset': {
      // A Coding must carry the code system; a bare `code` element (no system indexed) matches by code.
      const bySystem = new Map<string, string[]>();
      for (const { system, code } of v.codes) bySystem.set(system, [...(bySystem.get(system) ?? []), code]);
      q.where((w) => {
        for (const [system, codes] of bySystem) w.orWhere((x) => x.where(`${a}.system`, system).whereIn(`${a}.code`, codes));
        w.orWhere((x) => x.whereNull(`${a}.system`).whereIn(`${a}.code`, [...new Set(v.codes.map((c) => c.code))]));
      });
      return;
    }
    case 'missing':
      return;
  }
}

/** What every criterion needs besides itself: the query builder and whose resources are visible. */
interface Scope {
  knex: Knex;
  visiblePartner: string | null | undefined;
}

/** Current, undeleted, visible resources under alias `r` (the target of a chain, the source of a _has). */
function liveResource(scope: Scope, q: QB, r: string): void {
  q.where(`${r}.deleted`, 0);
  whereVisible(q, `${r}.partner_gpid`, scope.visiblePartner);
}

/**
 * AND one criterion onto a resources query whose alias is `r` (resources of `resourceType`); `depth`
 * makes the aliases of nested subqueries (chains, _has) unique.
 */
function applyCriterion(scope: Scope, q: QB, c: Criterion, r: string, depth: number, resourceType: string): void {
  const { knex } = scope;
  const a = `s${depth}`;
  if (c.table === '_id') {
    const ids = c.values.flatMap((v) => (v.kind === 'token' && v.code ? [v.code] : []));
    if (c.modifier === 'not') q.whereNotIn(`${r}.id`, ids);
    else q.whereIn(`${r}.id`, ids);
    return;
  }
  if (c.table === '_lastUpdated') {
    q.where((w) => {
      for (const v of c.values) if (v.kind === 'date') w.orWhere((x) => dateCondition(x, `${r}.last_updated`, `${r}.last_updated`, v.prefix, v.range.low, v.range.high));
    });
    return;
  }
  const r2 = `r${depth + 1}`;
  if (c.chain) {
    // A reference of c.param points at a live, visible resource that matches the chained criterion.
    const chain = c.chain;
    q.whereExists(
      knex(`${INDEX_TABLES.reference} as ${a}`)
        .select(knex.raw('1'))
        .whereRaw(`${a}.resource_type = ${r}.resource_type and ${a}.resource_id = ${r}.id`)
        .where(`${a}.param`, c.param)
        .where((w) => {
          for (const target of chain) {
            w.orWhere((x) =>
              x.where(`${a}.target_type`, target.type).whereExists(
                knex(`${RESOURCES} as ${r2}`)
                  .select(knex.raw('1'))
                  .whereRaw(`${r2}.resource_type = ${a}.target_type and ${r2}.id = ${a}.target_id`)
                  .modify((y) => liveResource(scope, y, r2))
                  .modify((y) => applyCriterion(scope, y, target.criterion, r2, depth + 2, target.type)),
              ),
            );
          }
        }),
    );
    return;
  }
  if (c.has) {
    // Some live, visible has.sourceType whose c.param refers to this resource matches the criterion.
    const has = c.has;
    q.whereExists(
      knex(`${INDEX_TABLES.reference} as ${a}`)
        .select(knex.raw('1'))
        .where(`${a}.resource_type`, has.sourceType)
        .where(`${a}.param`, c.param)
        .whereRaw(`${a}.target_id = ${r}.id and ${a}.target_type = ${r}.resource_type`)
        .whereExists(
          knex(`${RESOURCES} as ${r2}`)
            .select(knex.raw('1'))
            .whereRaw(`${r2}.resource_type = ${a}.resource_type and ${r2}.id = ${a}.resource_id`)
            .modify((y) => liveResource(scope, y, r2))
            .modify((y) => applyCriterion(scope, y, has.criterion, r2, depth + 2, has.sourceType)),
        ),
    );
    return;
  }
  const table = INDEX_TABLES[c.table];
  const rows = () => knex(`${table} as ${a}`).select(knex.raw('1')).whereRaw(`${a}.resource_type = ${r}.resource_type and ${a}.resource_id = ${r}.id`).where(`${a}.param`, c.param);
  const first = c.values[0];
  if (first?.kind === 'missing') {
    if (first.missing) q.whereNotExists(rows());
    else q.whereExists(rows());
    return;
  }
  const values = (w: QB) => {
    for (const v of c.values) w.orWhere((x) => valueCondition(x, c, v, a));
  };
  if (c.modifier === 'not' || c.modifier === 'not-in') {
    q.whereNotExists(rows().where(values));
    return;
  }
  // `id IN (ids whose index rows match)`, not a correlated EXISTS: the subquery runs once through
  // the (resource_type, param, value) index instead of once per resource of the type, which SQLite
  // would otherwise do (a search then grows linearly with the store).
  q.whereIn(`${r}.id`, knex(`${table} as ${a}`).select(`${a}.resource_id`).where(`${a}.resource_type`, resourceType).where(`${a}.param`, c.param).where(values));
}

/** The sort expression of one key: the smallest (or, descending, largest) indexed value. */
function sortExpression(knex: Knex, key: SortKey): Knex.Raw {
  if (key.table === '_id') return knex.raw('r.id');
  if (key.table === '_lastUpdated') return knex.raw('r.last_updated');
  const table = INDEX_TABLES[key.table];
  const column = { string: 'value', token: 'code', date: key.descending ? 'high' : 'low', number: 'value', quantity: 'value', reference: 'reference', uri: 'value' }[key.table];
  const agg = key.descending ? 'max' : 'min';
  return knex.raw(`(select ${agg}(s.${column}) from ${table} s where s.resource_type = r.resource_type and s.resource_id = r.id and s.param = ?)`, [key.param]);
}

/** Run a parsed search: one page of current, undeleted, visible resources, and the total when asked. */
export async function runSearch(em: EntityManager, request: SearchRequest, visiblePartner: string | null | undefined): Promise<{ rows: StoredResource[]; total: number | undefined; hasMore: boolean }> {
  const knex = knexOf(em);
  const scope: Scope = { knex, visiblePartner };
  const base = () => {
    const q = knex(`${RESOURCES} as r`).where('r.resource_type', request.resourceType);
    liveResource(scope, q, 'r');
    for (const c of request.criteria) applyCriterion(scope, q, c, 'r', 0, request.resourceType);
    return q;
  };
  let total: number | undefined;
  if (request.summaryCount || request.total !== 'none') {
    const [row] = (await base().count({ n: '*' })) as { n: number | string }[];
    total = Number(row?.n ?? 0);
  }
  if (request.summaryCount || request.count === 0) return { rows: [], total, hasMore: false };
  const q = base().select('r.*');
  for (const key of request.sort) q.orderByRaw(`${sortExpression(knex, key).toQuery()} ${key.descending ? 'desc' : 'asc'}`);
  // Oldest first, then id: a resource created later lands on a later page, so links stay stable.
  q.orderBy('r.last_updated', 'asc').orderBy('r.id', 'asc');
  const rows = (await q.offset(request.offset).limit(request.count + 1)) as Parameters<typeof toStored>[0][];
  return { rows: rows.slice(0, request.count).map(toStored), total, hasMore: rows.length > request.count };
}

/** At most this many resources are added by _include/_revinclude to one page. */
export const MAX_INCLUDED = 1000;
/** _include:iterate / _revinclude:iterate follow included resources at most this many more rounds. */
export const MAX_ITERATE_ROUNDS = 3;

const CHUNK = 500;

function chunks<T>(list: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

const keyOf = (r: { resourceType: string; id: string }) => `${r.resourceType}/${r.id}`;

/**
 * The resources `_include` and `_revinclude` add to a page: only current, undeleted resources the
 * caller may see (the same tenancy as the search itself). Round 0 follows every spec from the
 * matches; later rounds follow only `:iterate` specs from what the previous round added, at most
 * MAX_ITERATE_ROUNDS rounds and MAX_INCLUDED resources.
 */
export async function runIncludes(em: EntityManager, request: SearchRequest, matches: readonly StoredResource[], visiblePartner: string | null | undefined): Promise<StoredResource[]> {
  if (request.include.length === 0 && request.revinclude.length === 0) return [];
  const knex = knexOf(em);
  const seen = new Set(matches.map(keyOf));
  const included: StoredResource[] = [];
  let frontier: readonly StoredResource[] = matches;
  for (let round = 0; round <= MAX_ITERATE_ROUNDS && frontier.length > 0 && included.length < MAX_INCLUDED; round++) {
    const wanted = new Map<string, Set<string>>();
    const want = (type: string | null, id: string | null) => {
      if (!type || !id || seen.has(`${type}/${id}`)) return;
      let set = wanted.get(type);
      if (!set) wanted.set(type, (set = new Set()));
      set.add(id);
    };
    for (const spec of request.include) {
      if (round > 0 && !spec.iterate) continue;
      const sources = frontier.filter((r) => r.resourceType === spec.sourceType).map((r) => r.id);
      for (const ids of chunks(sources)) {
        const q = knex(`${INDEX_TABLES.reference}`).select('target_type', 'target_id').where({ resource_type: spec.sourceType, param: spec.param }).whereIn('resource_id', ids);
        if (spec.targetType) q.where('target_type', spec.targetType);
        for (const row of (await q) as { target_type: string | null; target_id: string | null }[]) want(row.target_type, row.target_id);
      }
    }
    for (const spec of request.revinclude) {
      if (round > 0 && !spec.iterate) continue;
      const byType = new Map<string, string[]>();
      for (const r of frontier) if (!spec.targetType || spec.targetType === r.resourceType) byType.set(r.resourceType, [...(byType.get(r.resourceType) ?? []), r.id]);
      for (const [type, all] of byType) {
        for (const ids of chunks(all)) {
          const rows = (await knex(`${INDEX_TABLES.reference}`).select('resource_id').where({ resource_type: spec.sourceType, param: spec.param, target_type: type }).whereIn('target_id', ids)) as { resource_id: string }[];
          for (const row of rows) want(spec.sourceType, row.resource_id);
        }
      }
    }
    const added: StoredResource[] = [];
    for (const [type, idSet] of wanted) {
      for (const ids of chunks([...idSet])) {
        const q = knex(RESOURCES).where('resource_type', type).where('deleted', 0).whereIn('id', ids);
        whereVisible(q, 'partner_gpid', visiblePartner);
        for (const row of (await q) as Parameters<typeof toStored>[0][]) {
          const stored = toStored(row);
          if (seen.has(keyOf(stored)) || included.length + added.length >= MAX_INCLUDED) continue;
          seen.add(keyOf(stored));
          added.push(stored);
        }
      }
    }
    included.push(...added);
    frontier = added;
  }
  return included;
}
