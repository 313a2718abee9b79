import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, Loading, Page, useAction, useQuery, when } from '../ui.js';
import { GRANTABLE, RequestTable, type ScopeRequestRow } from './scopes.js';

const PENDING = /* GraphQL */ `query PendingScopeRequests { scopeRequests(status: PENDING, first: 50) { edges { node { id partnerGpid scopes reason status requestedBy createdAt decidedBy decisionReason decidedAt } } }
  decided: scopeRequests(first: 20) { edges { node { id partnerGpid scopes reason status requestedBy createdAt decidedBy decisionReason decidedAt } } }
  partners(first: 100) { edges { node { gpid legalName grantedScopes } } } }`;
const GRANT = /* GraphQL */ `mutation GrantScopeRequest($id: ID!, $reason: String) { grantScopeRequest(id: $id, reason: $reason) { id status } }`;
const REFUSE = /* GraphQL */ `mutation RefuseScopeRequest($id: ID!, $reason: String!) { refuseScopeRequest(id: $id, reason: $reason) { id status } }`;
const UPDATE = /* GraphQL */ `mutation UpdatePartnerScopeGrant($gpid: ID!, $scopes: [String!]!) { updatePartnerScopeGrant(partnerGpid: $gpid, scopes: $scopes) { grantedScopes addedScopes removedScopes revokedCredentials { credentialId } } }`;

interface PartnerRow { gpid: string; legalName: string; grantedScopes: string[] }
interface Data { scopeRequests: { edges: { node: ScopeRequestRow }[] }; decided: { edges: { node: ScopeRequestRow }[] }; partners: { edges: { node: PartnerRow }[] } }

/** Operators: pending scope requests to grant or refuse, and any partner's grant edited directly. */
export function ScopeRequestsPage(_props: { viewer: Viewer }) {
  const state = useQuery<Data>(PENDING);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const decide = useAction(async (id: string, grant: boolean) => {
    setDone(null);
    const reason = (reasons[id] ?? '').trim();
    await gql(grant ? GRANT : REFUSE, { id, reason: grant ? reason || null : reason });
    setDone(`${id} ${grant ? 'granted' : 'refused'}.`);
    state.reload();
  });
  const partnerList = state.data?.partners.edges.map((e) => e.node).filter((p) => !p.grantedScopes.includes('*')) ?? [];
  const [gpid, setGpid] = useState('');
  const selected = partnerList.find((p) => p.gpid === gpid) ?? null;
  const [saved, setSaved] = useState<string | null>(null);
  const update = useAction(async (form: HTMLFormElement) => {
    setSaved(null);
    const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name="grant"]:checked')].map((i) => i.value);
    const res = await gql<{ updatePartnerScopeGrant: { addedScopes: string[]; removedScopes: string[]; revokedCredentials: { credentialId: string }[] } }>(UPDATE, { gpid, scopes });
    const c = res.updatePartnerScopeGrant;
    setSaved(`Saved: ${c.addedScopes.length} added, ${c.removedScopes.length} removed, ${c.revokedCredentials.length} credentials revoked.`);
    state.reload();
  });
  const pending = state.data?.scopeRequests.edges.map((e) => e.node) ?? [];
  const decided = (state.data?.decided.edges.map((e) => e.node) ?? []).filter((r) => r.status !== 'PENDING');
  const reasonError = decide.error?.fieldErrors.find((f) => f.field === 'reason');
  return (
    <Page title="Scope requests">
      <Loading state={state} />
      <h2>Waiting for a decision</h2>
      {decide.error && !reasonError && <ErrorBox error={decide.error} />}
      {done && <p role="status" class="notice">Request {done}</p>}
      <ul class="hooks" data-testid="pending-scope-requests">
        {pending.map((r) => {
          const name = partnerList.find((p) => p.gpid === r.partnerGpid)?.legalName ?? r.partnerGpid;
          return (
            <li key={r.id}>
              <h3>{name} <code>{r.partnerGpid}</code></h3>
              <p>Asks for {r.scopes.map((s) => <code key={s}>{s} </code>)} · {when(r.createdAt)}</p>
              <p>Reason: {r.reason}</p>
              <Field id={`decision-${r.id}`} label={`Decision note for ${name} (required to refuse)`}>
                <textarea id={`decision-${r.id}`} rows={2} maxLength={1000} value={reasons[r.id] ?? ''} onInput={(e) => setReasons({ ...reasons, [r.id]: e.currentTarget.value })} aria-invalid={reasonError ? 'true' : undefined} aria-describedby={reasonError ? `decision-${r.id}-error` : undefined} />
                {reasonError && <p id={`decision-${r.id}-error`} class="field-error">{reasonError.message}</p>}
              </Field>
              <div class="row">
                <button type="button" disabled={decide.busy} onClick={() => void decide.run(r.id, true)} aria-label={`Grant ${r.scopes.join(', ')} to ${name}`}>Grant</button>
                <button type="button" class="danger" disabled={decide.busy} onClick={() => void decide.run(r.id, false)} aria-label={`Refuse ${r.scopes.join(', ')} to ${name}`}>Refuse</button>
              </div>
            </li>
          );
        })}
        {pending.length === 0 && <li>No scope requests waiting.</li>}
      </ul>
      <form onSubmit={(e) => { e.preventDefault(); void update.run(e.currentTarget); }}>
        <h2>Edit a partner's scopes</h2>
        <Field id="grant-partner" label="Partner">
          <select id="grant-partner" value={gpid} onChange={(e) => { setGpid(e.currentTarget.value); setSaved(null); }}>
            <option value="">Choose a partner</option>
            {partnerList.map((p) => <option key={p.gpid} value={p.gpid}>{p.legalName} ({p.gpid})</option>)}
          </select>
        </Field>
        {selected && (
          <fieldset class="scopes" key={selected.gpid}>
            <legend>Scopes granted to {selected.legalName}</legend>
            <p class="hint">Removing a scope revokes at once every credential of the partner that carries it; open portal sessions follow the new grant from their next request.</p>
            {[...GRANTABLE, ...selected.grantedScopes.filter((g) => !GRANTABLE.some((s) => s.scope === g)).map((scope) => ({ scope, description: 'narrower than a catalog entry' }))].map((s) => (
              <label key={s.scope} class="check">
                <input type="checkbox" name="grant" value={s.scope} defaultChecked={selected.grantedScopes.includes(s.scope)} />
                <span><code>{s.scope}</code> <span class="hint">{s.description}</span></span>
              </label>
            ))}
          </fieldset>
        )}
        <ErrorBox error={update.error} />
        {saved && <p role="status" class="notice">{saved}</p>}
        <button type="submit" disabled={!selected || update.busy}>{update.busy ? 'Saving…' : 'Save scopes'}</button>
      </form>
      <h2>Decided lately</h2>
      <RequestTable rows={decided} caption="Recently decided scope requests" />
    </Page>
  );
}
