import { useEffect, useMemo, useState } from 'preact/hooks';
import { SCOPE_CATALOG } from '../../../platform/src/auth/scope-catalog.js';
import { ApiError } from '../api.js';
import { ErrorBox, Page, toApiError } from '../ui.js';
import type { Guide } from '../docs/guides.js';

/**
 * The documentation hub: the guides (Markdown files of the repository's `docs/`, rendered by
 * markdown-it in a chunk of their own), the scope reference (platform's SCOPE_CATALOG, bundled),
 * and the FHIR reference (the live CapabilityStatement of this server). Public, like the changelog.
 */

/** Portal pages of the hub; each is one path segment, as every portal page is. */
export const DOCS_HUB = 'docs';
export const SCOPE_REFERENCE = 'docs-scope-reference';
export const FHIR_REFERENCE = 'docs-fhir-reference';

export function isDocsPage(page: string): boolean {
  return page === DOCS_HUB || page.startsWith('docs-');
}

type GuidesModule = typeof import('../docs/guides.js');

/** The guides module, loaded once on the first docs page. */
function useGuides(): { guides: Guide[] | null; error: ApiError | null } {
  const [mod, setMod] = useState<GuidesModule | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    import('../docs/guides.js').then(setMod, (err: unknown) => setError(toApiError(err)));
  }, []);
  return { guides: mod?.GUIDES ?? null, error };
}

/** Every docs page by its portal page name. */
export function DocsPage({ page }: { page: string }) {
  if (page === SCOPE_REFERENCE) return <ScopeReferencePage />;
  if (page === FHIR_REFERENCE) return <FhirReferencePage />;
  if (page === DOCS_HUB) return <DocsHubPage />;
  return <GuidePage slug={page.slice('docs-'.length)} />;
}

