import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './styles.css';
import { gql, loadSession, signOut } from './api.js';
import { BASE, navigate, usePage } from './router.js';
import { SignInPage } from './pages/sign-in.js';
import { ApplyPage } from './pages/apply.js';
import { ApplicationStatusPage } from './pages/application.js';
import { PasswordResetsPage } from './pages/password-resets.js';
import { ResetPasswordPage } from './pages/reset-password.js';
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
import { installBusyButtons, installScrollRegions } from './ui.js';
import { DocsPage, isDocsPage } from './pages/docs.js';
import { ScopesPage } from './pages/scopes.js';
import { ScopeRequestsPage } from './pages/operator-scopes.js';
import type { FunctionComponent } from 'preact';

export interface Viewer {
  kind: string;
  partnerGpid: string | null;
  scopes: string[];
  /** The partner's legal name, shown in the header (the GPID stays in its title). */
  partnerName?: string | null;
  /** sandbox or production: sample data is offered only in a sandbox. */
  environment?: string;
}

export function isOperator(viewer: Viewer | null): boolean {
  return !!viewer && (viewer.scopes.includes('cms.admin') || viewer.scopes.includes('*'));
}

function sameViewer(a: Viewer, b: Viewer): boolean {
  return a.kind === b.kind && a.partnerGpid === b.partnerGpid && a.scopes.join(' ') === b.scopes.join(' ');
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
  { page: 'scopes', title: 'Scopes', component: ScopesPage },
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
  { page: 'scope-requests', title: 'Scope requests', component: ScopeRequestsPage },
  { page: 'password-resets', title: 'Password resets', component: PasswordResetsPage },
];

function App() {
  const page = usePage();
  const [viewer, setViewer] = useState<Viewer | null | undefined>(undefined);
  // Phone width: the navigation folds behind the Menu button (styles.css shows both otherwise).
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => setMenuOpen(false), [page]);
  const refresh = async () => {
    const session = await loadSession();
    if (!session.signedIn) return setViewer(null);
    try {
      const { viewer: who } = await gql<{ viewer: Viewer }>(/* GraphQL */ `query Viewer { viewer { kind partnerGpid scopes environment } }`);
      // The organisation's name reads better in the header than its GPID; a failed read keeps the GPID.
      const named = who.partnerGpid
        ? await gql<{ partner: { legalName: string } | null }>(/* GraphQL */ `query ViewerPartner($gpid: ID!) { partner(gpid: $gpid) { legalName } }`, { gpid: who.partnerGpid }).catch(() => null)
        : null;
      setViewer({ ...who, partnerName: named?.partner?.legalName ?? null });
    } catch {
      // A revoked or expired session: the cookie no longer signs anyone in.
      setViewer(null);
    }
  };
  useEffect(() => {
    void refresh();
  }, []);
  // The session's scopes follow the partner's grant: read them again on every page change, so a
  // scope an operator granted (or removed) shows on the next page without signing in again.
  useEffect(() => {
    if (!viewer) return;
    let live = true;
    gql<{ viewer: Viewer }>(/* GraphQL */ `query Viewer { viewer { kind partnerGpid scopes environment } }`)
      .then((data) => live && setViewer((v) => (v && sameViewer(v, data.viewer) ? v : data.viewer)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [page]);

  if (viewer === undefined) return <p aria-live="polite">Loading…</p>;
  const pages = viewer ? [...(viewer.partnerGpid ? PARTNER_PAGES : PARTNER_PAGES.filter((p) => ['', 'catalog', 'openapi', 'changelog'].includes(p.page))), ...(isOperator(viewer) ? OPERATOR_PAGES : [])] : [];
  const current = pages.find((p) => p.page === page);

  let main;
  if (page === 'apply') main = <ApplyPage />;
  else if (page === 'application') main = <ApplicationStatusPage />;
  else if (page === 'reset-password') main = <ResetPasswordPage />;
  else if (isDocsPage(page)) main = <DocsPage page={page} />;
  else if (page === 'changelog' && !viewer) main = <ChangelogPage viewer={{ kind: 'anonymous', partnerGpid: null, scopes: [] }} />;
  else if (!viewer || page === 'sign-in') main = <SignInPage onSignedIn={async () => { await refresh(); navigate(''); }} />;
  else if (current) main = <current.component viewer={viewer} />;
  else main = <p>No such page. <a href={BASE}>Go to the dashboard</a>.</p>;

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header
        class="top"
        onKeyDown={(e) => {
          // Escape (on the button or in the menu) folds the menu away and puts the keyboard back on its button.
          if (e.key === 'Escape' && menuOpen) {
            setMenuOpen(false);
            menuButton.current?.focus();
          }
        }}
      >
        <a class="brand" href={BASE}>
          Partner portal
        </a>
        <button
          type="button"
          class="menu-button"
          ref={menuButton}
          aria-expanded={menuOpen ? 'true' : 'false'}
          aria-controls="main-menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <nav aria-label="Main" id="main-menu" class={menuOpen ? 'open' : undefined}>
          <ul>
            {pages.map((p) => (
              <li key={p.page}>
                <a href={p.page ? `${BASE}/${p.page}` : BASE} aria-current={p.page === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
            <li>
              <a href={`${BASE}/docs`} aria-current={isDocsPage(page) ? 'page' : undefined}>Docs</a>
            </li>
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
                  <a href={`${BASE}/sign-in`} aria-current={page !== 'apply' && page !== 'changelog' && page !== 'application' && page !== 'reset-password' && !isDocsPage(page) ? 'page' : undefined}>Sign in</a>
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
            {viewer.partnerGpid ? (
              <span data-testid="who" title={`Partner GPID ${viewer.partnerGpid}`}>
                {viewer.partnerName ?? viewer.partnerGpid}
              </span>
            ) : (
              <span data-testid="who">{isOperator(viewer) ? 'Operator' : viewer.kind}</span>
            )}
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

installBusyButtons();
installScrollRegions();
render(<App />, document.getElementById('app')!);
