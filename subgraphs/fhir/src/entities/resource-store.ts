import { chunks, knexOf, readRows, readRowsByKey } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import type { SearchIndexRows } from '../domain/search-index.js';
import { patientCompartment } from '../domain/definitions.js';
import { GPID_SYSTEM, projectGpidOnText } from '../domain/gpid-identifier.js';
import { GPID_LINKS, selectLinkedGpid } from './gpid-link-store.js';

/** Where a version stands in the history order (newest first): a history page cursor's anchor. */
export interface HistoryPosition {
  lastUpdated: string;
  id: string;
  versionId: number;
}

/** A stored version of a resource, as the tables hold it. */
export interface StoredResource {
  resourceType: string;
  id: string;
  versionId: number;
  partnerGpid: string | null;
  lastUpdated: string;
  deleted: boolean;
  /**
   * The resource JSON (meta included); null for a deletion in history. A Patient read through a
   * query that selects its link (`selectLinkedGpid`) carries its current GPID identifier here.
   */
  content: string | null;
  /** A Patient read with its link: its current GPID (null: not linked); absent when not read. */
  linkedGpid?: string | null;
}

interface Row {
  resource_type: string;
  id: string;
  version_id: number | string;
  partner_gpid: string | null;
  last_updated: string;
  deleted: boolean | number;
  content: string | null;
  /** Present when the query selected the Patient's link (`selectLinkedGpid`). */
  linked_gpid?: string | null;
}

export const RESOURCES = 'fhir_resources';
export const HISTORY = 'fhir_resource_history';
export const INDEX_TABLES: Readonly<Record<keyof SearchIndexRows, string>> = {
  string: 'fhir_sp_string',
  token: 'fhir_sp_token',
  date: 'fhir_sp_date',
  number: 'fhir_sp_number',
  quantity: 'fhir_sp_quantity',
  reference: 'fhir_sp_reference',
  uri: 'fhir_sp_uri',
  composite: 'fhir_sp_composite',
};

/**
 * The tenancy part of a view: every partner's resources (`undefined`, an operator), none (`null`, a
 * credential without a partner), one partner's (a GPID), or one partner's plus the slices other
 * partners' sharing rules give it (`types` null: every type).
 */
export type TenancyView = string | null | undefined | { partner: string; shared: readonly { owner: string; types: readonly string[] | null }[] };

/**
 * A tenancy view narrowed to one patient's compartment (a credential with a SMART patient launch
 * context): only resources of the R4 Patient compartment of `Patient/{patient}` (the Patient itself,
 * and every resource whose compartment reference parameters point at it), decided on the current
 * search index.
 */
export interface CompartmentView {
  tenancy: TenancyView;
  patient: string;
}

/** What a caller may see: a tenancy view, possibly narrowed to one patient's compartment. */
export type ResourceView = TenancyView | CompartmentView;

export function isCompartmentView(view: ResourceView): view is CompartmentView {
  return typeof view === 'object' && view !== null && 'patient' in view;
}

/** The tenancy part of a view (a compartment view's tenancy, or the view itself). */
export function tenancyOf(view: ResourceView): TenancyView {
  return isCompartmentView(view) ? view.tenancy : view;
}

/**
 * The ids of `resourceType` in the compartment of `Patient/{patient}`, as a subquery of the reference
 * index (led by its `(resource_type, param, target_id)` index); null when the type has no
 * compartment parameters (nothing of it is in any patient's compartment).
 */
function compartmentIds(resourceType: string, patient: string): ((sub: Knex.QueryBuilder) => void) | null {
  const params = patientCompartment().get(resourceType);
  if (!params || params.length === 0) return null;
  return (sub) => {
    sub.select('resource_id').from(INDEX_TABLES.reference).where('resource_type', resourceType).whereIn('param', [...params]).where('target_type', 'Patient').where('target_id', patient);
  };
}

/**
 * Keep only the rows a caller may see (`null` must not become `IS NULL`). `column` is a
 * `partner_gpid` column; a shared slice also tests the `resource_type` column beside it, and a
 * compartment view the `id` column beside it. A compartment view needs `resourceType`, the type of
 * the rows (every query of the store is of one type).
 */