function DocsNav({ guides, current }: { guides: Guide[]; current: string }) {
  const entries = [...guides.map((g) => ({ page: `docs-${g.slug}`, title: g.title })), { page: SCOPE_REFERENCE, title: 'Scope reference' }, { page: FHIR_REFERENCE, title: 'FHIR reference' }];
  return (
    <nav aria-label="Documentation" class="docs-nav">
      <ul>
        <li>
          <a href={`/portal/${DOCS_HUB}`} aria-current={current === DOCS_HUB ? 'page' : undefined}>All docs</a>
        </li>
        {entries.map((e) => (
          <li key={e.page}>
            <a href={`/portal/${e.page}`} aria-current={current === e.page ? 'page' : undefined}>{e.title}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function DocsHubPage() {
  const { guides, error } = useGuides();
  return (
    <Page title="Documentation">
      <p class="lead">Guides to get from an approved application to your first calls, and references generated from the running platform.</p>
      <ErrorBox error={error} />
      {!guides && !error && <p aria-live="polite">Loading…</p>}
      {guides && (
        <>
          <h2>Guides</h2>
          <ul class="doc-list">
            {guides.map((g) => (
              <li key={g.slug}>
                <a href={`/portal/docs-${g.slug}`}>{g.title}</a>
                <p>{g.summary}</p>
              </li>
            ))}
          </ul>
          <h2>References</h2>
          <ul class="doc-list">
            <li>
              <a href={`/portal/${SCOPE_REFERENCE}`}>Scope reference</a>
              <p>Every scope a token or OAuth client can carry, and what it allows.</p>
            </li>
            <li>
              <a href={`/portal/${FHIR_REFERENCE}`}>FHIR reference</a>
              <p>The resource types, interactions and search parameters of this server, read from its CapabilityStatement.</p>
            </li>
            <li>
              <a href="/portal/rest-explorer.html">REST explorer</a> and <a href="/portal/graphiql.html">GraphQL explorer</a>
              <p>Try the API in the browser (the GraphQL explorer needs a signed-in session).</p>
            </li>
            <li>
              <a href="/portal/openapi">OpenAPI documents</a> and <a href="/portal/changelog">changelog</a>
            </li>
          </ul>
        </>
      )}
    </Page>
  );
}

function GuidePage({ slug }: { slug: string }) {
  const { guides, error } = useGuides();
  const guide = guides?.find((g) => g.slug === slug);
  return (
    <Page title={guide?.title ?? (guides ? 'No such guide' : 'Documentation')}>
      <ErrorBox error={error} />
      {!guides && !error && <p aria-live="polite">Loading…</p>}
      {guides && (
        <div class="docs">
          <DocsNav guides={guides} current={`docs-${slug}`} />
          {/* markdown-it output with raw HTML disabled (docs/guides.ts): safe to insert. */}
          {guide ? <article class="markdown" dangerouslySetInnerHTML={{ __html: guide.html }} /> : <p>This guide does not exist. <a href={`/portal/${DOCS_HUB}`}>See all docs</a>.</p>}
        </div>
      )}
    </Page>
  );
}

/** Scopes grouped by the part before their first dot or slash (cms, identity, tefca, patient…). */
function ScopeReferencePage() {
  const { guides } = useGuides();
  const groups = useMemo(() => {
    const by = new Map<string, (typeof SCOPE_CATALOG)[number][]>();
    for (const s of SCOPE_CATALOG) {
      const family = s.scope.split(/[./]/)[0]!;
      by.set(family, [...(by.get(family) ?? []), s]);
    }
    return [...by.entries()];
  }, []);
  return (
    <Page title="Scope reference">
      <div class="docs">
        {guides && <DocsNav guides={guides} current={SCOPE_REFERENCE} />}
        <div>
          <p>
            Every scope an API token or OAuth client can carry (the platform's scope catalog). A credential only gets scopes your organisation was granted; a wildcard such as
            <code>tefca.*</code> covers every scope under it. Each route's scopes are in the <a href="/portal/catalog">route catalog</a>.
          </p>
          {groups.map(([family, scopes]) => (
            <section key={family} aria-labelledby={`scopes-${family}`}>
              <h2 id={`scopes-${family}`}>{family}</h2>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Scope</th>
                      <th scope="col">Allows</th>
                    </tr>
                  </thead>
                  <tbody>
                    {scopes.map((s) => (
                      <tr key={s.scope}>
                        <td><code>{s.scope}</code></td>
                        <td>{s.description}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </section>
          ))}
        </div>
      </div>
    </Page>
  );
}

interface CapabilityResource {
  type: string;
  profile?: string;
  interaction?: { code: string }[];
  searchParam?: { name: string; type: string; documentation?: string }[];
}
interface CapabilityStatement {
  fhirVersion?: string;
  software?: { name?: string; version?: string };
  rest?: { mode?: string; resource?: CapabilityResource[]; interaction?: { code: string }[]; operation?: { name: string }[] }[];
}

/** The live CapabilityStatement (`GET /fhir/R4/metadata`, public), so the reference is what this server does. */
function FhirReferencePage() {
  const { guides } = useGuides();
  const [cap, setCap] = useState<CapabilityStatement | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [filter, setFilter] = useState('');
  useEffect(() => {
    fetch('/fhir/R4/metadata', { headers: { accept: 'application/fhir+json' } })
      .then(async (res) => {
        if (!res.ok) throw new ApiError(`The CapabilityStatement could not be read (HTTP ${res.status}).`, undefined);
        setCap((await res.json()) as CapabilityStatement);
      })
      .catch((err: unknown) => setError(toApiError(err)));
  }, []);
  const server = cap?.rest?.find((r) => r.mode === 'server') ?? cap?.rest?.[0];
  const wanted = filter.trim().toLowerCase();
  const resources = (server?.resource ?? []).filter((r) => !wanted || r.type.toLowerCase().includes(wanted));
  return (
    <Page title="FHIR reference">
      <div class="docs">
        {guides && <DocsNav guides={guides} current={FHIR_REFERENCE} />}
        <div>
          <p>
            Read from this server's CapabilityStatement (<a href="/fhir/R4/metadata">GET /fhir/R4/metadata</a>)
            {cap?.fhirVersion ? `: FHIR ${cap.fhirVersion}` : ''}
            {cap?.software?.name ? `, ${cap.software.name}${cap.software.version ? ` ${cap.software.version}` : ''}` : ''}. The base URL is <code>/fhir/R4</code>; the <a href="/portal/docs-fhir">FHIR guide</a> shows how to call it.
          </p>
          <ErrorBox error={error} />
          {!cap && !error && <p aria-live="polite">Loading…</p>}
          {server && (
            <>
              {server.interaction && server.interaction.length > 0 && (
                <p>
                  System interactions: {server.interaction.map((i) => i.code).join(', ')}
                  {server.operation && server.operation.length > 0 && <> · operations: {server.operation.map((o) => `$${o.name}`).join(', ')}</>}
                </p>
              )}
              <div class="field">
                <label for="fhir-filter">Filter resource types</label>
                <input id="fhir-filter" type="search" value={filter} onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)} />
              </div>
              <p aria-live="polite">{resources.length} of {server.resource?.length ?? 0} resource types</p>
              <ul class="fhir-resources">
                {resources.map((r) => (
                  <FhirResource key={r.type} resource={r} />
                ))}
              </ul>
            </>
          )}
        </div>
      </div>
    </Page>
  );
}

/** One resource type; its search parameters are rendered only once opened (the server lists ~150 types). */
function FhirResource({ resource: r }: { resource: CapabilityResource }) {
  const [open, setOpen] = useState(false);
  const params = r.searchParam ?? [];
  return (
    <li>
      <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <strong>{r.type}</strong> <span class="hint">{(r.interaction ?? []).map((i) => i.code).join(', ')}</span>
        </summary>
        {open &&
          (params.length > 0 ? (
            <div class="table-wrap">
              <table>
                <caption>Search parameters of {r.type}</caption>
                <thead>
                  <tr>
                    <th scope="col">Parameter</th>
                    <th scope="col">Type</th>
                    <th scope="col">Description</th>
                  </tr>
                </thead>
                <tbody>
                  {params.map((p) => (
                    <tr key={p.name}>
                      <td><code>{p.name}</code></td>
                      <td>{p.type}</td>
                      <td>{p.documentation ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p>No search parameters.</p>
          ))}
      </details>
    </li>
  );
}
