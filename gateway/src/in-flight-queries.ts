import { ConfigError, type GraphQLRequest } from '@svc/platform';

/**
 * Identical queries in flight to one subgraph share one request: the first is sent, the ones that
 * arrive before its answer wait for that answer instead of sending their own (Apollo Router's
 * `traffic_shaping.deduplicate_query`). Nothing is kept once the answer arrives: a caller joins
 * only a request already in flight, whose answer may reflect the data of a moment before it asked.
 *
 * Identical means the same operation text, operation name and variables, sent with the same
 * principal header: callers with different credentials never share. Only queries are shared; a
 * mutation (or anything that does not read as a query) is always sent on its own.
 */
export class InFlightQueries<T> {
  private readonly pending = new Map<string, Promise<T>>();

  /** Send `request` with `send`, or join the identical one already in flight. */
  run(request: GraphQLRequest, principalHeader: string | undefined, send: () => Promise<T>): Promise<T> {
    if (!isQuery(request.query)) return send();
    const key = `${principalHeader ?? ''}\u0000${request.operationName ?? ''}\u0000${request.query}\u0000${JSON.stringify(request.variables ?? null)}`;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const sent = send().finally(() => this.pending.delete(key));
    this.pending.set(key, sent);
    return sent;
  }
}

/**
 * A query as the query planner writes subgraph fetches (`query …` or a bare selection set), with no
 * other operation in the document; a field named like an operation type only costs the sharing.
 */
function isQuery(text: string): boolean {
  return /^\s*(?:query\b|\{)/.test(text) && !/\b(?:mutation|subscription)\b/.test(text);
}

/**
 * Which subgraphs share identical queries in flight, from SVC_GATEWAY_DEDUPLICATE_QUERIES: `all`
 * means every foreign subgraph. Our own subgraphs (those that get our signed principal) never
 * share: some of their queries record themselves (FHIR read counts, TEFCA audits), and one request
 * for many callers would record once. Naming one of ours, or a subgraph the supergraph does not
 * have, is refused at start.
 */
export function subgraphsSharingQueries(setting: 'all' | readonly string[], subgraphs: readonly { name: string; ours: boolean }[]): ReadonlySet<string> {
  if (setting === 'all') return new Set(subgraphs.filter((s) => !s.ours).map((s) => s.name));
  const problems: string[] = [];
  const unknown = setting.filter((name) => !subgraphs.some((s) => s.name === name));
  if (unknown.length > 0) problems.push(`SVC_GATEWAY_DEDUPLICATE_QUERIES names subgraphs the supergraph does not have: ${unknown.join(', ')}`);
  const ours = setting.filter((name) => subgraphs.some((s) => s.name === name && s.ours));
  if (ours.length > 0) problems.push(`SVC_GATEWAY_DEDUPLICATE_QUERIES names subgraphs of this platform, whose queries may record themselves and must each reach them: ${ours.join(', ')}`);
  if (problems.length > 0) throw new ConfigError(problems);
  return new Set(setting);
}