export function whereVisible<Q extends Knex.QueryBuilder>(q: Q, column: string, view: ResourceView, resourceType?: string): Q {
  if (isCompartmentView(view)) {
    if (resourceType === undefined) throw new Error('a patient-compartment view needs the resource type of the rows');
    whereVisible(q, column, view.tenancy);
    const idColumn = column.replace(/partner_gpid$/, 'id');
    const subquery = compartmentIds(resourceType, view.patient);
    if (resourceType === 'Patient') return q.where((w) => (subquery ? w.where(idColumn, view.patient).orWhereIn(idColumn, subquery) : w.where(idColumn, view.patient))) as Q;
    return (subquery ? q.whereIn(idColumn, subquery) : q.whereRaw('1 = 0')) as Q;
  }
  if (view === undefined) return q;
  if (view === null) return q.whereRaw('1 = 0') as Q;
  if (typeof view === 'string') return q.where(column, view) as Q;
  if (view.shared.length === 0) return q.where(column, view.partner) as Q;
  const typeColumn = column.replace(/partner_gpid$/, 'resource_type');
  return q.where((w) => {
    w.where(column, view.partner);
    for (const slice of view.shared) w.orWhere((x) => (slice.types ? x.where(column, slice.owner).whereIn(typeColumn, [...slice.types]) : x.where(column, slice.owner)));
  }) as Q;
}

/**
 * Whether a resource of `owner` and `resourceType` is in the view's tenancy (the same rule as
 * whereVisible). A compartment view's patient is not decided here: use {@link resourceStore.isVisible}.
 */
export function inView(view: ResourceView, owner: string | null, resourceType: string): boolean {
  const tenancy = tenancyOf(view);
  if (tenancy === undefined) return true;
  if (tenancy === null || owner === null) return false;
  if (typeof tenancy === 'string') return tenancy === owner;
  return tenancy.partner === owner || tenancy.shared.some((s) => s.owner === owner && (s.types === null || s.types.includes(resourceType)));
}

/**
 * A row as a stored resource. A Patient row that carries its link (`linked_gpid` selected) gets
 * its current GPID identifier projected onto its content: the link is not versioned content, so
 * every version read shows the Patient's current GPID (see domain/gpid-identifier.ts).
 */
export function toStored(row: Row): StoredResource {
  const linked = row.linked_gpid === undefined ? undefined : (row.linked_gpid ?? null);
  const project = linked !== undefined && row.resource_type === 'Patient' && row.content !== null;
  return {
    resourceType: row.resource_type,
    id: row.id,
    versionId: Number(row.version_id),
    partnerGpid: row.partner_gpid,
    lastUpdated: row.last_updated,
    deleted: Boolean(row.deleted),
    content: project ? projectGpidOnText(row.content!, linked) : row.content,
    ...(linked === undefined ? {} : { linkedGpid: linked }),
  };
}

/**
 * The current version of one resource by its key, written as SQL text (the same statement as
 * `rowsOf(knex, RESOURCES, type).where(…).limit(1)` builds), so a read by id compiles nothing:
 * building and compiling it with the query builder was about 8 % of a FHIR read's CPU. A Patient's
 * has its link (`selectLinkedGpid`).
 */
const CURRENT_SQL = `select "r".* from "${RESOURCES}" as "r" where "r"."resource_type" = ? and "r"."id" = ? limit 1`;
const CURRENT_PATIENT_SQL =
  `select "r".*, "gl"."gpid" as "linked_gpid" from "${RESOURCES}" as "r" ` +
  `left join "${GPID_LINKS}" as "gl" on "gl"."resource_id" = "r"."id" and "r"."resource_type" = 'Patient' ` +
  `where "r"."resource_type" = ? and "r"."id" = ? limit 1`;

/** `fhir_resources` or `fhir_resource_history` rows of `resourceType` as `r`, a Patient's with its link. */
function rowsOf(knex: Knex, table: string, resourceType: string | undefined): Knex.QueryBuilder {
  const q = knex(`${table} as r`).select('r.*');
  return resourceType === 'Patient' ? selectLinkedGpid(q, 'r') : q;
}

function toRow(r: StoredResource): Row {
  return {
    resource_type: r.resourceType,
    id: r.id,
    version_id: r.versionId,
    partner_gpid: r.partnerGpid,
    last_updated: r.lastUpdated,
    // 0/1 binds on both dialects (better-sqlite3 cannot bind booleans; PostgreSQL reads '0'/'1').
    deleted: r.deleted ? 1 : 0,
    content: r.content,
  };
}

/**
 * Rows per bulk INSERT: bounds the size of one statement's JSON (a few MB), not its parameters
 * (there is one).
 */
const ROWS_PER_INSERT = 5_000;

/**
 * Insert `rows` (all with the same columns) with one `INSERT … SELECT` per chunk whose only bound
 * parameter is the chunk as JSON, unpacked by the database: `json_each` on SQLite,
 * `json_populate_recordset` on PostgreSQL (typed by the table's own columns). The database parses
 * the rows in C, so a Bundle's thousands of index rows cost no per-value work in the driver or in
 * knex (a `VALUES (?, ?, …)` list of 16,000 parameters went through knex's placeholder rewriting
 * value by value, and PostgreSQL's `$n` renumbering on top), the statement text is the same for
 * every chunk (SQLite's prepared-statement cache serves it), and no chunk comes near SQLite's
 * 32,766 or PostgreSQL's 65,535 bound-parameter limit.
 */
