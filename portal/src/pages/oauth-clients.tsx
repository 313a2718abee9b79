import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, SecretOnce, useAction, useQuery, when } from '../ui.js';
import { scopeDescription } from './tokens.js';

const LIST = `query Clients($gpid: ID!) { partner(gpid: $gpid) { grantedScopes oauthClients { clientId clientName scopes tokenEndpointAuthMethod createdAt revokedAt } } }`;
const REGISTER = `mutation RegisterClient($input: RegisterOAuthClientInput!) { registerOAuthClient(input: $input) { clientSecret client { clientId } } }`;
const REVOKE = `mutation RevokeClient($clientId: ID!) { revokeOAuthClient(clientId: $clientId) { clientId } }`;

interface Client { clientId: string; clientName: string; scopes: string[]; tokenEndpointAuthMethod: string; createdAt: string; revokedAt: string | null }

export function OAuthClientsPage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ partner: { grantedScopes: string[]; oauthClients: Client[] } | null }>(LIST, { gpid: viewer.partnerGpid });
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const register = async (name: string, scopes: string[]) => {
    const res = await gql<{ registerOAuthClient: { clientSecret: string | null; client: { clientId: string } } }>(REGISTER, { input: { clientName: name, scope: scopes.join(' ') } });
    if (res.registerOAuthClient.clientSecret) setSecret({ id: res.registerOAuthClient.client.clientId, secret: res.registerOAuthClient.clientSecret });
    state.reload();
  };
  const create = useAction(async (form: HTMLFormElement) => {
    const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map((i) => i.value);
    await register(formValue(form, 'name'), scopes);
    form.reset();
  });
  // Rotation: a new client with the same name and scopes, then the old one revoked (a client's secret is never re-shown).
  const rotate = useAction(async (c: Client) => {
    await register(c.clientName, c.scopes);
    await gql(REVOKE, { clientId: c.clientId });
    state.reload();
  });
  const remove = useAction(async (clientId: string) => {
    await gql(REVOKE, { clientId });
    state.reload();
  });
  const clients = (state.data?.partner?.oauthClients ?? []).filter((c) => !c.revokedAt);
  return (
    <Page title="OAuth clients">
      <Loading state={state} />
      {secret && <SecretOnce label={`Client secret of ${secret.id}`} secret={secret.secret} />}
      <form onSubmit={(e) => { e.preventDefault(); void create.run(e.currentTarget); }}>
        <h2>Register a client (client_credentials)</h2>
        <Field id="client-name" label="Client name"><input id="client-name" name="name" required /></Field>
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {(state.data?.partner?.grantedScopes ?? []).map((s) => (
            <label key={s} class="check"><input type="checkbox" name="scope" value={s} /><span><code>{s}</code> <span class="hint">{scopeDescription(s)}</span></span></label>
          ))}
        </fieldset>
        <ErrorBox error={create.error} />
        <button type="submit" disabled={create.busy}>Register client</button>
      </form>
      <h2>Clients</h2>
      <ErrorBox error={rotate.error ?? remove.error} />
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Scopes</th><th scope="col">Auth</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {clients.map((c) => (
              <tr key={c.clientId}>
                <td>{c.clientName}</td><td><code>{c.clientId}</code></td><td>{c.scopes.join(' ')}</td><td>{c.tokenEndpointAuthMethod}</td><td>{when(c.createdAt)}</td>
                <td class="actions">
                  <button type="button" onClick={() => void rotate.run(c)} aria-label={`Rotate ${c.clientName}`}>Rotate</button>
                  <button type="button" class="danger" onClick={() => confirm(`Delete ${c.clientName}?`) && void remove.run(c.clientId)} aria-label={`Delete ${c.clientName}`}>Delete</button>
                </td>
              </tr>
            ))}
            {clients.length === 0 && <tr><td colSpan={6}>No clients yet.</td></tr>}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
