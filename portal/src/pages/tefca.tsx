import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, useAction, useQuery, when } from '../ui.js';

const DIRECTORY = /* GraphQL */ `query TefcaDirectory { tefcaCommunities { homeCommunityId name capabilities self sandbox }
  tefcaExchanges(first: 10) { edges { node { exchangeId kind direction purposeOfUse outcome resultCount startedAt durationMs } } } }`;
const DISCOVER = /* GraphQL */ `mutation Discover($purposeOfUse: String, $patient: TefcaPatientInput!) {
  tefcaSearchPatients(purposeOfUse: $purposeOfUse, patient: $patient) { exchangeId outcome
    matches { homeCommunityId communityName patientId matchQuality matchGrade }
    communities { homeCommunityId name status durationMs resultCount error } }
}`;
const DOCUMENTS = /* GraphQL */ `mutation Documents($purposeOfUse: String, $patients: [TefcaCommunityPatientInput!]!) {
  tefcaSearchDocuments(purposeOfUse: $purposeOfUse, patients: $patients) { exchangeId outcome
    documents { homeCommunityId communityName documentId title typeDisplay contentType created size }
    communities { homeCommunityId name status durationMs resultCount error } }
}`;

/** A person of the sandbox peer community's synthetic data set (no real person). */
const SAMPLE_PATIENT = { given: 'Jordan', family: 'Sample', birthDate: '1980-04-12', gender: 'female' };

/** TEFCA exchange purposes (the service validates them; these are the labels). */
const PURPOSES: [string, string][] = [
  ['T-TRTMNT', 'Treatment'],
  ['T-PYMNT', 'Payment'],
  ['T-HCO', 'Health care operations'],
  ['T-HCO-CC', 'Care coordination'],
  ['T-PH', 'Public health'],
  ['T-IAS', 'Individual access services'],
  ['T-GOVDTRM', 'Government benefits determination'],
];

interface Outcome { homeCommunityId: string; name: string | null; status: string; durationMs: number; resultCount: number; error: string | null }
interface Match { homeCommunityId: string; communityName: string; patientId: string; matchQuality: number; matchGrade: string | null }
interface Doc { homeCommunityId: string; communityName: string; documentId: string; title: string | null; typeDisplay: string | null; contentType: string | null; created: string | null; size: number | null }
interface Directory {
  tefcaCommunities: { homeCommunityId: string; name: string; capabilities: string[]; self: boolean; sandbox?: boolean }[];
  tefcaExchanges: { edges: { node: { exchangeId: string; kind: string; direction: string; purposeOfUse: string | null; outcome: string; resultCount: number; startedAt: string; durationMs: number } }[] };
}

function Communities({ outcomes }: { outcomes: Outcome[] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>Communities asked</caption>
        <thead><tr><th scope="col">Community</th><th scope="col">Status</th><th scope="col">Results</th><th scope="col">Time</th></tr></thead>
        <tbody>
          {outcomes.map((o) => <tr key={o.homeCommunityId}><td>{o.name ?? o.homeCommunityId}</td><td>{o.status}{o.error ? `: ${o.error}` : ''}</td><td>{o.resultCount}</td><td>{o.durationMs} ms</td></tr>)}
          {outcomes.length === 0 && <tr><td colSpan={4}>No peer community offers this transaction.</td></tr>}
        </tbody>
      </table>
    </div>
  );
}