async function insertBulk<T extends object>(knex: Knex, table: string, rows: readonly T[], alsoInto?: string): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const postgres = !isSqliteClient(knex);
  const from = postgres ? `json_populate_recordset(null::"${table}", ?)` : `json_each(?)`;
  const values = postgres ? list : columns.map((_c, i) => `value ->> ${i}`).join(', ');
  // With `alsoInto` (a table of the same columns), the same rows go there too, from the same JSON:
  // on PostgreSQL in the same statement, so the JSON is sent and parsed once.
  const statements =
    alsoInto === undefined
      ? [`insert into "${table}" (${list}) select ${values} from ${from}`]
      : postgres
        ? [`with written as (insert into "${table}" (${list}) select ${values} from ${from} returning ${list}) insert into "${alsoInto}" (${list}) select ${list} from written`]
        : [`insert into "${table}" (${list}) select ${values} from ${from}`, `insert into "${alsoInto}" (${list}) select ${values} from ${from}`];
  for (const chunk of chunks(rows, ROWS_PER_INSERT)) {
    // PostgreSQL matches object keys to columns (a key left out is NULL); SQLite reads positions.
    const json = postgres ? JSON.stringify(chunk) : JSON.stringify(chunk.map((row) => columns.map((c) => (row as Record<string, unknown>)[c] ?? null)));
    for (const sql of statements) await knex.raw(sql, [json]);
  }
}

/** The knex dialect a connection or query builder speaks (`postgresql`, `better-sqlite3`, …). */
export function dialectOf(knex: Knex | Knex.QueryBuilder): string | undefined {
  return (knex as unknown as { client?: { dialect?: string } }).client?.dialect;
}

export function isSqliteClient(knex: Knex | Knex.QueryBuilder): boolean {
  const dialect = dialectOf(knex);
  return dialect === 'sqlite3' || dialect === 'better-sqlite3';
}

/** A new resource and its search-index rows, written by `insertMany`. */
export interface NewResource {
  stored: StoredResource;
  index: SearchIndexRows;
}

