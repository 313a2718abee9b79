import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError, gql } from '../api.js';
import { AgreementText } from '../agreement.js';
import { ErrorBox, formValue, Page, useAction } from '../ui.js';
import { navigate } from '../router.js';

/** Where this browser keeps its application's id and resume token (also read by the status page). */
export const DRAFT_KEY = 'portal.application';
type Step = 'ORGANIZATION' | 'INTEGRATION' | 'ACCOUNT';
const STEPS: { step: Step; title: string }[] = [
  { step: 'ORGANIZATION', title: 'Organization' },
  { step: 'INTEGRATION', title: 'Integration' },
  { step: 'ACCOUNT', title: 'Account' },
];
export interface Draft {
  id: string;
  resumeToken: string;
}
interface Saved {
  savePartnerApplicationStep: { valid: boolean; fieldErrors: { field: string; message: string }[]; application: { status: string; progress: { nextStep: Step | null; complete: boolean } } };
}

const START = /* GraphQL */ `mutation StartApplication { startPartnerApplication { resumeToken application { id } } }`;
const SAVE = /* GraphQL */ `mutation SaveStep($id: ID!, $token: String!, $step: OnboardingStep!, $input: JSONObject!) {
  savePartnerApplicationStep(applicationId: $id, resumeToken: $token, step: $step, input: $input) {
    valid fieldErrors { field message } application { status progress { nextStep complete } }
  }
}`;
const SUBMIT = /* GraphQL */ `mutation SubmitApplication($id: ID!, $token: String!) { submitPartnerApplication(applicationId: $id, resumeToken: $token) { id status reviewTime expectedReviewBy } }`;
interface Submitted {
  id: string;
  status: string;
  reviewTime: string;
  expectedReviewBy: string | null;
}
const RESUME = /* GraphQL */ `query ResumeApplication($id: ID!, $token: String) { partnerApplication(id: $id, resumeToken: $token) { status progress { nextStep complete } } }`;


type FieldErrorList = { field: string; message: string }[];

/**
 * The form control a problem belongs to: the API addresses problems by dotted snake_case paths of
 * its input (`organization.contact.email`, `account.agreements.mnda.accepted`); the applicant sees
 * them on the field itself, never as paths.
 */
export function controlOf(path: string): string | null {
  const p = path.replace(/^(organization|integration|account)\.?/, '');
  if (p === 'contact') return 'contact_name';
  if (p.startsWith('contact.')) return `contact_${p.split('.')[1]}`;
  if (p.startsWith('capabilities')) return 'capabilities';
  if (p === 'use_case_description') return 'use_case';
  if (p === 'agreements' || p.startsWith('agreements.mnda')) return 'mnda';
  if (p.startsWith('agreements.baa')) return 'baa';
  return p === '' ? null : p;
}

/** The step a problem's path belongs to. */
function stepOf(path: string): Step | null {
  const head = path.split('.')[0]?.toUpperCase();
  return STEPS.some((s) => s.step === head) ? (head as Step) : null;
}

type Aria = { 'aria-describedby': string | undefined; 'aria-invalid': 'true' | undefined };

/** A labelled control with its hint and its problems, tied to the control by aria-describedby. */
function Labelled(props: { id: string; label: string; hint?: string; errors: FieldErrorList; children: (aria: Aria) => ComponentChildren }) {
  const described = [props.hint ? `${props.id}-hint` : null, props.errors.length > 0 ? `${props.id}-error` : null].filter(Boolean).join(' ');
  const aria: Aria = { 'aria-describedby': described || undefined, 'aria-invalid': props.errors.length > 0 ? 'true' : undefined };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children(aria)}
      {props.hint && <small id={`${props.id}-hint`} class="hint">{props.hint}</small>}
      {props.errors.length > 0 && <small id={`${props.id}-error`} class="field-error">{props.errors.map((e) => e.message).join(' ')}</small>}
    </div>
  );
}

