import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import { ErrorBox, Field, formValue, Page, useAction } from '../ui.js';

const DRAFT_KEY = 'portal.application';
type Step = 'ORGANIZATION' | 'INTEGRATION' | 'ACCOUNT';
const STEPS: { step: Step; title: string }[] = [
  { step: 'ORGANIZATION', title: 'Organization' },
  { step: 'INTEGRATION', title: 'Integration' },
  { step: 'ACCOUNT', title: 'Account' },
];
interface Draft {
  id: string;
  resumeToken: string;
}
interface Saved {
  savePartnerApplicationStep: { valid: boolean; fieldErrors: { field: string; message: string }[]; application: { status: string; progress: { nextStep: Step | null; complete: boolean } } };
}

const START = 'mutation StartApplication { startPartnerApplication { resumeToken application { id } } }';
const SAVE = `mutation SaveStep($id: ID!, $token: String!, $step: OnboardingStep!, $input: JSONObject!) {
  savePartnerApplicationStep(applicationId: $id, resumeToken: $token, step: $step, input: $input) {
    valid fieldErrors { field message } application { status progress { nextStep complete } }
  }
}`;
const SUBMIT = 'mutation SubmitApplication($id: ID!, $token: String!) { submitPartnerApplication(applicationId: $id, resumeToken: $token) { id status } }';
const RESUME = 'query ResumeApplication($id: ID!, $token: String) { partnerApplication(id: $id, resumeToken: $token) { status progress { nextStep complete } } }';

/** The draft (id and resume token) lives in this browser only, so the applicant can come back to it. */
function storedDraft(): Draft | null {
  try {
    const raw = localStorage.getItem(DRAFT_KEY);
    return raw ? (JSON.parse(raw) as Draft) : null;
  } catch {
    return null;
  }
}

function stepInput(step: Step, form: HTMLFormElement): Record<string, unknown> {
  const v = (n: string) => formValue(form, n);
  if (step === 'ORGANIZATION') {
    return { legal_name: v('legal_name'), organization_type: v('organization_type'), npi: v('npi'), contact: { name: v('contact_name'), email: v('contact_email'), phone: v('contact_phone'), title: v('contact_title') } };
  }
  if (step === 'INTEGRATION') {
    const capabilities = [...form.querySelectorAll<HTMLInputElement>('input[name=capabilities]:checked')].map((i) => i.value);
    return { use_case: v('use_case'), capabilities, data_direction: v('data_direction') };
  }
  const version = 'v2026-03';
  return { portal_password: v('portal_password'), agreements: { mnda: { accepted: (form.elements.namedItem('mnda') as HTMLInputElement).checked, version }, baa: { accepted: (form.elements.namedItem('baa') as HTMLInputElement).checked, version } } };
}

