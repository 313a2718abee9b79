import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api.js';
import { ErrorBox, Field, formValue, Page, toApiError, useAction, when } from '../ui.js';
import type { ApiError } from '../api.js';
import { DRAFT_KEY, storedDraft, type Draft } from './apply.js';
import '../onboarding.css';

// Written out in each document (not interpolated): test/portal-documents.test.ts validates them as they stand.
const READ = /* GraphQL */ `query ApplicationStatus($id: ID!, $token: String) { partnerApplication(id: $id, resumeToken: $token) { id status decisionReason submittedAt decidedAt reviewTime expectedReviewBy history { event at reason } organization } }`;
const OPEN = /* GraphQL */ `mutation OpenApplication($email: String!, $password: String!) { openPartnerApplication(email: $email, password: $password) { resumeToken application { id status decisionReason submittedAt decidedAt reviewTime expectedReviewBy history { event at reason } organization } } }`;

interface Application {
  id: string;
  status: 'DRAFT' | 'SUBMITTED' | 'APPROVED' | 'REJECTED';
  decisionReason: string | null;
  submittedAt: string | null;
  decidedAt: string | null;
  reviewTime: string;
  expectedReviewBy: string | null;
  history: { event: 'STARTED' | 'SUBMITTED' | 'RETURNED' | 'APPROVED' | 'REJECTED'; at: string; reason: string | null }[];
  organization: { legal_name?: string } | null;
}

/**
 * Open the application with the contact e-mail and portal password (no e-mail is sent): the answer's
 * fresh resume token is kept in this browser, as a draft started here is.
 */
export async function openApplication(email: string, password: string): Promise<Application> {
  const opened = (await gql<{ openPartnerApplication: { resumeToken: string; application: Application } }>(OPEN, { email, password })).openPartnerApplication;
  const draft: Draft = { id: opened.application.id, resumeToken: opened.resumeToken };
  localStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
  return opened.application;
}

const EVENT_WORDS: Record<Application['history'][number]['event'], string> = {
  STARTED: 'Started',
  SUBMITTED: 'Submitted for review',
  RETURNED: 'Returned for changes',
  APPROVED: 'Approved',
  REJECTED: 'Rejected',
};

function stateOf(a: Application): { label: string; text: string } {
  const last = a.history[a.history.length - 1];
  if (a.status === 'DRAFT' && last?.event === 'RETURNED') return { label: 'Returned for changes', text: 'A reviewer returned it; change what the reason says and submit it again.' };
  if (a.status === 'DRAFT') return { label: 'Draft', text: 'Not submitted yet: complete the three steps and submit it.' };
  if (a.status === 'SUBMITTED') return { label: 'Waiting for review', text: `An operator reviews it within ${a.reviewTime}.` };
  if (a.status === 'APPROVED') return { label: 'Approved', text: 'Your partner account is ready: sign in with your contact e-mail and portal password.' };
  return { label: 'Rejected', text: 'This application is closed. You may apply again with a new application.' };
}

/**
 * The application's status page, signed out: the reference, the state, the history with the
 * reviewers' reasons and the expected review time. This browser's draft (id and resume token) opens
 * it; otherwise the contact e-mail and portal password do.
 */
export function ApplicationStatusPage() {
  const [application, setApplication] = useState<Application | null>(null);
  const [loading, setLoading] = useState(() => storedDraft() !== null);
  const [readError, setReadError] = useState<ApiError | null>(null);
  const open = useAction(async (form: HTMLFormElement) => setApplication(await openApplication(formValue(form, 'email'), formValue(form, 'password'))));

  useEffect(() => {
    const draft = storedDraft();
    if (!draft) return;
    gql<{ partnerApplication: Application | null }>(READ, { id: draft.id, token: draft.resumeToken })
      .then((d) => setApplication(d.partnerApplication))
      .catch((err: unknown) => setReadError(toApiError(err)))
      .finally(() => setLoading(false));
  }, []);

  if (loading) return <Page title="Your application"><p aria-live="polite">Loading…</p></Page>;
  if (!application) {
    return (
      <Page title="Your application">
        <ErrorBox error={readError} />
        <p>Open your application with the contact e-mail and the portal password you chose when applying. No e-mail is sent.</p>
        <form
          aria-label="Open your application"
          onSubmit={(e) => {
            e.preventDefault();
            void open.run(e.currentTarget);
          }}
        >
          <Field id="app-email" label="Contact e-mail">
            <input id="app-email" name="email" type="email" autocomplete="username" required />
          </Field>
          <Field id="app-password" label="Portal password">
            <input id="app-password" name="password" type="password" autocomplete="current-password" required />
          </Field>
          <ErrorBox error={open.error} />
          <button type="submit" disabled={open.busy}>{open.busy ? 'Opening…' : 'Show the status'}</button>
        </form>
        <p>
          No application yet? <a href="/portal/apply">Apply to become a partner</a>.
        </p>
      </Page>
    );
  }
  const state = stateOf(application);
  return (
    <Page title="Your application">
      <dl class="cards">
        <div>
          <dt>Reference</dt>
          <dd><code class="reference" data-testid="application-reference">{application.id}</code></dd>
        </div>
        <div>
          <dt>State</dt>
          <dd data-testid="application-state">{state.label}</dd>
        </div>
        {application.organization?.legal_name && (
          <div>
            <dt>Organization</dt>
            <dd>{application.organization.legal_name}</dd>
          </div>
        )}
        {application.status === 'SUBMITTED' && (
          <div>
            <dt>Review expected by</dt>
            <dd data-testid="expected-review">{when(application.expectedReviewBy)}</dd>
          </div>
        )}
      </dl>
      <p role="status">{state.text}</p>
      {application.decisionReason && application.status !== 'APPROVED' && (
        <p class="notice">
          <strong>Reviewer's reason:</strong> {application.decisionReason}
        </p>
      )}
      {application.status === 'DRAFT' && (
        <p>
          <a href="/portal/apply">Continue the application</a> (use “Resume it”).
        </p>
      )}
      {application.status === 'APPROVED' && (
        <p>
          <a href="/portal/sign-in">Sign in</a>
        </p>
      )}
      <h2>History</h2>
      <ol class="timeline" data-testid="application-history">
        {application.history.map((h, i) => (
          <li key={i}>
            <strong>{EVENT_WORDS[h.event]}</strong> <span class="hint">{when(h.at)}</span>
            {h.reason && <div>Reason: {h.reason}</div>}
          </li>
        ))}
      </ol>
      <p class="hint">Reviews take up to {application.reviewTime} (Monday to Friday) from submission.</p>
    </Page>
  );
}
