import { useState } from 'preact/hooks';
import { SCOPE_CATALOG } from '../../../platform/src/auth/scope-catalog.js';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, useAction, useQuery, when } from '../ui.js';

/** A scope request as the portal shows it. */
export interface ScopeRequestRow {
  id: string;
  partnerGpid: string;
  scopes: string[];
  reason: string;
  status: string;
  requestedBy: string | null;
  createdAt: string;
  decidedBy: string | null;
  decisionReason: string | null;
  decidedAt: string | null;
}

/** Scopes no partner may hold (operators only). */
const OPERATOR_ONLY = new Set(['cms.admin']);

/** Catalog scopes a partner may be granted, with their meaning (the bundled platform catalog). */
export const GRANTABLE = SCOPE_CATALOG.filter((s) => !OPERATOR_ONLY.has(s.scope));

function held(grant: readonly string[], scope: string): boolean {
  return grant.some((g) => g === scope || (g.endsWith('.*') && scope.startsWith(g.slice(0, -1))));
}

const MINE = /* GraphQL */ `query ScopesPage($gpid: ID!) { partner(gpid: $gpid) { gpid grantedScopes }
  scopeRequests(first: 50) { edges { node { id partnerGpid scopes reason status requestedBy createdAt decidedBy decisionReason decidedAt } } } }`;
const REQUEST = /* GraphQL */ `mutation RequestScopes($scopes: [String!]!, $reason: String!) { requestScopes(scopes: $scopes, reason: $reason) { id status } }`;

export function RequestTable({ rows, caption }: { rows: ScopeRequestRow[]; caption: string }) {
  return (
    <div class="table-wrap">
      <table data-testid="scope-requests">
        <caption>{caption}</caption>
        <thead><tr><th scope="col">Requested</th><th scope="col">Scopes</th><th scope="col">Reason</th><th scope="col">Status</th><th scope="col">Decision</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td>{when(r.createdAt)}</td>
              <td>{r.scopes.map((s) => <code key={s}>{s} </code>)}</td>
              <td>{r.reason}</td>
              <td class={`status status-${r.status.toLowerCase()}`}>{r.status}</td>
              <td>{r.decidedAt ? `${when(r.decidedAt)}${r.decisionReason ? `: ${r.decisionReason}` : ''}` : '—'}</td>
            </tr>
          ))}
          {rows.length === 0 && <tr><td colSpan={5}>No requests yet.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}

/** The partner's scopes: what it holds, and requests for more with a reason, decided by an operator. */
export function ScopesPage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ partner: { grantedScopes: string[] }; scopeRequests: { edges: { node: ScopeRequestRow }[] } }>(MINE, { gpid: viewer.partnerGpid });
  const [sent, setSent] = useState<string | null>(null);
  const request = useAction(async (form: HTMLFormElement) => {
    setSent(null);
    const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name="scope"]:checked')].map((i) => i.value);
    const res = await gql<{ requestScopes: { id: string } }>(REQUEST, { scopes, reason: formValue(form, 'reason').trim() });
    form.reset();
    setSent(res.requestScopes.id);
    state.reload();
  });
  const grant = state.data?.partner.grantedScopes ?? [];
  const rows = state.data?.scopeRequests.edges.map((e) => e.node) ?? [];
  const pending = new Set(rows.filter((r) => r.status === 'PENDING').flatMap((r) => r.scopes));
  const requestable = GRANTABLE.filter((s) => !held(grant, s.scope) && !pending.has(s.scope));
  const scopeError = request.error?.fieldErrors.find((f) => f.field.startsWith('scopes'));
  const reasonError = request.error?.fieldErrors.find((f) => f.field === 'reason');
  return (
    <Page title="Scopes">
      <Loading state={state} />
      <h2>Granted to your organization</h2>
      <ul class="chips" data-testid="granted-scopes">{grant.map((s) => <li key={s}><code>{s}</code></li>)}</ul>
      <form onSubmit={(e) => { e.preventDefault(); void request.run(e.currentTarget); }} noValidate>
        <h2>Request scopes</h2>
        <p class="hint">An operator reviews each request. A grant reaches this session at once; a refusal comes with its reason.</p>
        <fieldset class="scopes" aria-describedby={scopeError ? 'request-scopes-error' : undefined}>
          <legend>Scopes you do not hold yet</legend>
          {requestable.map((s) => (
            <label key={s.scope} class="check">
              <input type="checkbox" name="scope" value={s.scope} />
              <span><code>{s.scope}</code> <span class="hint">{s.description}</span></span>
            </label>
          ))}
          {requestable.length === 0 && <p>Every catalog scope is granted or already requested.</p>}
          {scopeError && <p id="request-scopes-error" class="field-error">{scopeError.message}</p>}
        </fieldset>
        <Field id="request-reason" label="Why your organization needs them">
          <textarea id="request-reason" name="reason" rows={3} minLength={10} maxLength={1000} aria-invalid={reasonError ? 'true' : undefined} aria-describedby={reasonError ? 'request-reason-error' : undefined} />
          {reasonError && <p id="request-reason-error" class="field-error">{reasonError.message}</p>}
        </Field>
        {request.error && request.error.fieldErrors.length === 0 && <ErrorBox error={request.error} />}
        {request.error && request.error.fieldErrors.length > 0 && <p class="error" role="alert">{request.error.message}</p>}
        {sent && <p role="status" class="notice">Request {sent} sent; an operator will decide it.</p>}
        <button type="submit" disabled={request.busy} aria-busy={request.busy}>{request.busy ? 'Sending…' : 'Send request'}</button>
      </form>
      <h2>Your requests</h2>
      <RequestTable rows={rows} caption="Scope requests of your organization" />
    </Page>
  );
}