export function ApplyPage() {
  const [draft, setDraft] = useState<Draft | null>(storedDraft());
  const [step, setStep] = useState<Step>('ORGANIZATION');
  const [fieldErrors, setFieldErrors] = useState<{ field: string; message: string }[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const resume = useAction(async (d: Draft) => {
    const data = await gql<{ partnerApplication: { status: string; progress: { nextStep: Step | null } } | null }>(RESUME, { id: d.id, token: d.resumeToken });
    if (!data.partnerApplication) throw new Error('That draft no longer exists.');
    if (data.partnerApplication.status !== 'DRAFT') setSubmitted(true);
    setStep(data.partnerApplication.progress.nextStep ?? 'ACCOUNT');
  });
  const save = useAction(async (form: HTMLFormElement) => {
    let d = draft;
    if (!d) {
      const started = await gql<{ startPartnerApplication: { resumeToken: string; application: { id: string } } }>(START);
      d = { id: started.startPartnerApplication.application.id, resumeToken: started.startPartnerApplication.resumeToken };
      localStorage.setItem(DRAFT_KEY, JSON.stringify(d));
      setDraft(d);
    }
    const saved = await gql<Saved>(SAVE, { id: d.id, token: d.resumeToken, step, input: stepInput(step, form) });
    setFieldErrors(saved.savePartnerApplicationStep.fieldErrors);
    if (saved.savePartnerApplicationStep.fieldErrors.length > 0) return;
    const index = STEPS.findIndex((s) => s.step === step);
    if (index < STEPS.length - 1) setStep(STEPS[index + 1]!.step);
    else {
      await gql(SUBMIT, { id: d.id, token: d.resumeToken });
      setSubmitted(true);
    }
  });

  if (submitted) {
    return (
      <Page title="Apply">
        <p role="status">Your application was submitted. An operator reviews it; once approved, sign in with your contact e-mail and the password you chose.</p>
        <button type="button" onClick={() => { localStorage.removeItem(DRAFT_KEY); setDraft(null); setSubmitted(false); setStep('ORGANIZATION'); }}>Start another application</button>
      </Page>
    );
  }
  return (
    <Page title="Apply">
      <ol class="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s.step} aria-current={s.step === step ? 'step' : undefined}>
            {i + 1}. {s.title}
          </li>
        ))}
      </ol>
      {draft && step === 'ORGANIZATION' && (
        <p>
          A saved draft exists in this browser.{' '}
          <button type="button" onClick={() => void resume.run(draft)}>Resume it</button>
        </p>
      )}
      <ErrorBox error={resume.error} />
      <form
        key={step}
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(e.currentTarget);
        }}
      >
        {step === 'ORGANIZATION' && (
          <fieldset>
            <legend>Organization</legend>
            <Field id="legal_name" label="Legal name"><input id="legal_name" name="legal_name" required /></Field>
            <Field id="organization_type" label="Organization type">
              <select id="organization_type" name="organization_type">
                {['Health System / Hospital', 'Health Information Exchange', 'Payer', 'Digital Health / EHR Vendor', 'Laboratory', 'Pharmacy', 'Public Health Agency'].map((o) => <option key={o}>{o}</option>)}
              </select>
            </Field>
            <Field id="npi" label="NPI" hint="10 digits with a valid check digit."><input id="npi" name="npi" inputMode="numeric" aria-describedby="npi-hint" /></Field>
            <Field id="contact_name" label="Contact name"><input id="contact_name" name="contact_name" autocomplete="name" required /></Field>
            <Field id="contact_email" label="Contact e-mail (your portal sign-in)"><input id="contact_email" name="contact_email" type="email" autocomplete="email" required /></Field>
            <Field id="contact_phone" label="Contact phone"><input id="contact_phone" name="contact_phone" type="tel" autocomplete="tel" /></Field>
            <Field id="contact_title" label="Contact title"><input id="contact_title" name="contact_title" /></Field>
          </fieldset>
        )}
        {step === 'INTEGRATION' && (
          <fieldset>
            <legend>Integration</legend>
            <Field id="use_case" label="Use case">
              <select id="use_case" name="use_case">
                {['care_coordination', 'population_health', 'claims', 'research', 'patient_access'].map((o) => <option key={o}>{o}</option>)}
              </select>
            </Field>
            <fieldset>
              <legend>Capabilities</legend>
              {['fhir_read', 'fhir_write', 'bundle_push', 'bulk_export', 'webhooks'].map((c) => (
                <label key={c} class="check"><input type="checkbox" name="capabilities" value={c} /> {c}</label>
              ))}
            </fieldset>
            <Field id="data_direction" label="Data direction">
              <select id="data_direction" name="data_direction">
                {['bidirectional', 'inbound', 'outbound'].map((o) => <option key={o}>{o}</option>)}
              </select>
            </Field>
          </fieldset>
        )}
        {step === 'ACCOUNT' && (
          <fieldset>
            <legend>Account</legend>
            <Field id="portal_password" label="Portal password" hint="At least 12 characters, not containing your organization's name or e-mail.">
              <input id="portal_password" name="portal_password" type="password" autocomplete="new-password" required aria-describedby="portal_password-hint" />
            </Field>
            <label class="check"><input type="checkbox" name="mnda" /> I accept the mutual NDA (v2026-03)</label>
            <label class="check"><input type="checkbox" name="baa" /> I accept the Business Associate Agreement (v2026-03)</label>
          </fieldset>
        )}
        {fieldErrors.length > 0 && (
          <div class="error" role="alert">
            <p>Please correct:</p>
            <ul>{fieldErrors.map((f) => <li key={f.field}><code>{f.field}</code>: {f.message}</li>)}</ul>
          </div>
        )}
        <ErrorBox error={save.error} />
        <button type="submit" disabled={save.busy}>{step === 'ACCOUNT' ? 'Submit application' : 'Save and continue'}</button>
      </form>
    </Page>
  );
}
