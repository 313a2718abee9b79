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
  /**
   * By operation text first: the query planner sends the same string object for a fetch every time,
   * and V8 keeps a string's hash, so only the short rest of the key is hashed per request.
   */
  private readonly pending = new Map<string, Map<string, Promise<T>>>();
  private readonly queries = new Map<string, boolean>();

  /** Send `request` with `send`, or join the identical one already in flight. */
  run(request: GraphQLRequest, principalHeader: string | undefined, send: () => Promise<T>): Promise<T> {
    const { query } = request;
    if (!this.isQuery(query)) return send();
    const key = `${principalHeader ?? ''}\u0000${request.operationName ?? ''}\u0000${JSON.stringify(request.variables ?? null)}`;
    let sameText = this.pending.get(query);
    const inFlight = sameText?.get(key);
    if (inFlight) return inFlight;
    if (!sameText) this.pending.set(query, (sameText = new Map()));
    const waiting = sameText;
    const sent = send().finally(() => {
      waiting.delete(key);
      if (waiting.size === 0 && this.pending.get(query) === waiting) this.pending.delete(query);
    });
    waiting.set(key, sent);
    return sent;
  }

  /** isQuery, remembered for the texts the planner sends again and again (at most QUERY_TEXTS of them). */
  private isQuery(text: string): boolean {
    let known = this.queries.get(text);
    if (known === undefined) {
      if (this.queries.size >= QUERY_TEXTS) this.queries.clear();
      this.queries.set(text, (known = isQuery(text)));
    }
    return known;
  }
}

/** Operation texts whose kind InFlightQueries remembers. */
const QUERY_TEXTS = 1_000;

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
