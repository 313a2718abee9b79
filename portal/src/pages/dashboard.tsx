import type { Viewer } from '../main.js';
import { Loading, Page, useQuery } from '../ui.js';

const QUERY = /* GraphQL */ `query Dashboard($gpid: ID!) {
  partner(gpid: $gpid) { gpid legalName organizationType status grantedScopes
    certification { status }
    apiTokens { tokenId }
    pipelineMetrics(window: "24h") { jobsTotal successRate }
  }
}`;

interface Data {
  partner: { gpid: string; legalName: string; organizationType: string; status: string; grantedScopes: string[]; certification: { status: string }; apiTokens: unknown[]; pipelineMetrics: { jobsTotal: number; successRate: number | null } } | null;
}

export function DashboardPage({ viewer }: { viewer: Viewer }) {
  if (!viewer.partnerGpid) {
    return (
      <Page title="Dashboard">
        <p>Signed in as an operator. Review <a href="/portal/applications">applications</a>, <a href="/portal/identity-changes">merges and splits</a> and the <a href="/portal/partners">partner list</a>.</p>
      </Page>
    );
  }
  const state = useQuery<Data>(QUERY, { gpid: viewer.partnerGpid });
  const p = state.data?.partner;
  return (
    <Page title="Dashboard">
      <Loading state={state} />
      {p && (
        <>
          <p class="lead">{p.legalName} · <code>{p.gpid}</code> · {p.organizationType}</p>
          <dl class="cards">
            <div><dt>Status</dt><dd>{p.status}</dd></div>
            <div><dt>Certification</dt><dd><a href="/portal/certification">{p.certification.status}</a></dd></div>
            <div><dt>API tokens</dt><dd><a href="/portal/tokens">{p.apiTokens.length}</a></dd></div>
            <div><dt>Sync jobs (24 h)</dt><dd><a href="/portal/pipeline">{p.pipelineMetrics.jobsTotal}</a></dd></div>
            <div><dt>Success rate</dt><dd>{p.pipelineMetrics.successRate === null ? '—' : `${Math.round(p.pipelineMetrics.successRate * 100)} %`}</dd></div>
          </dl>
          <h2>Granted scopes</h2>
          <ul class="chips">{p.grantedScopes.map((s) => <li key={s}><code>{s}</code></li>)}</ul>
        </>
      )}
    </Page>
  );
}
