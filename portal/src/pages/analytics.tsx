import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { SAMPLE_PATIENT_COUNT, sampleBundle } from '../sample-patients.js';
import { ErrorBox, Field, formValue, Page, useAction } from '../ui.js';

const INTERPRET = /* GraphQL */ `mutation Interpret($question: String!, $purposeOfUse: String!) {
  analyticsQueryInterpret(question: $question, purposeOfUse: $purposeOfUse) { id summary structuredQuery readings { text meaning } expiresAt }
}`;
const EXECUTE = /* GraphQL */ `query Execute($id: ID!) {
  analyticsQueryExecute(queryId: $id) { measure value unit patients observations observationsInOtherUnits asOf series { period value patients observations } }
}`;

const ADD_SAMPLES = /* GraphQL */ `mutation AddSamplePatients($bundle: JSONObject!) { fhirBundle(bundle: $bundle, returnResources: false) { status resource } }`;

/** Questions the reader understands (the service lists the same when it cannot read one). */
const EXAMPLES = ['How many female patients over 65 with diabetes?', 'How many patients aged 40 to 60 have hypertension and type 2 diabetes?', 'Number of patients with heart failure but without chronic kidney disease'];

/** HL7 v3 PurposeOfUse codes the analytics service accepts (it validates them; these are the labels). */
const PURPOSES: [string, string][] = [
  ['POPHLTH', 'Population health'],
  ['HQUALIMP', 'Quality improvement'],
  ['CAREMGT', 'Care management'],
  ['COC', 'Coordination of care'],
  ['TREAT', 'Treatment'],
  ['ETREAT', 'Emergency treatment'],
  ['HPAYMT', 'Payment'],
  ['HOPERAT', 'Operations'],
  ['PUBHLTH', 'Public health'],
  ['HRESCH', 'Research'],
  ['CLINTRCH', 'Clinical trial research'],
];

interface Interpreted { id: string; summary: string; structuredQuery: Record<string, unknown>; readings: { text: string; meaning: string }[]; expiresAt: string }
interface Result { measure: string; value: number | null; unit: string | null; patients: number; observations: number; observationsInOtherUnits: number; asOf: string; series: { period: string; value: number | null; patients: number; observations: number }[] | null }

