import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, SecretOnce, useAction, useQuery, when } from '../ui.js';

const PARTNERS = /* GraphQL */ `query ResetPartners { partners(first: 100) { edges { node { gpid legalName } } } }`;
const ISSUE = /* GraphQL */ `mutation IssueReset($partnerGpid: ID!) { createPortalPasswordReset(partnerGpid: $partnerGpid) { id partnerGpid email resetUrl expiresAt } }`;

interface Issued { id: string; partnerGpid: string; email: string; resetUrl: string; expiresAt: string }

/**
 * Operators: issue a one-time password reset link for a partner's portal account. The platform
 * sends no e-mail, so the operator hands the link over; it works once, for an hour.
 */
export function PasswordResetsPage(_props: { viewer: Viewer }) {
  const partners = useQuery<{ partners: { edges: { node: { gpid: string; legalName: string } }[] } }>(PARTNERS);
  const [issued, setIssued] = useState<Issued | null>(null);
  const issue = useAction(async (form: HTMLFormElement) => {
    setIssued(null);
    setIssued((await gql<{ createPortalPasswordReset: Issued }>(ISSUE, { partnerGpid: formValue(form, 'partner') })).createPortalPasswordReset);
  });
  return (
    <Page title="Password resets">
      <Loading state={partners} />
      <p class="lead">
        A partner who forgot their portal password asks you for a reset link. The platform sends no e-mail: give the link to the partner's contact yourself, over a channel you trust. It works once,
        for one hour; issuing a new one cancels the previous one, and using it signs the partner's open sessions out.
      </p>
      <form onSubmit={(e) => { e.preventDefault(); void issue.run(e.currentTarget); }}>
        <Field id="reset-partner" label="Partner">
          <select id="reset-partner" name="partner" required>
            <option value="">Choose a partner</option>
            {(partners.data?.partners.edges ?? []).map(({ node: p }) => <option key={p.gpid} value={p.gpid}>{p.legalName} ({p.gpid})</option>)}
          </select>
        </Field>
        <ErrorBox error={issue.error} />
        <button type="submit" disabled={issue.busy}>Create reset link</button>
      </form>
      {issued && (
        <section aria-labelledby="issued-title" aria-live="polite">
          <h2 id="issued-title">Reset link for {issued.email}</h2>
          <SecretOnce label="Reset link" secret={issued.resetUrl} />
          <p>Valid until {when(issued.expiresAt)}, once. Reference <code>{issued.id}</code>.</p>
        </section>
      )}
    </Page>
  );
}
