import { chunks, knexOf, readRows } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { TOTAL_EXACT_LIMIT, type Criterion, type Prefix, type SearchRequest, type SearchValue, type SortKey } from '../domain/search-request.js';
import type { PageCursor, RowPosition } from '../domain/search-cursor.js';
import { normalizeString } from '../domain/search-index.js';
import { selectLinkedGpid } from './gpid-link-store.js';
import { dialectOf, INDEX_TABLES, isSqliteClient, RESOURCES, toStored, whereVisible, type ResourceView, type StoredResource } from './resource-store.js';

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
  if (prefix === '' || !isSqliteClient(q)) return;
  const last = prefix.charCodeAt(prefix.length - 1);
  // SQLite compares UTF-8 bytes (code point order); a surrogate or U+FFFF has no simple successor.
  if ((last >= 0xd800 && last <= 0xdfff) || last === 0xffff) return;
  q.where(column, '>=', prefix).where(column, '<', prefix.slice(0, -1) + String.fromCharCode(last + 1));
}

/** Date comparison of a target range [lowCol, highCol] against a search range, per prefix. */
function dateCondition(q: QB, lowCol: string, highCol: string, prefix: Prefix, low: string, high: string): void {
  switch (prefix) {
    case 'eq':
      // `low <= high` follows from the other two for every target range (low <= its high), and it
      // closes the range on the index that leads with low: the read is the matching rows, not every
      // row after `low` (or before `high`), which grew with the store (Patient?birthdate=…).
      q.where(lowCol, '>=', low).where(lowCol, '<=', high).where(highCol, '<=', high);
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
      // A Coding must carry the code system; a `code` element indexed without one (unbound, or not a
      // required binding: see implicit-code-systems.ts) matches by code.
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
    case 'composite':
      v.parts.forEach((part, i) => componentCondition(q, part, `${a}.c${i}_`));
      return;
  }
}

/** One part of a composite value on its component's cells (columns `prefix` + system, code, num…). */
function componentCondition(q: QB, v: SearchValue, prefix: string): void {
  switch (v.kind) {
    case 'token':
      if (v.code !== undefined) q.where(`${prefix}code`, v.code);
      if (v.system === null) q.whereNull(`${prefix}system`);
      else if (v.system !== undefined) q.where(`${prefix}system`, v.system);
      return;
    case 'quantity':
      numberCondition(q, `${prefix}num`, v.prefix, v.value, v.precision);
      if (v.system) q.where(`${prefix}system`, v.system);
      if (v.code) {
        const code = v.code;
        q.where((w) => w.where(`${prefix}code`, code).orWhere(`${prefix}unit`, code));
      }
      return;
    case 'number':
      numberCondition(q, `${prefix}num`, v.prefix, v.value, v.precision);
      return;
    case 'date':
      dateCondition(q, `${prefix}low`, `${prefix}high`, v.prefix, v.range.low, v.range.high);
      return;
    case 'string':
      like(q, `${prefix}code`, `${escapeLike(normalizeString(v.text))}%`);
      return;
    case 'reference':
      q.where(`${prefix}code`, v.id);
      if (v.type) q.where(`${prefix}system`, v.type);
      return;
    case 'uri':
      q.where(`${prefix}code`, v.value);
      return;
    default:
      q.whereRaw('1 = 0');
  }
}

/** The condition that a row of the criterion's index table (alias `a`) matches one of its values. */
function anyValue(c: Criterion, a: string): (w: QB) => void {
  return (w) => {
    for (const v of c.values) w.orWhere((x) => valueCondition(x, c, v, a));
  };
}

/** The rows of an index criterion's `table` (alias `a`) that match it, for resources of `resourceType`. */
function matchingIndexRows(knex: Knex, table: string, c: Criterion, resourceType: string, a: string): QB {
  return knex(`${table} as ${a}`).where(`${a}.resource_type`, resourceType).where(`${a}.param`, c.param).where(anyValue(c, a));
}

/** What every criterion needs besides itself: the query builder and whose resources are visible. */
interface Scope {
  knex: Knex;
  visiblePartner: ResourceView;
}