/** The analytics playground: a question becomes a reviewable query, which runs over the partner's readable FHIR data. */
export function AnalyticsPage({ viewer }: { viewer: Viewer }) {
  // Questions run over health data, which a portal session may not read: they run with an API
  // token the partner pastes here, kept in this page's memory only.
  const [token, setToken] = useState('');
  const [query, setQuery] = useState<Interpreted | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const interpret = useAction(async (form: HTMLFormElement) => {
    setQuery(null);
    setResult(null);
    const data = await gql<{ analyticsQueryInterpret: Interpreted }>(INTERPRET, { question: formValue(form, 'question'), purposeOfUse: formValue(form, 'purpose') }, token.trim());
    setQuery(data.analyticsQueryInterpret);
  });
  const execute = useAction(async (id: string) => setResult((await gql<{ analyticsQueryExecute: Result }>(EXECUTE, { id }, token.trim())).analyticsQueryExecute));
  const [question, setQuestion] = useState('');
  const [added, setAdded] = useState<number | null>(null);
  const addSamples = useAction(async () => {
    const data = await gql<{ fhirBundle: { status: number; resource: { entry?: { response?: { status?: string } }[] } | null } }>(ADD_SAMPLES, { bundle: sampleBundle() }, token.trim());
    setAdded((data.fhirBundle.resource?.entry ?? []).filter((e) => e.response?.status?.startsWith('201')).length);
  });
  const examples = (interpret.error?.details['examples'] as string[] | undefined) ?? [];
  const understood = (interpret.error?.details['understood'] as { text: string; meaning: string }[] | undefined) ?? [];

  return (
    <Page title="Analytics playground">
      <p class="lead">Ask an aggregate question of the FHIR data your organization may read. The question is first read into a structured query you can review; nothing runs until you execute it.</p>
      <form onSubmit={(e) => { e.preventDefault(); void interpret.run(e.currentTarget); }}>
        <Field id="analytics-token" label="API token" hint="A token of yours with analytics.query and cms.fhir.r4.read (create one on the API tokens page). It stays in this page only.">
          <input id="analytics-token" type="password" autocomplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} aria-describedby="analytics-token-hint" />
        </Field>
        {viewer.environment === 'sandbox' && (
          <section aria-labelledby="samples-title" class="sample-data">
            <h2 id="samples-title">Sample data <span class="badge badge-sandbox">Sandbox</span></h2>
            <p>
              A new sandbox holds no patients, so every count is 0. Add {SAMPLE_PATIENT_COUNT} invented sample patients (family name Sample, no real person) with their conditions to your
              organization's sandbox data, each tagged as synthetic sample data; a second click adds nothing. The token above also needs <code>cms.fhir.bundle.push</code> and <code>cms.fhir.rest.write</code> for this.
              Sample data exists only in a sandbox: a production service does not offer it.
            </p>
            <ErrorBox error={addSamples.error} />
            {added !== null && <p role="status" data-testid="samples-added">{added > 0 ? `Added ${added} sample resources, tagged as synthetic sample data.` : 'The sample patients are already in your sandbox data.'}</p>}
            <button type="button" disabled={addSamples.busy || token.trim() === ''} onClick={() => void addSamples.run()}>Add sample patients</button>
          </section>
        )}
        <Field id="question" label="Question" hint='For example: "How many female patients over 65 with diabetes?"'>
          <textarea id="question" name="question" rows={2} required maxLength={500} aria-describedby="question-hint" value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
        </Field>
        <p>
          Try:{' '}
          {EXAMPLES.map((q) => (
            <button key={q} type="button" class="example" onClick={() => setQuestion(q)}>{q}</button>
          ))}
        </p>
        <Field id="purpose" label="Purpose of use">
          <select id="purpose" name="purpose">{PURPOSES.map(([code, label]) => <option key={code} value={code}>{label} ({code})</option>)}</select>
        </Field>
        <ErrorBox error={interpret.error} />
        {understood.length > 0 && <p>Understood: {understood.map((r) => `"${r.text}" as ${r.meaning}`).join('; ')}.</p>}
        {examples.length > 0 && (
          <div>
            <p>Questions it can read:</p>
            <ul>{examples.map((q) => <li key={q}>{q}</li>)}</ul>
          </div>
        )}
        <button type="submit" disabled={interpret.busy}>Read the question</button>
      </form>
      {query && (
        <section aria-labelledby="review-title" class="metrics">
          <h2 id="review-title">Review the query</h2>
          <p data-testid="analytics-summary">{query.summary}</p>
          <table>
            <caption class="sr-only">How each phrase was read</caption>
            <thead><tr><th scope="col">Phrase</th><th scope="col">Read as</th></tr></thead>
            <tbody>{query.readings.map((r) => <tr key={r.text}><td>{r.text}</td><td>{r.meaning}</td></tr>)}</tbody>
          </table>
          <details>
            <summary>Structured query (JSON)</summary>
            <pre>{JSON.stringify(query.structuredQuery, null, 2)}</pre>
          </details>
          <ErrorBox error={execute.error} />
          <button type="button" onClick={() => void execute.run(query.id)} disabled={execute.busy}>Execute</button>
        </section>
      )}
      {result && (
        <section aria-labelledby="result-title" aria-live="polite">
          <h2 id="result-title">Result</h2>
          <p data-testid="analytics-result">
            <strong>{result.value === null ? 'No value' : `${result.value}${result.unit ? ` ${result.unit}` : ''}`}</strong> ({result.measure}) from {result.patients} patients
            {result.observations > 0 ? ` and ${result.observations} observations` : ''}, as of {new Date(result.asOf).toLocaleString()}.
            {result.observationsInOtherUnits > 0 && ` ${result.observationsInOtherUnits} observations in units that could not be converted were left out.`}
          </p>
          {result.series && (
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">Period</th><th scope="col">Value</th><th scope="col">Patients</th></tr></thead>
                <tbody>{result.series.map((p) => <tr key={p.period}><td>{p.period}</td><td>{p.value ?? '—'}</td><td>{p.patients}</td></tr>)}</tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </Page>
  );
}
