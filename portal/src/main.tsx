import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { gql, loadSession, signOut } from './api.js';
import { BASE, navigate, usePage } from './router.js';
import { SignInPage } from './pages/sign-in.js';
import { ApplyPage } from './pages/apply.js';
import { DashboardPage } from './pages/dashboard.js';
import { TokensPage } from './pages/tokens.js';
import { RequestsPage } from './pages/requests.js';
import { OAuthClientsPage } from './pages/oauth-clients.js';
import { LegalPage } from './pages/legal.js';
import { CertificationPage } from './pages/certification.js';
import { WebhooksPage } from './pages/webhooks.js';
import { PipelinePage } from './pages/pipeline.js';
import { CatalogPage, OpenApiPage } from './pages/catalog.js';
import { ChangelogPage } from './pages/changelog.js';
import { TefcaPage } from './pages/tefca.js';
import { AnalyticsPage } from './pages/analytics.js';
import { ApplicationsPage, IdentityChangesPage, PartnersPage } from './pages/operator.js';
import type { FunctionComponent } from 'preact';

export interface Viewer {
  kind: string;
  partnerGpid: string | null;
  scopes: string[];
}

export function isOperator(viewer: Viewer | null): boolean {
  return !!viewer && (viewer.scopes.includes('cms.admin') || viewer.scopes.includes('*'));
}

type Props = { viewer: Viewer };
const PARTNER_PAGES: { page: string; title: string; component: FunctionComponent<Props> }[] = [
  { page: '', title: 'Dashboard', component: DashboardPage },
  { page: 'tokens', title: 'API tokens', component: TokensPage },
  { page: 'requests', title: 'Request log', component: RequestsPage },
  { page: 'oauth-clients', title: 'OAuth clients', component: OAuthClientsPage },
  { page: 'webhooks', title: 'Webhooks', component: WebhooksPage },
  { page: 'pipeline', title: 'Pipeline & usage', component: PipelinePage },
  { page: 'tefca', title: 'TEFCA exchange', component: TefcaPage },
  { page: 'analytics', title: 'Analytics', component: AnalyticsPage as FunctionComponent<Props> },
  { page: 'legal', title: 'Legal & BAA', component: LegalPage },
  { page: 'certification', title: 'Certification', component: CertificationPage },
  { page: 'catalog', title: 'Route catalog', component: CatalogPage },
  { page: 'openapi', title: 'OpenAPI', component: OpenApiPage },
  { page: 'changelog', title: 'Changelog', component: ChangelogPage },
];
const OPERATOR_PAGES: typeof PARTNER_PAGES = [
  { page: 'applications', title: 'Applications', component: ApplicationsPage },
  { page: 'identity-changes', title: 'Merges & splits', component: IdentityChangesPage },
  { page: 'partners', title: 'Partners', component: PartnersPage },
];

function App() {
  const page = usePage();
  const [viewer, setViewer] = useState<Viewer | null | undefined>(undefined);
  const refresh = async () => {
    const session = await loadSession();
    if (!session.signedIn) return setViewer(null);
    try {
      setViewer((await gql<{ viewer: Viewer }>('query Viewer { viewer { kind partnerGpid scopes } }')).viewer);
    } catch {
      // A revoked or expired session: the cookie no longer signs anyone in.
      setViewer(null);
    }
  };
  useEffect(() => {
    void refresh();
  }, []);

  if (viewer === undefined) return <p aria-live="polite">Loading…</p>;
  const pages = viewer ? [...(viewer.partnerGpid ? PARTNER_PAGES : PARTNER_PAGES.filter((p) => ['', 'catalog', 'openapi', 'changelog'].includes(p.page))), ...(isOperator(viewer) ? OPERATOR_PAGES : [])] : [];
  const current = pages.find((p) => p.page === page);

  let main;
  if (page === 'apply') main = <ApplyPage />;
  else if (page === 'changelog' && !viewer) main = <ChangelogPage viewer={{ kind: 'anonymous', partnerGpid: null, scopes: [] }} />;
  else if (!viewer || page === 'sign-in') main = <SignInPage onSignedIn={async () => { await refresh(); navigate(''); }} />;
  else if (current) main = <current.component viewer={viewer} />;
  else main = <p>No such page. <a href={BASE}>Go to the dashboard</a>.</p>;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={BASE}>
          Partner portal
        </a>
        <nav aria-label="Main">
          <ul>
            {pages.map((p) => (
              <li key={p.page}>
                <a href={p.page ? `${BASE}/${p.page}` : BASE} aria-current={p.page === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
            {viewer && (
              <li>
                <a href={`${BASE}/graphiql.html`}>GraphQL explorer</a>
              </li>
            )}
            <li>
              <a href={`${BASE}/rest-explorer.html`}>REST explorer</a>
            </li>
            {!viewer && (
              <>
                <li>
                  <a href={`${BASE}/sign-in`} aria-current={page !== 'apply' && page !== 'changelog' ? 'page' : undefined}>Sign in</a>
                </li>
                <li>
                  <a href={`${BASE}/apply`} aria-current={page === 'apply' ? 'page' : undefined}>Apply</a>
                </li>
                <li>
                  <a href={`${BASE}/changelog`} aria-current={page === 'changelog' ? 'page' : undefined}>Changelog</a>
                </li>
              </>
            )}
          </ul>
        </nav>
        {viewer && (
          <div class="who">
            <span>{viewer.partnerGpid ?? (isOperator(viewer) ? 'Operator' : viewer.kind)}</span>
            <button
              type="button"
              onClick={async () => {
                await signOut();
                setViewer(null);
                navigate('sign-in');
              }}
            >
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">{main}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