/** The TEFCA playground: patient discovery across the peer communities, then their documents, with the audit log. */
export function TefcaPage({ viewer }: { viewer: Viewer }) {
  const allowed = viewer.scopes.some((s) => s === '*' || s.startsWith('tefca.'));
  const directory = useQuery<Directory>(allowed ? DIRECTORY : /* GraphQL */ `{ __typename }`);
  const [purpose, setPurpose] = useState(PURPOSES[0]![0]);
  const [found, setFound] = useState<{ matches: Match[]; communities: Outcome[] } | null>(null);
  const [docs, setDocs] = useState<{ documents: Doc[]; communities: Outcome[] } | null>(null);
  const discover = useAction(async (form: HTMLFormElement) => {
    setFound(null);
    setDocs(null);
    const given = formValue(form, 'given').trim();
    const patient = { ...(given ? { given: given.split(/\s+/) } : {}), family: formValue(form, 'family').trim() || null, birthDate: formValue(form, 'birthDate') || null, gender: formValue(form, 'gender') || null };
    setFound((await gql<{ tefcaSearchPatients: { matches: Match[]; communities: Outcome[] } }>(DISCOVER, { purposeOfUse: purpose, patient })).tefcaSearchPatients);
    directory.reload();
  });
  const documents = useAction(async (m: Match) => {
    setDocs((await gql<{ tefcaSearchDocuments: { documents: Doc[]; communities: Outcome[] } }>(DOCUMENTS, { purposeOfUse: purpose, patients: [{ homeCommunityId: m.homeCommunityId, patientId: m.patientId }] })).tefcaSearchDocuments);
    directory.reload();
  });

  if (!allowed) {
    return (
      <Page title="TEFCA exchange">
        <p>TEFCA exchange needs the <code>tefca.xcpd.*</code> and <code>tefca.xca.*</code> scopes, which your organization does not hold. <a href="/portal/scopes">Request them</a> on the Scopes page; an operator decides, and the playground opens here as soon as they are granted.</p>
      </Page>
    );
  }
  // `?.` on each field: right after a grant, the data may still be the placeholder query's.
  const peers = directory.data?.tefcaCommunities ?? [];
  const sandboxPeer = peers.find((c) => c.sandbox);
  const others = peers.filter((c) => !c.self);
  const fillSample = () => {
    const set = (id: string, value: string) => {
      const el = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
      if (el) el.value = value;
    };
    set('tefca-given', SAMPLE_PATIENT.given);
    set('tefca-family', SAMPLE_PATIENT.family);
    set('tefca-birth', SAMPLE_PATIENT.birthDate);
    set('tefca-gender', SAMPLE_PATIENT.gender);
  };
  return (
    <Page title="TEFCA exchange">
      <Loading state={directory} />
      <p class="lead">Find a patient in the peer communities of the TEFCA directory, then the documents they hold. Every exchange states its purpose and is audited.</p>
      {sandboxPeer && (
        <div class="notice sample-data" data-testid="sandbox-peer">
          <p>
            <span class="badge badge-sandbox">Sandbox</span> This sandbox exchanges with the <strong>{sandboxPeer.name}</strong>: a built-in peer that answers like a real community, from invented
            sample people and documents (no real person). Try {SAMPLE_PATIENT.given} {SAMPLE_PATIENT.family}, born {SAMPLE_PATIENT.birthDate}.
          </p>
          <button type="button" class="example" onClick={fillSample}>Fill in the sample patient</button>
        </div>
      )}
      {directory.data && others.length === 0 && (
        <p class="notice" data-testid="no-peers">No peer community is in this directory yet, so there is nobody to ask. The directory is configured by this service's operator: ask them to add the communities you need.</p>
      )}
      <form onSubmit={(e) => { e.preventDefault(); void discover.run(e.currentTarget); }}>
        <h2>Patient discovery (XCPD)</h2>
        <Field id="tefca-purpose" label="Purpose of use">
          <select id="tefca-purpose" value={purpose} onChange={(e) => setPurpose(e.currentTarget.value)}>{PURPOSES.map(([code, label]) => <option key={code} value={code}>{label} ({code})</option>)}</select>
        </Field>
        <div class="columns">
          <Field id="tefca-given" label="Given names"><input id="tefca-given" name="given" autocomplete="off" /></Field>
          <Field id="tefca-family" label="Family name"><input id="tefca-family" name="family" autocomplete="off" required /></Field>
          <Field id="tefca-birth" label="Date of birth"><input id="tefca-birth" name="birthDate" type="date" required /></Field>
          <Field id="tefca-gender" label="Administrative sex">
            <select id="tefca-gender" name="gender"><option value="">Not given</option><option value="female">Female</option><option value="male">Male</option><option value="other">Other</option><option value="unknown">Unknown</option></select>
          </Field>
        </div>
        <ErrorBox error={discover.error} />
        <button type="submit" disabled={discover.busy}>Search peer communities</button>
      </form>
      {found && (
        <section aria-labelledby="matches-title" aria-live="polite">
          <h2 id="matches-title">Matches</h2>
          <Communities outcomes={found.communities} />
          <div class="table-wrap">
            <table data-testid="tefca-matches">
              <thead><tr><th scope="col">Community</th><th scope="col">Patient id</th><th scope="col">Match</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {found.matches.map((m) => (
                  <tr key={`${m.homeCommunityId}:${m.patientId}`}>
                    <td>{m.communityName}</td><td><code>{m.patientId}</code></td><td>{Math.round(m.matchQuality * 100)} %{m.matchGrade ? ` (${m.matchGrade})` : ''}</td>
                    <td><button type="button" onClick={() => void documents.run(m)} aria-label={`Find documents of ${m.patientId} at ${m.communityName}`}>Find documents</button></td>
                  </tr>
                ))}
                {found.matches.length === 0 && <tr><td colSpan={4}>No community found this patient.</td></tr>}
              </tbody>
            </table>
          </div>
          <ErrorBox error={documents.error} />
        </section>
      )}
      {docs && (
        <section aria-labelledby="docs-title" aria-live="polite">
          <h2 id="docs-title">Documents (XCA)</h2>
          <Communities outcomes={docs.communities} />
          <div class="table-wrap">
            <table>
              <thead><tr><th scope="col">Community</th><th scope="col">Title</th><th scope="col">Type</th><th scope="col">Created</th><th scope="col">Size</th></tr></thead>
              <tbody>
                {docs.documents.map((d) => <tr key={`${d.homeCommunityId}:${d.documentId}`}><td>{d.communityName}</td><td>{d.title ?? d.documentId}</td><td>{d.typeDisplay ?? d.contentType ?? '—'}</td><td>{d.created ?? '—'}</td><td>{d.size ?? '—'}</td></tr>)}
                {docs.documents.length === 0 && <tr><td colSpan={5}>No documents.</td></tr>}
              </tbody>
            </table>
          </div>
        </section>
      )}
      <h2>Directory</h2>
      <ul>{peers.map((c) => <li key={c.homeCommunityId}>{c.name} <code>{c.homeCommunityId}</code>{c.self ? ' (this community)' : ''}{c.sandbox ? <> <span class="badge badge-sandbox">Sandbox peer: sample data</span></> : null}: {c.capabilities.join(', ')}</li>)}</ul>
      <h2>Recent exchanges</h2>
      <div class="table-wrap">
        <table data-testid="tefca-exchanges">
          <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Direction</th><th scope="col">Purpose</th><th scope="col">Outcome</th><th scope="col">Results</th></tr></thead>
          <tbody>
            {(directory.data?.tefcaExchanges?.edges ?? []).map(({ node: x }) => <tr key={x.exchangeId}><td>{when(x.startedAt)}</td><td>{x.kind}</td><td>{x.direction}</td><td>{x.purposeOfUse ?? '—'}</td><td>{x.outcome}</td><td>{x.resultCount}</td></tr>)}
            {(directory.data?.tefcaExchanges?.edges.length ?? 0) === 0 && <tr><td colSpan={6}>No exchanges yet.</td></tr>}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
