import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, SecretOnce, useAction, useQuery, when } from '../ui.js';
import { scopeDescription } from './tokens.js';

const LIST = /* GraphQL */ `query Clients($gpid: ID!) { partner(gpid: $gpid) { grantedScopes oauthClients { clientId clientName scopes tokenEndpointAuthMethod createdAt revokedAt secretRotatedAt previousSecretExpiresAt } } }`;
const REGISTER = /* GraphQL */ `mutation RegisterClient($input: RegisterOAuthClientInput!) { registerOAuthClient(input: $input) { clientSecret client { clientId } } }`;
const REVOKE = /* GraphQL */ `mutation RevokeClient($clientId: ID!) { revokeOAuthClient(clientId: $clientId) { tokenId } }`;
const ROTATE = /* GraphQL */ `mutation RotateClientSecret($clientId: ID!, $grace: Int) { rotateOAuthClientSecret(clientId: $clientId, previousSecretValidForSeconds: $grace) { clientSecret client { clientId } } }`;

/** How long the replaced secret keeps working, so running instances can switch over. */
const GRACE_CHOICES = [
  { seconds: 0, label: 'Old secret stops now' },
  { seconds: 3600, label: 'Old secret works 1 more hour' },
  { seconds: 86400, label: 'Old secret works 24 more hours' },
];

interface Client { clientId: string; clientName: string; scopes: string[]; tokenEndpointAuthMethod: string; createdAt: string; revokedAt: string | null; secretRotatedAt: string | null; previousSecretExpiresAt: string | null }

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
  // Rotation keeps the client id: only the secret changes, and the old one may keep working a while.
  const [grace, setGrace] = useState(0);
  const rotate = useAction(async (c: Client) => {
    const res = await gql<{ rotateOAuthClientSecret: { clientSecret: string; client: { clientId: string } } }>(ROTATE, { clientId: c.clientId, grace });
    setSecret({ id: res.rotateOAuthClientSecret.client.clientId, secret: res.rotateOAuthClientSecret.clientSecret });
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
      <div class="field inline">
        <label for="rotation-grace">When rotating a secret</label>
        <select id="rotation-grace" value={grace} onChange={(e) => setGrace(Number(e.currentTarget.value))}>
          {GRACE_CHOICES.map((g) => <option key={g.seconds} value={g.seconds}>{g.label}</option>)}
        </select>
      </div>
      <ErrorBox error={rotate.error ?? remove.error} />
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Scopes</th><th scope="col">Auth</th><th scope="col">Created</th><th scope="col">Secret rotated</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {clients.map((c) => (
              <tr key={c.clientId}>
                <td>{c.clientName}</td><td><code>{c.clientId}</code></td><td>{c.scopes.join(' ')}</td><td>{c.tokenEndpointAuthMethod}</td><td>{when(c.createdAt)}</td>
                <td>{when(c.secretRotatedAt)}{c.previousSecretExpiresAt && <small class="hint"> · old secret until {when(c.previousSecretExpiresAt)}</small>}</td>
                <td class="actions">
                  {c.tokenEndpointAuthMethod !== 'private_key_jwt' && (
                    <button type="button" onClick={() => void rotate.run(c)} aria-label={`Rotate secret of ${c.clientName}`} disabled={rotate.busy}>Rotate secret</button>
                  )}
                  <button type="button" class="danger" onClick={() => confirm(`Delete ${c.clientName}?`) && void remove.run(c.clientId)} aria-label={`Delete ${c.clientName}`}>Delete</button>
                </td>
              </tr>
            ))}
            {clients.length === 0 && <tr><td colSpan={7}>No clients yet.</td></tr>}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
