import { useEffect, useState } from 'preact/hooks';
import type { Viewer } from '../main.js';
import { ErrorBox, Page } from '../ui.js';
import { ApiError } from '../api.js';

interface Entry { id: string; method: string; path: string; product: string; product_title: string; summary: string; auth: string; scopes: string[]; rate_limit: { text: string } | null; deprecated: boolean; implemented: boolean }

/** The route catalog as the REST facade serves it (GET /api/partner/routes, the cookie as credential). */
export function CatalogPage(_props: { viewer: Viewer }) {
  const [routes, setRoutes] = useState<Entry[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    fetch('/api/partner/routes', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(async (res) => {
        const body = (await res.json()) as { routes?: Entry[]; detail?: string };
        if (!res.ok || !body.routes) throw new ApiError(body.detail ?? `HTTP ${res.status}`, undefined);
        setRoutes(body.routes);
      })
      .catch((err: unknown) => setError(err instanceof ApiError ? err : new ApiError(String(err), undefined)));
  }, []);
  const shown = (routes ?? []).filter((r) => !filter || `${r.method} ${r.path} ${r.summary} ${r.product}`.toLowerCase().includes(filter.toLowerCase()));
  return (
    <Page title="Route catalog">
      <ErrorBox error={error} />
      <div class="field">
        <label for="route-filter">Filter</label>
        <input id="route-filter" type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </div>
      <p aria-live="polite">{routes ? `${shown.length} of ${routes.length} routes` : 'Loading…'}</p>
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Summary</th><th scope="col">Auth / scopes</th><th scope="col">Limit</th></tr></thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.id} class={r.deprecated ? 'deprecated' : ''}>
                <td><code>{r.method}</code></td><td><code>{r.path}</code></td><td>{r.summary}{r.deprecated ? ' (deprecated)' : ''}{r.implemented ? '' : ' (planned)'}</td><td>{r.auth}{r.scopes.length ? `: ${r.scopes.join(', ')}` : ''}</td><td>{r.rate_limit?.text ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}

const SPECS = [
  ['all', 'Everything'],
  ['partner-ecosystem', 'Partner ecosystem'],
  ['identity', 'Identity'],
  ['fhir', 'FHIR'],
  ['tefca', 'TEFCA'],
  ['analytics', 'Analytics'],
  ['clearinghouse', 'Clearinghouse'],
  ['wearables', 'Wearables'],
  ['platform', 'Platform'],
] as const;

export function OpenApiPage(_props: { viewer: Viewer }) {
  return (
    <Page title="OpenAPI">
      <p>OpenAPI 3.1 documents generated from the route table, one per product. The explorer shows a document and tries its routes with your session. The Postman collections hold the same routes, with the collection variables <code>baseUrl</code> (this server) and <code>bearerToken</code> (an API token).</p>
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">Product</th><th scope="col">YAML</th><th scope="col">JSON</th><th scope="col">Postman</th><th scope="col">Explore</th></tr></thead>
          <tbody>
            {SPECS.map(([spec, title]) => (
              <tr key={spec}>
                <td>{title}</td>
                <td><a href={`/api/openapi/${spec}.yaml`} download>{spec}.yaml</a></td>
                <td><a href={`/api/openapi/${spec}.json`} download>{spec}.json</a></td>
                <td><a href={`/api/openapi/${spec}.postman.json`} download>{spec}.postman.json</a></td>
                <td><a href={`/portal/rest-explorer.html?spec=${spec}`}>Explore {title}</a></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