/** The draft (id and resume token) lives in this browser only, so the applicant can come back to it. */
export function storedDraft(): Draft | null {
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
  const [fieldErrors, setFieldErrors] = useState<FieldErrorList>([]);
  const [submitted, setSubmitted] = useState<Submitted | null>(null);
  const resume = useAction(async (d: Draft) => {
    const data = await gql<{ partnerApplication: { status: string; progress: { nextStep: Step | null } } | null }>(RESUME, { id: d.id, token: d.resumeToken });
    if (!data.partnerApplication) throw new Error('That draft no longer exists.');
    if (data.partnerApplication.status !== 'DRAFT') return navigate('application');
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
      try {
        setSubmitted((await gql<{ submitPartnerApplication: Submitted }>(SUBMIT, { id: d.id, token: d.resumeToken })).submitPartnerApplication);
      } catch (err) {
        // An incomplete draft: its problems go on their fields, on the first step that has one.
        if (err instanceof ApiError && err.fieldErrors.length > 0) {
          const first = stepOf(err.fieldErrors[0]!.field);
          if (first) setStep(first);
          setFieldErrors(err.fieldErrors);
          return;
        }
        throw err;
      }
    }
  });

  // Move focus to the first field with a problem, so keyboard and screen-reader users land on it.
  useEffect(() => {
    const first = fieldErrors.map((f) => controlOf(f.field)).find((id) => id && document.getElementById(id));
    if (first) document.getElementById(first)?.focus();
  }, [fieldErrors, step]);

  if (submitted) {
    return (
      <Page title="Apply">
        <div role="status" class="notice">
          <p>Your application was submitted.</p>
          <p>
            Reference: <code class="reference" data-testid="application-reference">{submitted.id}</code>
          </p>
          <p>
            An operator reviews it within {submitted.reviewTime}
            {submitted.expectedReviewBy && <> (by {new Date(submitted.expectedReviewBy).toLocaleString()})</>}. Once approved, sign in with your contact e-mail and the password you chose; until
            then, signing in with them shows the application's status.
          </p>
        </div>
        <p>
          <a href="/portal/application">Follow your application's status</a>
        </p>
        <button type="button" onClick={() => { localStorage.removeItem(DRAFT_KEY); setDraft(null); setSubmitted(null); setStep('ORGANIZATION'); setFieldErrors([]); }}>Start another application</button>
      </Page>
    );
  }
  const errorsOf = (id: string) => fieldErrors.filter((f) => stepOf(f.field) === step && controlOf(f.field) === id);
  const onThisStep = new Set(['legal_name', 'organization_type', 'npi', 'contact_name', 'contact_email', 'contact_phone', 'contact_title', 'use_case', 'capabilities', 'data_direction', 'portal_password', 'mnda', 'baa']);
  // Problems with no field of their own (a step sent as something else than an object) stay above the button, in words.
  const unplaced = fieldErrors.filter((f) => stepOf(f.field) !== step || !onThisStep.has(controlOf(f.field) ?? ''));
  const capabilityErrors = errorsOf('capabilities');
  const mndaErrors = errorsOf('mnda');
  const baaErrors = errorsOf('baa');
  const described = (id: string, errors: FieldErrorList): Aria => ({ 'aria-describedby': errors.length > 0 ? `${id}-error` : undefined, 'aria-invalid': errors.length > 0 ? 'true' : undefined });
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
        noValidate={fieldErrors.length > 0}
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(e.currentTarget);
        }}
      >
        {fieldErrors.length > 0 && (
          <p class="error" role="alert">
            {fieldErrors.length === 1 ? 'One answer needs' : `${fieldErrors.length} answers need`} your attention: see the {fieldErrors.length === 1 ? 'field' : 'fields'} marked below.
          </p>
        )}
        {step === 'ORGANIZATION' && (
          <fieldset>
            <legend>Organization</legend>
            <Labelled id="legal_name" label="Legal name" errors={errorsOf('legal_name')}>{(a) => <input id="legal_name" name="legal_name" required {...a} />}</Labelled>
            <Labelled id="organization_type" label="Organization type" errors={errorsOf('organization_type')}>
              {(a) => (
                <select id="organization_type" name="organization_type" {...a}>
                  {['Health System / Hospital', 'Health Information Exchange', 'Payer', 'Digital Health / EHR Vendor', 'Laboratory', 'Pharmacy', 'Public Health Agency'].map((o) => <option key={o}>{o}</option>)}
                </select>
              )}
            </Labelled>
            <Labelled id="npi" label="NPI" hint="10 digits with a valid check digit." errors={errorsOf('npi')}>{(a) => <input id="npi" name="npi" inputMode="numeric" {...a} />}</Labelled>
            <Labelled id="contact_name" label="Contact name" errors={errorsOf('contact_name')}>{(a) => <input id="contact_name" name="contact_name" autocomplete="name" required {...a} />}</Labelled>
            <Labelled id="contact_email" label="Contact e-mail (your portal sign-in)" errors={errorsOf('contact_email')}>{(a) => <input id="contact_email" name="contact_email" type="email" autocomplete="email" required {...a} />}</Labelled>
            <Labelled id="contact_phone" label="Contact phone" errors={errorsOf('contact_phone')}>{(a) => <input id="contact_phone" name="contact_phone" type="tel" autocomplete="tel" {...a} />}</Labelled>
            <Labelled id="contact_title" label="Contact title" errors={errorsOf('contact_title')}>{(a) => <input id="contact_title" name="contact_title" {...a} />}</Labelled>
          </fieldset>
        )}
        {step === 'INTEGRATION' && (
          <fieldset>
            <legend>Integration</legend>
            <Labelled id="use_case" label="Use case" errors={errorsOf('use_case')}>
              {(a) => (
                <select id="use_case" name="use_case" {...a}>
                  {['care_coordination', 'population_health', 'claims', 'research', 'patient_access'].map((o) => <option key={o}>{o}</option>)}
                </select>
              )}
            </Labelled>
            <fieldset id="capabilities" tabIndex={-1} aria-describedby={capabilityErrors.length > 0 ? 'capabilities-error' : undefined}>
              <legend>Capabilities</legend>
              {['fhir_read', 'fhir_write', 'bundle_push', 'bulk_export', 'webhooks'].map((c) => (
                <label key={c} class="check"><input type="checkbox" name="capabilities" value={c} /> {c}</label>
              ))}
              {capabilityErrors.length > 0 && <small id="capabilities-error" class="field-error">{capabilityErrors.map((e) => e.message).join(' ')}</small>}
            </fieldset>
            <Labelled id="data_direction" label="Data direction" errors={errorsOf('data_direction')}>
              {(a) => (
                <select id="data_direction" name="data_direction" {...a}>
                  {['bidirectional', 'inbound', 'outbound'].map((o) => <option key={o}>{o}</option>)}
                </select>
              )}
            </Labelled>
          </fieldset>
        )}
        {step === 'ACCOUNT' && (
          <fieldset>
            <legend>Account</legend>
            <Labelled id="portal_password" label="Portal password" hint="At least 12 characters, not containing your organization's name or e-mail." errors={errorsOf('portal_password')}>
              {(a) => <input id="portal_password" name="portal_password" type="password" autocomplete="new-password" required {...a} />}
            </Labelled>
            <AgreementText id="cms_mnda_v2026_03" fileName="cms_mnda_v2026_03.txt" label="mutual NDA" />
            <label class="check"><input type="checkbox" id="mnda" name="mnda" {...described('mnda', mndaErrors)} /> I accept the mutual NDA (v2026-03)</label>
            {mndaErrors.length > 0 && <small id="mnda-error" class="field-error">{mndaErrors.map((e) => e.message).join(' ')}</small>}
            <AgreementText id="cms_hipaa_baa_v2026_03" fileName="cms_hipaa_baa_v2026_03.txt" label="Business Associate Agreement" />
            <label class="check"><input type="checkbox" id="baa" name="baa" {...described('baa', baaErrors)} /> I accept the Business Associate Agreement (v2026-03)</label>
            {baaErrors.length > 0 && <small id="baa-error" class="field-error">{baaErrors.map((e) => e.message).join(' ')}</small>}
          </fieldset>
        )}
        {unplaced.length > 0 && (
          <div class="error">
            <ul>{unplaced.map((f) => <li key={f.field}>{f.message}</li>)}</ul>
          </div>
        )}
        <ErrorBox error={save.error} />
        <button type="submit" disabled={save.busy}>{step === 'ACCOUNT' ? 'Submit application' : 'Save and continue'}</button>
      </form>
    </Page>
  );
}
