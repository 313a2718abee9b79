import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, useAction, useQuery, when } from '../ui.js';

const LOG = /* GraphQL */ `query RequestLog($first: Int, $after: String, $statusClass: String, $method: String, $credentialId: String, $since: DateTime, $until: DateTime) {
  apiRequestLog(first: $first, after: $after, statusClass: $statusClass, method: $method, credentialId: $credentialId, since: $since, until: $until) {
    edges { node { occurredAt method route status requestId latencyMs credentialId credentialKind } }
    pageInfo { hasNextPage endCursor }
  }
}`;

interface Entry { occurredAt: string; method: string; route: string; status: number; requestId: string; latencyMs: number; credentialId: string | null; credentialKind: string }
interface LogPage { apiRequestLog: { edges: { node: Entry }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }
type Filter = Record<string, string>;

const KIND: Record<string, string> = { api_token: 'API token', oauth_client: 'OAuth client', portal_session: 'Portal session', operator: 'Operator' };

/** `datetime-local` (the browser's time zone) → ISO 8601 UTC; empty stays unset. */
function instant(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

/** The partner's own recent API requests, filterable and paged (Query.apiRequestLog, GET /api/partner/requests). */
export function RequestsPage(_props: { viewer: Viewer }) {
  const [filter, setFilter] = useState<Filter>({});
  const state = useQuery<LogPage>(LOG, { first: 50, ...filter });
  const [more, setMore] = useState<{ entries: Entry[]; cursor: string | null } | null>(null);
  const loadMore = useAction(async () => {
    const after = more ? more.cursor : state.data?.apiRequestLog.pageInfo.endCursor;
    const page = await gql<LogPage>(LOG, { first: 50, after, ...filter });
    setMore({ entries: [...(more?.entries ?? []), ...page.apiRequestLog.edges.map((e) => e.node)], cursor: page.apiRequestLog.pageInfo.hasNextPage ? page.apiRequestLog.pageInfo.endCursor : null });
  });
  const entries = [...(state.data?.apiRequestLog.edges.map((e) => e.node) ?? []), ...(more?.entries ?? [])];
  const hasMore = more ? more.cursor !== null : !!state.data?.apiRequestLog.pageInfo.hasNextPage;
  const apply = (form: HTMLFormElement) => {
    const next: Filter = {};
    for (const name of ['statusClass', 'method', 'credentialId']) if (formValue(form, name)) next[name] = formValue(form, name);
    const since = instant(formValue(form, 'since'));
    const until = instant(formValue(form, 'until'));
    if (since) next['since'] = since;
    if (until) next['until'] = until;
    setMore(null);
    setFilter(next);
    state.reload();
  };
  return (
    <Page title="Request log">
      <p class="lead">Your organization's recent API requests, REST and GraphQL, newest first: what was called, how it was answered and with which credential. Never bodies, query strings or secrets. Entries appear within seconds and are kept for a bounded time and number (72 hours and 10,000 requests by default).</p>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); apply(e.currentTarget); }}>
        <h2>Filter</h2>
        <div class="columns">
          <Field id="log-status" label="Status">
            <select id="log-status" name="statusClass">
              <option value="">Any</option>
              <option value="2xx">2xx success</option>
              <option value="3xx">3xx redirect</option>
              <option value="4xx">4xx client error</option>
              <option value="5xx">5xx server error</option>
            </select>
          </Field>
          <Field id="log-method" label="Method">
            <select id="log-method" name="method">
              <option value="">Any</option>
              {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
          </Field>
          <Field id="log-credential" label="Credential id (tok_…, cli_…, ses_…)">
            <input id="log-credential" name="credentialId" maxLength={44} pattern="(tok|ses|cli)_[0-9a-z]+" />
          </Field>
          <Field id="log-since" label="From"><input id="log-since" name="since" type="datetime-local" /></Field>
          <Field id="log-until" label="Until"><input id="log-until" name="until" type="datetime-local" /></Field>
        </div>
        <button type="submit" disabled={state.loading}>Apply filters</button>
      </form>
      <Loading state={state} />
      <div class="table-wrap">
        <table class="stack requests">
          <caption class="sr-only">API requests</caption>
          <thead><tr><th scope="col">Time</th><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Credential</th><th scope="col">Request id</th></tr></thead>
          <tbody>
            {entries.map((r) => (
              <tr key={r.requestId + r.occurredAt}>
                <td data-label="Time">{when(r.occurredAt)}</td>
                <td data-label="Request"><code>{r.method} {r.route}</code></td>
                <td data-label="Status"><span class={`status ${r.status >= 400 ? 'status-failed' : 'status-succeeded'}`}>{r.status}</span></td>
                <td data-label="Latency">{r.latencyMs} ms</td>
                <td data-label="Credential">{KIND[r.credentialKind] ?? r.credentialKind}{r.credentialId && <> <code>{r.credentialId}</code></>}</td>
                <td data-label="Request id"><code>{r.requestId}</code></td>
              </tr>
            ))}
            {state.data && entries.length === 0 && <tr><td colSpan={6}>No requests match.</td></tr>}
          </tbody>
        </table>
      </div>
      <ErrorBox error={loadMore.error} />
      {hasMore && <button type="button" disabled={loadMore.busy} onClick={() => void loadMore.run()}>Load older requests</button>}
    </Page>
  );
}
