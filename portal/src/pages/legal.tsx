import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, useAction, useQuery, when } from '../ui.js';
import { AgreementText, downloadPath } from '../agreement.js';

const QUERY = /* GraphQL */ `query Legal($gpid: ID!) {
  legalDocuments { id kind title version summary sha256 fileName }
  partner(gpid: $gpid) { legalAgreements { acceptedAt document { id title version kind } signature { signerName signerTitle signedAt documentSha256 } } }
}`;
const SIGN = /* GraphQL */ `mutation SignBaa($name: String!, $title: String!, $email: String!) { signBaa(signerName: $name, signerTitle: $title, signerEmail: $email) { id signedAt } }`;

interface Doc { id: string; kind: string; title: string; version: string; summary: string; sha256: string; fileName: string }
interface Agreement { acceptedAt: string | null; document: { id: string; title: string; version: string; kind: string }; signature: { signerName: string; signerTitle: string; signedAt: string; documentSha256: string } | null }

export function LegalPage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ legalDocuments: Doc[]; partner: { legalAgreements: Agreement[] } | null }>(QUERY, { gpid: viewer.partnerGpid });
  const sign = useAction(async (form: HTMLFormElement) => {
    await gql(SIGN, { name: formValue(form, 'name'), title: formValue(form, 'title'), email: formValue(form, 'email') });
    state.reload();
  });
  const agreements = state.data?.partner?.legalAgreements ?? [];
  const baa = agreements.find((a) => a.document.kind === 'BAA' || /baa|business associate/i.test(a.document.title));
  const baaDoc = baa ? state.data?.legalDocuments.find((d) => d.id === baa.document.id) : undefined;
  return (
    <Page title="Legal & BAA">
      <Loading state={state} />
      <h2>Your agreements</h2>
      <ul>
        {agreements.map((a) => (
          <li key={a.document.id}>
            {a.document.title} ({a.document.version}): accepted {when(a.acceptedAt)}
            {a.signature && <> · e-signed by {a.signature.signerName}, {a.signature.signerTitle}, {when(a.signature.signedAt)} (SHA-256 <code>{a.signature.documentSha256.slice(0, 12)}…</code>)</>}
          </li>
        ))}
      </ul>
      {baa && !baa.signature && (
        <form onSubmit={(e) => { e.preventDefault(); void sign.run(e.currentTarget); }}>
          <h2>E-sign the Business Associate Agreement</h2>
          <p class="hint">Your name, title, e-mail, the time, your network address and the SHA-256 of the exact text are recorded.</p>
          {/* What is signed is what the signer could read: the full text, and its download. */}
          {baaDoc && <AgreementText id={baaDoc.id} fileName={baaDoc.fileName} label="Business Associate Agreement" open />}
          <Field id="signer-name" label="Full name"><input id="signer-name" name="name" autocomplete="name" required /></Field>
          <Field id="signer-title" label="Title"><input id="signer-title" name="title" required /></Field>
          <Field id="signer-email" label="E-mail"><input id="signer-email" name="email" type="email" autocomplete="email" required /></Field>
          <ErrorBox error={sign.error} />
          <button type="submit" disabled={sign.busy}>Sign the BAA</button>
        </form>
      )}
      <h2>Documents</h2>
      {state.data?.legalDocuments.map((d) => (
        <article key={d.id} class="release">
          <h3>{d.title} <span class="hint">({d.version})</span></h3>
          <p>{d.summary}</p>
          <p>
            <a href={downloadPath(d.fileName)} download>Download {d.title} ({d.fileName})</a>
          </p>
          <p class="hint">SHA-256 <code>{d.sha256}</code></p>
        </article>
      ))}
    </Page>
  );
}
