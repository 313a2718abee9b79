import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import type { Criterion, Prefix, SearchRequest, SearchValue, SortKey } from '../domain/search-request.js';
import { normalizeString } from '../domain/search-index.js';
import { INDEX_TABLES, RESOURCES, knexOf, toStored, type StoredResource } from './resource-store.js';

type QB = Knex.QueryBuilder;

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `column LIKE pattern` with backslash escapes on both dialects (SQLite has no default escape). */
function like(q: QB, column: string, pattern: string): void {
  q.whereRaw(`${column} like ? escape '\\'`, [pattern]);
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

/** The condition one value puts on a row of the criterion's index table (alias `s`). */
function valueCondition(q: QB, c: Criterion, v: SearchValue): void {
  switch (v.kind) {
    case 'string':
      if (c.table === 'token') like(q, 's.text', `%${escapeLike(normalizeString(v.text))}%`);
      else if (c.modifier === 'exact') q.where('s.exact', v.text);
      else if (c.modifier === 'contains') like(q, 's.value', `%${escapeLike(normalizeString(v.text))}%`);
      else like(q, 's.value', `${escapeLike(normalizeString(v.text))}%`);
      return;
    case 'token':
      if (v.code !== undefined) q.where('s.code', v.code);
      if (v.system === null) q.whereNull('s.system');
      else if (v.system !== undefined) q.where('s.system', v.system);
      return;
    case 'date':
      dateCondition(q, 's.low', 's.high', v.prefix, v.range.low, v.range.high);
      return;
    case 'number':
      numberCondition(q, 's.value', v.prefix, v.value, v.precision);
      return;
    case 'quantity':
      numberCondition(q, 's.value', v.prefix, v.value, v.precision);
      if (v.system) q.where('s.system', v.system);
      if (v.code) {
        const code = v.code;
        q.where((w) => w.where('s.code', code).orWhere('s.unit', code));
      }
      return;
    case 'reference':
      if (/^https?:\/\//.test(v.raw)) q.where((w) => w.where('s.reference', v.raw).orWhere((x) => x.where('s.target_id', v.id).modify((y) => (v.type ? y.where('s.target_type', v.type) : y))));
      else {
        q.where('s.target_id', v.id);
        if (v.type) q.where('s.target_type', v.type);
      }
      return;
    case 'uri':
      if (c.modifier === 'below') like(q, 's.value', `${escapeLike(v.value)}%`);
      else q.where('s.value', v.value);
      return;
    case 'missing':
      return;
  }
}

/** AND one criterion onto the resources query (alias `r`). */
function applyCriterion(knex: Knex, q: QB, c: Criterion): void {
  if (c.table === '_id') {
    const ids = c.values.flatMap((v) => (v.kind === 'token' && v.code ? [v.code] : []));
    if (c.modifier === 'not') q.whereNotIn('r.id', ids);
    else q.whereIn('r.id', ids);
    return;
  }
  if (c.table === '_lastUpdated') {
    q.where((w) => {
      for (const v of c.values) if (v.kind === 'date') w.orWhere((x) => dateCondition(x, 'r.last_updated', 'r.last_updated', v.prefix, v.range.low, v.range.high));
    });
    return;
  }
  const table = INDEX_TABLES[c.table];
  const sub = (values: SearchValue[]) =>
    knex(`${table} as s`)
      .select(knex.raw('1'))
      .whereRaw('s.resource_type = r.resource_type and s.resource_id = r.id')
      .where('s.param', c.param)
      .where((w) => {
        for (const v of values) w.orWhere((x) => valueCondition(x, c, v));
      });
  const first = c.values[0];
  if (first?.kind === 'missing') {
    if (first.missing) q.whereNotExists(knex(`${table} as s`).select(knex.raw('1')).whereRaw('s.resource_type = r.resource_type and s.resource_id = r.id').where('s.param', c.param));
    else q.whereExists(knex(`${table} as s`).select(knex.raw('1')).whereRaw('s.resource_type = r.resource_type and s.resource_id = r.id').where('s.param', c.param));
    return;
  }
  if (c.modifier === 'not') q.whereNotExists(sub(c.values));
  else q.whereExists(sub(c.values));
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
  const base = () => {
    const q = knex(`${RESOURCES} as r`).where('r.resource_type', request.resourceType).where('r.deleted', 0);
    if (visiblePartner !== undefined) q.where('r.partner_gpid', visiblePartner);
    for (const c of request.criteria) applyCriterion(knex, q, c);
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
