import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Loading, Page, useAction, useQuery, when } from '../ui.js';

const APPLICATIONS = /* GraphQL */ `query Applications { partnerApplications(status: SUBMITTED, first: 50) { edges { node { id status organization integration submittedAt } } } }`;
const APPROVE = /* GraphQL */ `mutation Approve($id: ID!) { approvePartnerApplication(id: $id) { id status partnerGpid } }`;
const REJECT = /* GraphQL */ `mutation Reject($id: ID!, $reason: String!) { rejectPartnerApplication(id: $id, reason: $reason) { id status } }`;
const RETURN = /* GraphQL */ `mutation Return($id: ID!, $reason: String!) { returnPartnerApplication(id: $id, reason: $reason) { id status } }`;

interface Application { id: string; status: string; organization: Record<string, unknown> | null; integration: Record<string, unknown> | null; submittedAt: string | null }

export function ApplicationsPage(_props: { viewer: Viewer }) {
  const state = useQuery<{ partnerApplications: { edges: { node: Application }[] } }>(APPLICATIONS);
  const decide = useAction(async (mutation: string, id: string, needsReason: boolean) => {
    const reason = needsReason ? prompt('Reason (shown to the applicant)') : '';
    if (needsReason && !reason) return;
    await gql(mutation, { id, ...(needsReason ? { reason } : {}) });
    state.reload();
  });
  const apps = state.data?.partnerApplications.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Applications">
      <Loading state={state} />
      <ErrorBox error={decide.error} />
      <ul class="hooks">
        {apps.map((a) => {
          const org = (a.organization ?? {}) as { legal_name?: string; organization_type?: string; npi?: string; contact?: { name?: string; email?: string } };
          return (
            <li key={a.id}>
              <h2>{org.legal_name ?? a.id}</h2>
              <p>{org.organization_type} · NPI {org.npi ?? '—'} · {org.contact?.name} &lt;{org.contact?.email}&gt; · submitted {when(a.submittedAt)}</p>
              <p class="hint">Integration: {JSON.stringify(a.integration)}</p>
              <div class="row">
                <button type="button" onClick={() => void decide.run(APPROVE, a.id, false)} aria-label={`Approve ${org.legal_name ?? a.id}`}>Approve</button>
                <button type="button" onClick={() => void decide.run(RETURN, a.id, true)}>Return for changes</button>
                <button type="button" class="danger" onClick={() => void decide.run(REJECT, a.id, true)}>Reject</button>
              </div>
            </li>
          );
        })}
        {apps.length === 0 && <li>No applications waiting for review.</li>}
      </ul>
    </Page>
  );
}

const CHANGES = /* GraphQL */ `query Changes { identityChangeRequests(status: PENDING, first: 50) { edges { node {
  id kind status reason note survivorGpid gpids requestedAt expiresAt requestedSource
  requestedBy { kind partnerGpid credentialId operator }
} } } }`;
const APPROVE_CHANGE = /* GraphQL */ `mutation ApproveChange($id: ID!, $note: String) { approveIdentityChange(requestId: $id, source: "cms", note: $note) { __typename } }`;
const REJECT_CHANGE = /* GraphQL */ `mutation RejectChange($id: ID!, $note: String) { rejectIdentityChange(requestId: $id, source: "cms", note: $note) { __typename } }`;

interface Change { id: string; kind: string; status: string; reason: string; note: string | null; survivorGpid: string | null; gpids: string[]; requestedAt: string; expiresAt: string; requestedSource: string; requestedBy: { kind: string; partnerGpid: string | null; credentialId: string | null; operator: boolean } }

export function IdentityChangesPage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ identityChangeRequests: { edges: { node: Change }[] } }>(CHANGES);
  const decide = useAction(async (mutation: string, id: string) => {
    const note = prompt('Note (optional)') ?? null;
    await gql(mutation, { id, note });
    state.reload();
  });
  const changes = state.data?.identityChangeRequests.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Merges & splits">
      <p class="notice">Two-person rule: a merge or split takes effect only when a principal other than the one who requested it approves it. Your own requests can only be withdrawn.</p>
      <Loading state={state} />
      <ErrorBox error={decide.error} />
      <ul class="hooks">
        {changes.map((c) => (
          <li key={c.id}>
            <h2>{c.kind} <code>{c.id}</code></h2>
            <p>{c.kind === 'MERGE' ? <>Keep <code>{c.survivorGpid}</code>, merge {c.gpids.filter((g) => g !== c.survivorGpid).map((g) => <code key={g}>{g} </code>)}</> : <>Split <code>{c.gpids.join(', ')}</code></>}</p>
            <p>Reason: {c.reason}{c.note ? ` (${c.note})` : ''}</p>
            <p class="hint">
              Requested by {c.requestedBy.operator ? 'an operator' : c.requestedBy.kind} {c.requestedBy.partnerGpid ?? ''} {c.requestedBy.credentialId ? `(${c.requestedBy.credentialId})` : ''} via {c.requestedSource}, {when(c.requestedAt)}; expires {when(c.expiresAt)}.
              {' '}Approval 1 of 2 recorded (the request); a second, independent principal must approve.
            </p>
            <div class="row">
              <button type="button" onClick={() => void decide.run(APPROVE_CHANGE, c.id)}>Approve as {viewer.partnerGpid ?? 'operator'}</button>
              <button type="button" class="danger" onClick={() => void decide.run(REJECT_CHANGE, c.id)}>Reject</button>
            </div>
          </li>
        ))}
        {changes.length === 0 && <li>No merges or splits waiting for approval.</li>}
      </ul>
    </Page>
  );
}

const PARTNERS = /* GraphQL */ `query Partners { partners(first: 100) { edges { node { gpid legalName organizationType status createdAt certification { status } } } } }`;

export function PartnersPage(_props: { viewer: Viewer }) {
  const state = useQuery<{ partners: { edges: { node: { gpid: string; legalName: string; organizationType: string; status: string; createdAt: string; certification: { status: string } } }[] } }>(PARTNERS);
  return (
    <Page title="Partners">
      <Loading state={state} />
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">GPID</th><th scope="col">Legal name</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Certification</th><th scope="col">Since</th></tr></thead>
          <tbody>
            {state.data?.partners.edges.map(({ node: p }) => (
              <tr key={p.gpid}><td><code>{p.gpid}</code></td><td>{p.legalName}</td><td>{p.organizationType}</td><td>{p.status}</td><td>{p.certification.status}</td><td>{when(p.createdAt)}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