/** The FHIR store's queries: current versions, history and the search index. */
export const resourceStore = {
  /**
   * The current version. Outside a transaction on SQLite it is read on a reader thread
   * (`readRows`), so a read never waits behind a write of this process that waits for the database's
   * write lock (a job thread's transaction Bundle holds it for its whole run).
   */
  async current(db: EntityManager | Knex, resourceType: string, id: string): Promise<StoredResource | null> {
    const knex = typeof db === 'function' ? db : knexOf(db);
    const [row] = await readRowsByKey<Row>(knex, resourceType === 'Patient' ? CURRENT_PATIENT_SQL : CURRENT_SQL, [resourceType, id]);
    return row ? toStored(row) : null;
  },

  /**
   * Whether a stored resource is in the view: its tenancy, and for a compartment view its membership
   * in the patient's compartment (by the current search index).
   */
  async isVisible(db: EntityManager | Knex, view: ResourceView, stored: StoredResource): Promise<boolean> {
    if (!inView(view, stored.partnerGpid, stored.resourceType)) return false;
    if (!isCompartmentView(view)) return true;
    const q = (typeof db === 'function' ? db : knexOf(db))(RESOURCES).select('id').where({ resource_type: stored.resourceType, id: stored.id });
    whereVisible(q, 'partner_gpid', view, stored.resourceType);
    return (await q.first()) !== undefined;
  },

  async version(em: EntityManager, resourceType: string, id: string, versionId: number): Promise<StoredResource | null> {
    const knex = knexOf(em);
    const [row] = await readRows<Row>(knex, rowsOf(knex, HISTORY, resourceType).where({ 'r.resource_type': resourceType, 'r.id': id, 'r.version_id': versionId }).limit(1));
    return row ? toStored(row) : null;
  },

  /** Insert a new resource (version 1) and its history row. */
  async insert(em: EntityManager, r: StoredResource): Promise<void> {
    const knex = knexOf(em);
    await knex(RESOURCES).insert(toRow(r));
    await knex(HISTORY).insert(toRow(r));
  },

  /**
   * Replace the current version when it is still `expectedVersion` (optimistic concurrency); false
   * when another write got there first.
   */
  async replace(em: EntityManager, r: StoredResource, expectedVersion: number): Promise<boolean> {
    const knex = knexOf(em);
    const { resource_type, id, ...changes } = toRow(r);
    const updated = await knex(RESOURCES).where({ resource_type, id, version_id: expectedVersion }).update(changes);
    if (updated !== 1) return false;
    await knex(HISTORY).insert(toRow(r));
    return true;
  },

  /** A deletion's history row keeps no content. */
  async clearVersionContent(em: EntityManager, resourceType: string, id: string, versionId: number): Promise<void> {
    await knexOf(em)(HISTORY).where({ resource_type: resourceType, id, version_id: versionId }).update({ content: null });
  },

  /**
   * Versions of one resource (newest first), or of a type / the whole store when `id` is absent.
   * Order: `last_updated`, then id, then version, all descending. With `cursor` the page is the
   * versions strictly older (`next`) or newer (`prev`, read upwards, then given back newest first)
   * than the cursor's version (keyset paging); otherwise `offset` versions in. `more` tells whether
   * versions follow the page in its reading direction.
   */
  async history(
    em: EntityManager,
    filter: { resourceType?: string; id?: string; partnerGpid?: ResourceView; since?: string; offset: number; limit: number; cursor?: HistoryPosition & { direction: 'next' | 'prev' } },
  ): Promise<{ rows: StoredResource[]; total: number; more: boolean }> {
    const knex = knexOf(em);
    const filtered = (q: Knex.QueryBuilder) => {
      if (filter.resourceType) q.where('r.resource_type', filter.resourceType);
      if (filter.id) q.where('r.id', filter.id);
      whereVisible(q, 'r.partner_gpid', filter.partnerGpid, filter.resourceType);
      if (filter.since) q.where('r.last_updated', '>=', filter.since);
      return q;
    };
    const base = () => filtered(knex(`${HISTORY} as r`));
    const cursor = filter.cursor;
    const upwards = cursor?.direction === 'prev';
    const order = upwards ? 'asc' : 'desc';
    // Patients (of a Patient history, or of the whole store's) with their current link.
    const withLinks = filter.resourceType === undefined || filter.resourceType === 'Patient';
    const q = filtered(withLinks ? selectLinkedGpid(knex(`${HISTORY} as r`).select('r.*'), 'r') : knex(`${HISTORY} as r`).select('r.*'));
    q.orderBy([{ column: 'r.last_updated', order }, { column: 'r.id', order }, { column: 'r.version_id', order }]);
    if (cursor) {
      const op = upwards ? '>' : '<';
      q.where((w) =>
        w
          .where('r.last_updated', op, cursor.lastUpdated)
          .orWhere((x) => x.where('r.last_updated', cursor.lastUpdated).where('r.id', op, cursor.id))
          .orWhere((x) => x.where('r.last_updated', cursor.lastUpdated).where('r.id', cursor.id).where('r.version_id', op, cursor.versionId)),
      );
    } else {
      q.offset(filter.offset);
    }
    const fetched = ((await q.limit(filter.limit + 1)) as Row[]).map(toStored);
    const more = fetched.length > filter.limit;
    const rows = fetched.slice(0, filter.limit);
    if (upwards) rows.reverse();
    const [count] = (await base().count({ n: '*' })) as { n: number | string }[];
    return { rows, total: Number(count?.n ?? 0), more };
  },

  /**
   * Insert many new resources (version 1), their history rows and their search-index rows with a
   * few multi-row INSERTs per table: how a transaction Bundle writes its creates. New ids have no
   * index rows to delete.
   */
  async insertMany(em: EntityManager, list: readonly NewResource[]): Promise<void> {
    if (list.length === 0) return;
    const knex = knexOf(em);
    const rows = list.map((r) => toRow(r.stored));
    await insertBulk(knex, RESOURCES, rows, HISTORY);
    for (const [kind, table] of Object.entries(INDEX_TABLES) as [keyof SearchIndexRows, string][]) {
      const indexRows: Record<string, unknown>[] = [];
      for (const { stored, index } of list) for (const r of index[kind]) indexRows.push({ resource_type: stored.resourceType, resource_id: stored.id, ...r });
      await insertBulk(knex, table, indexRows);
    }
  },

  /**
   * Replace the search-index rows of a resource (none for a deleted one). A live Patient keeps the
   * token row of its GPID link (`identifier=urn:svc:gpid|…`): the link writes it, not the content.
   */
  async reindex(em: EntityManager, resourceType: string, resourceId: string, rows: SearchIndexRows | null): Promise<void> {
    const knex = knexOf(em);
    const keepLink = resourceType === 'Patient' && rows !== null;
    for (const [kind, table] of Object.entries(INDEX_TABLES) as [keyof SearchIndexRows, string][]) {
      const stale = knex(table).where({ resource_type: resourceType, resource_id: resourceId });
      if (keepLink && kind === 'token') stale.where((w) => w.whereNull('system').orWhereNot('system', GPID_SYSTEM).orWhereNot('param', 'identifier'));
      await stale.delete();
      const list = rows?.[kind] ?? [];
      for (const chunk of chunks<(typeof list)[number]>(list, 200)) await knex(table).insert(chunk.map((r) => ({ resource_type: resourceType, resource_id: resourceId, ...r })));
    }
  },
};