/** Current, undeleted, visible resources of `resourceType` under alias `r` (the target of a chain, the source of a _has). */
function liveResource(scope: Scope, q: QB, r: string, resourceType: string): void {
  q.where(`${r}.deleted`, 0);
  whereVisible(q, `${r}.partner_gpid`, scope.visiblePartner, resourceType);
}

/**
 * The columns a criterion's probes correlate on: the resource's own (`r.resource_type`, `r.id`), or
 * the same values in a row the query reads before the resource (a sorted walk's date-index row), so
 * that a probe can refuse that row before the resource row is read.
 */
interface Anchor {
  type: string;
  id: string;
}

/**
 * AND one criterion onto a resources query whose alias is `r` (resources of `resourceType`); `depth`
 * makes the aliases of nested subqueries (chains, _has) unique.
 */
function applyCriterion(scope: Scope, q: QB, c: Criterion, r: string, depth: number, resourceType: string, drives = true, anchor: Anchor = { type: `${r}.resource_type`, id: `${r}.id` }): void {
  const { knex } = scope;
  const a = `s${depth}`;
  if (c.table === '_id') {
    const ids = c.values.flatMap((v) => (v.kind === 'token' && v.code ? [v.code] : []));
    if (c.modifier === 'not') q.whereNotIn(anchor.id, ids);
    else q.whereIn(anchor.id, ids);
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
        .whereRaw(`${a}.resource_type = ${anchor.type} and ${a}.resource_id = ${anchor.id}`)
        .where(`${a}.param`, c.param)
        .where((w) => {
          for (const target of chain) {
            w.orWhere((x) =>
              x.where(`${a}.target_type`, target.type).whereExists(
                knex(`${RESOURCES} as ${r2}`)
                  .select(knex.raw('1'))
                  .whereRaw(`${r2}.resource_type = ${a}.target_type and ${r2}.id = ${a}.target_id`)
                  .modify((y) => liveResource(scope, y, r2, target.type))
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
        .whereRaw(`${a}.target_id = ${anchor.id} and ${a}.target_type = ${anchor.type}`)
        .whereExists(
          knex(`${RESOURCES} as ${r2}`)
            .select(knex.raw('1'))
            .whereRaw(`${r2}.resource_type = ${a}.resource_type and ${r2}.id = ${a}.resource_id`)
            .modify((y) => liveResource(scope, y, r2, has.sourceType))
            .modify((y) => applyCriterion(scope, y, has.criterion, r2, depth + 2, has.sourceType)),
        ),
    );
    return;
  }
  const table = INDEX_TABLES[c.table];
  const rows = () => knex(`${table} as ${a}`).select(knex.raw('1')).whereRaw(`${a}.resource_type = ${anchor.type} and ${a}.resource_id = ${anchor.id}`).where(`${a}.param`, c.param);
  const first = c.values[0];
  if (first?.kind === 'missing') {
    if (first.missing) q.whereNotExists(rows());
    else q.whereExists(rows());
    return;
  }
  const values = anyValue(c, a);
  if (c.modifier === 'not' || c.modifier === 'not-in') {
    q.whereNotExists(rows().where(values));
    return;
  }
  if (!drives) {
    // Probed per candidate through the (resource_type, resource_id) index: a few index rows each.
    q.whereExists(rows().where(values));
    return;
  }
  // The driving criterion: `id IN (ids whose index rows match)`, which runs once through the
  // (resource_type, param, value) index and hands the candidates to the other criteria.
  q.whereIn(anchor.id, matchingIndexRows(knex, table, c, resourceType, a).select(`${a}.resource_id`));
}

/**
 * How many resources a criterion is likely to leave, as a rank (lower: fewer). Known from the shape
 * of the criterion alone, without statistics: an id, a reference to one resource or an exact
 * identifier match few resources; a code of a code system or a day many more; a status, a gender
 * or an open date range a large part of the type.
 */
function selectivity(c: Criterion): number {
  if (c.chain || c.has) return 9;
  if (c.modifier === 'not' || c.modifier === 'not-in' || c.values.some((v) => v.kind === 'missing')) return 10;
  if (c.table === '_id') return 0;
  if (c.table === '_lastUpdated') return 8;
  const ranks = c.values.map((v): number => {
    switch (v.kind) {
      case 'reference':
        return 1;
      case 'token':
        if (c.param === 'identifier' || c.param === '_id') return 1;
        return v.system !== undefined && v.system !== null && v.code !== undefined ? 3 : 6;
      case 'string':
        return c.modifier === 'exact' ? 2 : c.modifier === 'contains' || c.table === 'token' ? 7 : normalizeString(v.text).length >= 3 ? 4 : 6;
      case 'date':
        return v.prefix === 'eq' || v.prefix === 'ap' ? (v.range.low.slice(0, 10) === v.range.high.slice(0, 10) ? 2 : 5) : 8;
      case 'uri':
        return 3;
      case 'composite':
        return 3;
      default:
        return 7;
    }
  });
  // OR-ed values add up: the criterion is as wide as its widest value, and a little wider.
  return Math.max(...ranks) + (ranks.length > 1 ? 0.5 : 0);
}

/**
 * Which criterion drives the query (`IN`, run once); every other one is an `EXISTS` probed per
 * candidate. SQLite materialises every `IN` list of a query, so two `IN`s made each search as slow
 * as its least selective criterion (`subject=…&code=…` read every Observation of the code).
 */
function drivingIndex(criteria: readonly Criterion[]): number {
  let best = -1;
  let bestRank = Infinity;
  criteria.forEach((c, i) => {
    if (c.chain || c.has || c.table === '_lastUpdated' || c.modifier === 'not' || c.modifier === 'not-in' || c.values[0]?.kind === 'missing') return;
    const rank = selectivity(c);
    if (rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  });
  return best;
}

/**
 * AND parsed criteria onto a query of the resources table aliased `r`, with chains and `_has`
 * reaching only what `visiblePartner` may see (bulk export's `_typeFilter` uses it).
 */
export function applyCriteria(knex: Knex, q: QB, resourceType: string, criteria: readonly Criterion[], visiblePartner: ResourceView): void {
  const scope: Scope = { knex, visiblePartner };
  const driving = drivingIndex(criteria);
  criteria.forEach((c, i) => applyCriterion(scope, q, c, 'r', 0, resourceType, i === driving));
}

/** The sort expression of one key: the smallest (or, descending, largest) indexed value. */
function sortExpression(knex: Knex, key: SortKey): Knex.Raw {
  if (key.table === '_id') return knex.raw('r.id');
  if (key.table === '_lastUpdated') return knex.raw('r.last_updated');
  const table = INDEX_TABLES[key.table];
  const column = { string: 'value', token: 'code', date: key.descending ? 'high' : 'low', number: 'value', quantity: 'value', reference: 'reference', uri: 'value', composite: 'c0_code' }[key.table];
  const agg = key.descending ? 'max' : 'min';
  return knex.raw(`(select ${agg}(s.${column}) from ${table} s where s.resource_type = r.resource_type and s.resource_id = r.id and s.param = ?)`, [key.param]);
}

/** The result of runSearch: one page in order, each row's position (for cursors), and the neighbours. */
export interface SearchPage {
  rows: StoredResource[];
  positions: RowPosition[];
  total: number | undefined;
  /** More rows follow the page (a `next` link). */
  hasMore: boolean;
  /** Rows precede the page (a `previous` link). */
  hasPrevious: boolean;
}

/**
 * The keyset condition "the row comes after (or, `before`, before) the cursor's position" in the
 * order `sort keys (nulls last), last_updated, id`: OR over each level of "equal on the earlier
 * levels and strictly beyond on this one".
 */
function keysetCondition(q: QB, exprs: string[], request: SearchRequest, cursor: PageCursor): void {
  const before = cursor.direction === 'prev';
  const levels: { tie: [string, unknown[]]; beyond: [string, unknown[]] | null }[] = exprs.map((e, i) => {
    const v = cursor.keys[i] ?? null;
    const desc = request.sort[i]!.descending;
    if (v === null) return { tie: [`${e} is null`, []], beyond: before ? [`${e} is not null`, []] : null };
    const op = desc !== before ? '<' : '>';
    return { tie: [`${e} = ?`, [v]], beyond: before ? [`${e} ${op} ?`, [v]] : [`(${e} ${op} ? or ${e} is null)`, [v]] };
  });
  const op = before ? '<' : '>';
  levels.push({ tie: ['r.last_updated = ?', [cursor.lastUpdated]], beyond: [`r.last_updated ${op} ?`, [cursor.lastUpdated]] });
  levels.push({ tie: ['r.id = ?', [cursor.id]], beyond: [`r.id ${op} ?`, [cursor.id]] });
  q.where((w) => {
    levels.forEach((level, i) => {
      if (!level.beyond) return;
      const parts = [...levels.slice(0, i).map((l) => l.tie), level.beyond];
      w.orWhereRaw(parts.map(([sql]) => `(${sql})`).join(' and '), parts.flatMap(([, b]) => b) as Knex.RawBinding[]);
    });
  });
}

/**
 * Run a parsed search: one page of current, undeleted, visible resources, and the total when asked.
 * Order: the `_sort` keys (a resource without a value for a key comes last, on both databases),
 * then oldest `last_updated` first, then id. With a `_cursor` the page is the rows strictly after
 * (or before) the cursor's position in that order (keyset paging), otherwise `_offset` rows in.
 */
export async function runSearch(em: EntityManager, request: SearchRequest, visiblePartner: ResourceView): Promise<SearchPage> {
  const knex = knexOf(em);
  const scope: Scope = { knex, visiblePartner };
  /** `walk`: the caller drives the query (an index walk) and joins its row: every criterion is a probe on it. */
  const base = (walk?: Anchor) => {
    const q = knex(`${RESOURCES} as r`).where('r.resource_type', request.resourceType);
    liveResource(scope, q, 'r', request.resourceType);
    const driving = walk ? -1 : drivingIndex(request.criteria);
    request.criteria.forEach((c, i) => applyCriterion(scope, q, c, 'r', 0, request.resourceType, i === driving, walk));
    return q;
  };
  /**
   * The matches to count. On SQLite, with an index criterion driving, a join from its index rows:
   * the distinct resource ids come in that index's order, so SQLite streams them to the limit, where
   * `id IN (…)` first listed every match (`code=…` at 100,000 resources: 2.5 ms → 0.9 ms for a
   * bounded total). PostgreSQL plans `IN` as a semi-join already, and the join was no faster there.
   */
  const countable = (): QB => {
    const driving = drivingIndex(request.criteria);
    const c = request.criteria[driving];
    if (!c || c.table === '_id' || c.table === '_lastUpdated' || dialectOf(knex) === 'postgresql') return base().select(knex.raw('1'));
    const q = matchingIndexRows(knex, INDEX_TABLES[c.table], c, request.resourceType, 'd').distinct('d.resource_id');
    outerFirst(knex, q, `${INDEX_TABLES[c.table]} as d`, 'r.resource_type = d.resource_type and r.id = d.resource_id');
    liveResource(scope, q, 'r', request.resourceType);
    request.criteria.forEach((other, i) => i !== driving && applyCriterion(scope, q, other, 'r', 0, request.resourceType, false));
    return q;
  };
  let total: number | undefined;
  if (request.summaryCount || request.total === 'accurate') {
    const [row] = await readRows<{ n: number | string }>(knex, knex.from(countable().as('m')).count({ n: '*' }));
    total = Number(row?.n ?? 0);
  }
  /** Counting stops after TOTAL_EXACT_LIMIT + 1 matches: the total is exact up to the limit, left out beyond. */
  const boundedTotal = async (): Promise<number | undefined> => {
    const [row] = await readRows<{ n: number | string }>(knex, knex.from(countable().limit(TOTAL_EXACT_LIMIT + 1).as('m')).count({ n: '*' }));
    const n = Number(row?.n ?? 0);
    return n > TOTAL_EXACT_LIMIT ? undefined : n;
  };
  const cursor = request.cursor;
  if (request.summaryCount || request.count === 0) {
    if (request.total === 'bounded' && !request.summaryCount) total = await boundedTotal();
    return { rows: [], positions: [], total, hasMore: false, hasPrevious: false };
  }
  type PageRow = { id: string; last_updated: string } & Record<string, unknown>;
  // 1. The page: ids, lastUpdated and sort values of the matches, ordered.
  const walked = await sortedByIndex(knex, request, base);
  const fetched: PageRow[] = walked ?? (await sortedPage(knex, request, base));
  const more = fetched.length > request.count;
  if (request.total === 'bounded') {
    // A first page that holds every match is its own count.
    total = !cursor && request.offset === 0 && !more ? fetched.length : await boundedTotal();
  }
  const backwards = cursor?.direction === 'prev';
  const exprs = request.sort.map((_key, i) => `r.sort_${i}`);
  const page = fetched.slice(0, request.count);
  if (backwards) page.reverse();
  // 2. Those resources' rows, by primary key (still current, undeleted and visible: a write may
  //    have come in between; such a resource is left out of the page).
  const byId = new Map<string, StoredResource>();
  for (const ids of chunks(page.map((row) => row.id), CHUNK)) {
    const rowsQuery = knex(`${RESOURCES} as r`).where('r.resource_type', request.resourceType).whereIn('r.id', ids).select('r.*');
    if (request.resourceType === 'Patient') selectLinkedGpid(rowsQuery, 'r');
    liveResource(scope, rowsQuery, 'r', request.resourceType);
    for (const row of await readRows<Parameters<typeof toStored>[0]>(knex, rowsQuery)) byId.set(row.id, toStored(row));
  }
  const kept = page.filter((row) => byId.has(row.id));
  const positions = kept.map((row) => ({
    keys: exprs.map((_e, i) => {
      const v = row[`sort_${i}`];
      return typeof v === 'number' || typeof v === 'string' ? v : v === null || v === undefined ? null : String(v);
    }),
    lastUpdated: row.last_updated,
    id: row.id,
  }));
  return {
    rows: kept.map((row) => byId.get(row.id)!),
    positions,
    total,
    hasMore: backwards ? true : more,
    hasPrevious: backwards ? more : cursor !== undefined || request.offset > 0,
  };
}

/**
 * One page (count + 1 rows) in the full order: the sort values are computed once per match in a
 * derived table, and the sort carries only these few columns, not every match's JSON content.
 */
async function sortedPage(knex: Knex, request: SearchRequest, base: () => QB): Promise<({ id: string; last_updated: string } & Record<string, unknown>)[]> {
  const cursor = request.cursor;
  const inner = base().select('r.id', 'r.last_updated');
  request.sort.forEach((key, i) => inner.select(knex.raw(`${sortExpression(knex, key).toQuery()} as sort_${i}`)));
  const exprs = request.sort.map((_key, i) => `r.sort_${i}`);
  const q = knex.from(inner.as('r')).select('r.*');
  // Reading backwards (a `previous` link) walks the same order reversed, then flips the page.
  const backwards = cursor?.direction === 'prev';
  // NULLS LAST / FIRST (SQLite 3.30+, PostgreSQL) rather than a CASE term: the ORDER BY then names
  // the selected column itself, so SQLite does not evaluate the sort subquery a second time.
  exprs.forEach((e, i) => {
    const desc = request.sort[i]!.descending !== backwards;
    q.orderByRaw(`${e} ${desc ? 'desc' : 'asc'} nulls ${backwards ? 'first' : 'last'}`);
  });
  q.orderBy('r.last_updated', backwards ? 'desc' : 'asc').orderBy('r.id', backwards ? 'desc' : 'asc');
  if (cursor) keysetCondition(q, exprs, request, cursor);
  else q.offset(request.offset);
  return readRows<{ id: string; last_updated: string } & Record<string, unknown>>(knex, q.limit(request.count + 1));
}

/**
 * Runs the walk of `sortedByIndex` as one on PostgreSQL: without parallel workers (a Gather Merge
 * above the walk has each worker read ahead of the page: 2,916 date rows for 30 matches where a
 * serial walk reads 433) and without a full sort (a plan that sorts every match is what the walk
 * is there to avoid; the planner picks one when it underestimates a code's matches). Both are
 * `SET LOCAL`, in a transaction of its own (or until the end of the caller's, when `knex` is one).
 */
async function asIndexWalk<T>(knex: Knex, q: QB): Promise<T[]> {
  if (dialectOf(knex) !== 'postgresql') return readRows<T>(knex, q);
  return knex.transaction(async (trx) => {
    await trx.raw('set local max_parallel_workers_per_gather = 0; set local enable_sort = off');
    return (await q.transacting(trx)) as T[];
  });
}

/**
 * SQLite: reads `q`'s rows from `outer` (an index table), each joined to its resource on
 * `condition`, with `outer` as the outer loop whatever the planner's statistics say (SQLite never
 * reorders the tables of a CROSS JOIN). The statistics `PRAGMA optimize` keeps are sampled
 * (`analysis_limit`, platform/src/db/database.ts) and put about 1,000 rows under a resource type
 * that holds 33,000: planned on them, the sorted code search drove from the partner's resources
 * instead and read every one of them (200 ms at 100,000 resources instead of 1).
 */
function outerFirst(knex: Knex, q: QB, outer: string, condition: string): void {
  q.from(knex.raw('?? cross join ??', [outer, `${RESOURCES} as r`])).whereRaw(condition);
}

/** Rows the index walk reads beyond a page, for resources with several values of the sort parameter. */
const WALK_SLACK = 8;

/**
 * A page sorted on one date parameter, read by walking that parameter's index in order and
 * stopping after a page, instead of computing the sort value of every match and sorting them all
 * (`Observation?code=…&_sort=-date` grew linearly with the Observations of the code). Each index
 * row is joined to its resource and probed against the criteria; a resource is taken only at its
 * row with its latest (`-date`: `high`) or earliest (`date`: `low`) value, its sort value. Used only
 * when it can give the same page as `sortedPage`: one date sort key, a forward first page or
 * `next` cursor with a value, no `_offset`, and no criterion selective enough to be the better
 * driver (a reference or an id: a handful of matches, cheaper to sort). Null when it cannot, or
 * when the walk ran out of dated resources before the page was full (undated resources sort last:
 * `sortedPage` then answers).
 */
async function sortedByIndex(knex: Knex, request: SearchRequest, base: (walk: Anchor) => QB): Promise<({ id: string; last_updated: string } & Record<string, unknown>)[] | null> {
  const key = request.sort[0];
  const cursor = request.cursor;
  if (request.sort.length !== 1 || key?.table !== 'date' || request.offset > 0) return null;
  if (cursor && (cursor.direction !== 'next' || cursor.keys[0] === null || cursor.keys[0] === undefined)) return null;
  const driving = drivingIndex(request.criteria);
  if (driving >= 0 && selectivity(request.criteria[driving]!) < 3) return null;
  const column = key.descending ? 'high' : 'low';
  const order = key.descending ? 'desc' : 'asc';
  // The criteria are probed on the walk's row, so SQLite refuses a row before reading its resource
  // (probed on the resource, each of the ~300 rows a `code=…` page walks read one).
  const q = base({ type: 'ws.resource_type', id: 'ws.resource_id' });
  if (dialectOf(knex) === 'postgresql') q.join(`${INDEX_TABLES.date} as ws`, (j) => j.on('ws.resource_type', '=', 'r.resource_type').andOn('ws.resource_id', '=', 'r.id'));
  else outerFirst(knex, q, `${INDEX_TABLES.date} as ws`, 'ws.resource_type = r.resource_type and ws.resource_id = r.id');
  q.where('ws.param', key.param)
    .whereNotNull(`ws.${column}`)
    // The resource's own sort value (its latest high, earliest low): a resource is met once, at its place.
    .whereNotExists(
      knex(`${INDEX_TABLES.date} as wx`)
        .select(knex.raw('1'))
        .whereRaw(`wx.resource_type = ws.resource_type and wx.resource_id = ws.resource_id and wx.param = ws.param and wx.${column} ${key.descending ? '>' : '<'} ws.${column}`),
    )
    .select('r.id', 'r.last_updated', knex.raw(`ws.${column} as sort_0`))
    .orderBy(`ws.${column}`, order)
    .orderBy('r.last_updated', 'asc')
    .orderBy('r.id', 'asc');
  if (cursor) keysetCondition(q, [`ws.${column}`], request, cursor);
  const wanted = request.count + 1;
  const limit = wanted + WALK_SLACK;
  const rows = await asIndexWalk<{ id: string; last_updated: string } & Record<string, unknown>>(knex, q.limit(limit));
  // Rows of one resource with the same extreme value come together: the first one counts.
  const seen = new Set<string>();
  const page: typeof rows = [];
  for (const row of rows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    page.push(row);
    if (page.length === wanted) return page;
  }
  return null;
}

/** At most this many resources are added by _include/_revinclude to one page. */
export const MAX_INCLUDED = 1000;
/** _include:iterate / _revinclude:iterate follow included resources at most this many more rounds. */
export const MAX_ITERATE_ROUNDS = 3;

/** Ids per `where in` of the include and history lookups. */
const CHUNK = 500;

const keyOf = (r: { resourceType: string; id: string }) => `${r.resourceType}/${r.id}`;

/**
 * The resources `_include` and `_revinclude` add to a page: only current, undeleted resources the
 * caller may see (the same tenancy as the search itself). Round 0 follows every spec from the
 * matches; later rounds follow only `:iterate` specs from what the previous round added, at most
 * MAX_ITERATE_ROUNDS rounds and MAX_INCLUDED resources.
 */
export async function runIncludes(em: EntityManager, request: SearchRequest, matches: readonly StoredResource[], visiblePartner: ResourceView): Promise<StoredResource[]> {
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
      for (const ids of chunks(sources, CHUNK)) {
        const q = knex(`${INDEX_TABLES.reference}`).select('target_type', 'target_id').where({ resource_type: spec.sourceType, param: spec.param }).whereIn('resource_id', ids);
        if (spec.targetType) q.where('target_type', spec.targetType);
        for (const row of (await q) as { target_type: string | null; target_id: string | null }[]) want(row.target_type, row.target_id);
      }
    }
    // One query per referred type for all _revinclude specs at once (`_revinclude=*` has many).
    const revSpecs = request.revinclude.filter((spec) => round === 0 || spec.iterate);
    if (revSpecs.length > 0) {
      const byType = new Map<string, string[]>();
      for (const r of frontier) byType.set(r.resourceType, [...(byType.get(r.resourceType) ?? []), r.id]);
      for (const [type, all] of byType) {
        const fitting = new Set(revSpecs.filter((spec) => !spec.targetType || spec.targetType === type).map((spec) => `${spec.sourceType} ${spec.param}`));
        if (fitting.size === 0) continue;
        const sourceTypes = [...new Set(revSpecs.map((spec) => spec.sourceType))];
        const params = [...new Set(revSpecs.map((spec) => spec.param))];
        for (const ids of chunks(all, CHUNK)) {
          // (resource_type, param, target_id) lead the reference target index.
          const rows = (await knex(`${INDEX_TABLES.reference}`)
            .select('resource_type', 'param', 'resource_id')
            .where('target_type', type)
            .whereIn('target_id', ids)
            .whereIn('resource_type', sourceTypes)
            .whereIn('param', params)) as { resource_type: string; param: string; resource_id: string }[];
          for (const row of rows) if (fitting.has(`${row.resource_type} ${row.param}`)) want(row.resource_type, row.resource_id);
        }
      }
    }
    const added: StoredResource[] = [];
    for (const [type, idSet] of wanted) {
      for (const ids of chunks([...idSet], CHUNK)) {
        const q = knex(`${RESOURCES} as r`).select('r.*').where('r.resource_type', type).where('r.deleted', 0).whereIn('r.id', ids);
        if (type === 'Patient') selectLinkedGpid(q, 'r');
        whereVisible(q, 'r.partner_gpid', visiblePartner, type);
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
