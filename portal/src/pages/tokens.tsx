import { useState } from 'preact/hooks';
import { SCOPE_CATALOG } from '../../../platform/src/auth/scope-catalog.js';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { CopyButton, ErrorBox, Field, formValue, Loading, Page, SecretOnce, useAction, useQuery, when } from '../ui.js';

const LIST = /* GraphQL */ `query Tokens($gpid: ID!) { partner(gpid: $gpid) { grantedScopes apiTokens { tokenId name scopes createdAt expiresAt lastUsedAt lastUsedRoute environment } } }`;
const CREATE = /* GraphQL */ `mutation CreateToken($input: CreateApiTokenInput!) { createApiToken(input: $input) { secret token { tokenId } } }`;
const REVOKE = /* GraphQL */ `mutation RevokeToken($tokenId: ID!) { revokeApiToken(tokenId: $tokenId) { tokenId revokedAt } }`;

interface Token { tokenId: string; name: string; scopes: string[]; createdAt: string; expiresAt: string | null; lastUsedAt: string | null; lastUsedRoute: string | null; environment: string }

/** What a scope allows, from the platform's scope catalog (bundled: the same text as the OpenAPI documents). */
export function scopeDescription(scope: string): string {
  return SCOPE_CATALOG.find((s) => s.scope === scope)?.description ?? '';
}

/** sandbox or production: where the token works. */
export function EnvironmentBadge({ environment }: { environment: string }) {
  return <span class={`badge badge-${environment === 'production' ? 'production' : 'sandbox'}`}>{environment === 'production' ? 'Production' : 'Sandbox'}</span>;
}

export function TokensPage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ partner: { grantedScopes: string[]; apiTokens: Token[] } | null }>(LIST, { gpid: viewer.partnerGpid });
  const [secret, setSecret] = useState<string | null>(null);
  const create = useAction(async (form: HTMLFormElement) => {
    const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map((i) => i.value);
    const days = formValue(form, 'days');
    const res = await gql<{ createApiToken: { secret: string } }>(CREATE, { input: { name: formValue(form, 'name'), scopes, ...(days ? { expiresInDays: Number(days) } : {}) } });
    setSecret(res.createApiToken.secret);
    form.reset();
    state.reload();
  });
  const revoke = useAction(async (tokenId: string) => {
    await gql(REVOKE, { tokenId });
    state.reload();
  });
  const granted = state.data?.partner?.grantedScopes ?? [];
  const tokens = state.data?.partner?.apiTokens ?? [];
  return (
    <Page title="API tokens">
      <Loading state={state} />
      {secret && <SecretOnce label="New token" secret={secret} />}
      <form onSubmit={(e) => { e.preventDefault(); void create.run(e.currentTarget); }}>
        <h2>Create a token</h2>
        <Field id="token-name" label="Name"><input id="token-name" name="name" required maxLength={100} /></Field>
        <Field id="token-days" label="Expires in (days, optional)"><input id="token-days" name="days" type="number" min={1} max={365} /></Field>
        <fieldset class="scopes">
          <legend>Scopes (only those granted to your organization)</legend>
          {granted.map((s) => (
            <label key={s} class="check">
              <input type="checkbox" name="scope" value={s} />
              <span><code>{s}</code> <span class="hint">{scopeDescription(s)}</span></span>
            </label>
          ))}
        </fieldset>
        <ErrorBox error={create.error} />
        <button type="submit" disabled={create.busy}>Create token</button>
      </form>
      <h2>Your tokens</h2>
      <ErrorBox error={revoke.error} />
      <div class="table-wrap">
        <table class="stack tokens">
          <caption class="sr-only">API tokens</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.tokenId}>
                <td data-label="Name">{t.name} <EnvironmentBadge environment={t.environment} /></td>
                <td data-label="Id"><code class="token-id">{t.tokenId}</code> <CopyButton text={t.tokenId} label={`Copy the id of ${t.name}`} /></td>
                <td data-label="Scopes">{t.scopes.join(', ')}</td>
                <td data-label="Last used" data-testid="last-used">{t.lastUsedAt ? <>{when(t.lastUsedAt)}<br /><code>{t.lastUsedRoute}</code></> : 'Never'}</td>
                <td data-label="Created">{when(t.createdAt)}</td>
                <td data-label="Expires">{t.expiresAt ? when(t.expiresAt) : 'Never'}</td>
                <td data-label="Actions"><button type="button" class="danger" aria-label={`Revoke ${t.name}`} disabled={revoke.busy} onClick={() => confirm(`Revoke ${t.name}? Calls using it stop at once.`) && void revoke.run(t.tokenId)}>Revoke</button></td>
              </tr>
            ))}
            {tokens.length === 0 && <tr><td colSpan={7}>No tokens yet.</td></tr>}
          </tbody>
        </table>
      </div>
      <p class="hint">Last use is recorded at most about once a minute per token. Every request is in the <a href="/portal/requests">request log</a>.</p>
    </Page>
  );
}
