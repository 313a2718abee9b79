import { inSpan, SpanKind, tracingActive } from './spans.js';

/** What a statement's span may say of it: its first keyword and the first table it names, nothing more. */
export function statementSummary(sql: string): { operation: string; table?: string } {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? 'sql';
  const table = /\b(?:from|into|update|join|table)\s+[`"[]?([A-Za-z_][\w.]*)/i.exec(sql)?.[1];
  return table ? { operation, table } : { operation };
}

const traced = new WeakSet<object>();

/**
 * A client span for every SQL statement of a knex client (MikroORM runs all its SQL through
 * knex): the dialect's `_query`, which every statement reaches, transactions' included (their
 * client is made from the same prototype), is wrapped once per dialect. Attributes: the database
 * system, the statement's operation and table; never the statement's text or its bindings.
 */
export function traceSqlStatements(client: object, system: 'sqlite' | 'postgresql'): void {
  if (!tracingActive()) return;
  const proto = Object.getPrototypeOf(client) as { _query(connection: unknown, obj: { sql?: string }): Promise<unknown> };
  if (traced.has(proto)) return;
  traced.add(proto);
  const query = proto._query;
  proto._query = function (this: unknown, connection, obj) {
    if (!tracingActive()) return query.call(this, connection, obj);
    const { operation, table } = statementSummary(obj?.sql ?? '');
    return inSpan(
      table ? `${operation} ${table}` : operation,
      { kind: SpanKind.CLIENT, attributes: { 'db.system': system, 'db.system.name': system, 'db.operation.name': operation, ...(table ? { 'db.collection.name': table } : {}) } },
      () => query.call(this, connection, obj),
    );
  };
}

/** A span for statements that bypass knex's client (the SQLite reader threads' selects). */
export function inSqlSpan<T>(sql: string, system: 'sqlite' | 'postgresql', work: () => Promise<T>): Promise<T> {
  if (!tracingActive()) return work();
  const { operation, table } = statementSummary(sql);
  return inSpan(table ? `${operation} ${table}` : operation, { kind: SpanKind.CLIENT, attributes: { 'db.system': system, 'db.system.name': system, 'db.operation.name': operation, ...(table ? { 'db.collection.name': table } : {}) } }, work);
}
