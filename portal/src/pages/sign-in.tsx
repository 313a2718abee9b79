import { ApiError, signInWithPassword, signInWithToken } from '../api.js';
import { navigate } from '../router.js';
import { ErrorBox, Field, formValue, Page, useAction } from '../ui.js';
import { openApplication } from './application.js';

/**
 * The right e-mail and password of an application that is not approved yet: the service says so
 * (403, reason application_not_approved) instead of "wrong password", and the page opens the
 * application's status with the same credentials.
 */
async function signInOrOpenApplication(email: string, password: string): Promise<boolean> {
  try {
    await signInWithPassword(email, password);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.details['reason'] === 'application_not_approved') {
      await openApplication(email, password);
      navigate('application');
      return false;
    }
    throw err;
  }
}

export function SignInPage({ onSignedIn }: { onSignedIn: () => void | Promise<void> }) {
  const partner = useAction(signInOrOpenApplication);
  const operator = useAction(signInWithToken);
  return (
    <Page title="Sign in">
      <div class="columns">
        <form
          aria-labelledby="partner-sign-in"
          onSubmit={async (e) => {
            e.preventDefault();
            const form = e.currentTarget;
            if ((await partner.run(formValue(form, 'email'), formValue(form, 'password'))) === true) await onSignedIn();
          }}
        >
          <h2 id="partner-sign-in">Partner</h2>
          <Field id="email" label="E-mail">
            <input id="email" name="email" type="email" autocomplete="username" required />
          </Field>
          <Field id="password" label="Password">
            <input id="password" name="password" type="password" autocomplete="current-password" required />
          </Field>
          <ErrorBox error={partner.error} />
          <button type="submit" disabled={partner.busy}>
            Sign in
          </button>
          <p>
            No account yet? <a href="/portal/apply">Apply to become a partner</a>. Applied already? <a href="/portal/application">See your application's status</a>.
          </p>
          <p data-testid="forgot-password">
            Forgot your password? Ask your operator (the administrator of this service) for a one-time reset link: the platform sends no e-mail.
          </p>
        </form>
        <form
          aria-labelledby="operator-sign-in"
          onSubmit={async (e) => {
            e.preventDefault();
            if ((await operator.run(formValue(e.currentTarget, 'token'))) !== null) await onSignedIn();
          }}
        >
          <h2 id="operator-sign-in">Operator</h2>
          <Field id="token" label="Operator token" hint="Kept in an HttpOnly cookie of this browser until you sign out.">
            <input id="token" name="token" type="password" autocomplete="off" required aria-describedby="token-hint" />
          </Field>
          <ErrorBox error={operator.error} />
          <button type="submit" disabled={operator.busy}>
            Sign in as operator
          </button>
        </form>
      </div>
    </Page>
  );
}
