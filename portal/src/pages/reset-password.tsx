import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import { ErrorBox, Field, formValue, Page, useAction } from '../ui.js';
import { ApiError } from '../api.js';

const RESET = /* GraphQL */ `mutation ResetPassword($token: String!, $password: String!) { resetPortalPassword(token: $token, password: $password) { email sessionsEnded } }`;

/** The secret of the link, from the URL's fragment (never sent to a server). */
function linkToken(): string {
  return new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
}

/** Signed out: set a new portal password with the one-time link an operator issued. */
export function ResetPasswordPage() {
  const [token] = useState(linkToken);
  const [done, setDone] = useState<{ email: string; sessionsEnded: number } | null>(null);
  const reset = useAction(async (form: HTMLFormElement) => {
    const password = formValue(form, 'password');
    if (password !== formValue(form, 'confirm')) throw new ApiError('The two passwords differ.', 'VALIDATION_ERROR', [{ field: 'confirm', message: 'must repeat the new password' }]);
    const answer = (await gql<{ resetPortalPassword: { email: string; sessionsEnded: number } }>(RESET, { token, password })).resetPortalPassword;
    // The secret has served: keep it out of the address bar and the history.
    history.replaceState(null, '', location.pathname);
    setDone(answer);
  });
  if (done) {
    return (
      <Page title="Password changed">
        <p role="status">The password of {done.email} is changed{done.sessionsEnded > 0 ? `, and ${done.sessionsEnded} open session${done.sessionsEnded === 1 ? ' was' : 's were'} signed out` : ''}.</p>
        <p><a href="/portal/sign-in">Sign in</a> with the new password.</p>
      </Page>
    );
  }
  if (!token) {
    return (
      <Page title="Reset your password">
        <p>This page needs the reset link your operator gave you. Forgot your password? Ask your operator (the administrator of this service) for a one-time reset link: the platform sends no e-mail.</p>
      </Page>
    );
  }
  return (
    <Page title="Reset your password">
      <form onSubmit={(e) => { e.preventDefault(); void reset.run(e.currentTarget); }}>
        <p>Choose a new portal password: at least 12 characters mixing three of lower-case, upper-case, digits and symbols (or a passphrase of 20 characters or more), without your e-mail or organization name.</p>
        <Field id="new-password" label="New password">
          <input id="new-password" name="password" type="password" autocomplete="new-password" required minLength={12} maxLength={128} />
        </Field>
        <Field id="confirm-password" label="Repeat the new password">
          <input id="confirm-password" name="confirm" type="password" autocomplete="new-password" required />
        </Field>
        <ErrorBox error={reset.error} />
        <button type="submit" disabled={reset.busy}>Set the new password</button>
      </form>
    </Page>
  );
}
