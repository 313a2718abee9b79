import { gql } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Loading, Page, useAction, useQuery, when } from '../ui.js';

const QUERY = /* GraphQL */ `query Certification($gpid: ID!) {
  certificationChecklists { id title description items { id title description evidenceKind required observation } }
  partner(gpid: $gpid) { certification { status checklists { id complete requiredTotal requiredCompleted submittedAt items { id } } evidence { itemId observedAt detail } } }
}`;
const SUBMIT = /* GraphQL */ `mutation SubmitCertification($id: ID!) { submitCertification(checklistId: $id) { status } }`;

interface Checklist { id: string; title: string; description: string; items: { id: string; title: string; description: string; evidenceKind: string; required: boolean; observation: string | null }[] }
interface State { status: string; checklists: { id: string; complete: boolean; requiredTotal: number; requiredCompleted: number; submittedAt: string | null }[]; evidence: { itemId: string; observedAt: string; detail: string | null }[] }

export function CertificationPage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ certificationChecklists: Checklist[]; partner: { certification: State } | null }>(QUERY, { gpid: viewer.partnerGpid });
  const submit = useAction(async (id: string) => {
    await gql(SUBMIT, { id });
    state.reload();
  });
  const cert = state.data?.partner?.certification;
  return (
    <Page title="Certification">
      <Loading state={state} />
      {cert && <p class="lead">Status: <strong>{cert.status}</strong></p>}
      <ErrorBox error={submit.error} />
      {state.data?.certificationChecklists.map((c) => {
        const progress = cert?.checklists.find((s) => s.id === c.id);
        return (
          <article key={c.id} class="release">
            <h2>{c.title}</h2>
            <p>{c.description}</p>
            {progress && (
              <p>
                <label for={`progress-${c.id}`}>{progress.requiredCompleted} of {progress.requiredTotal} required items</label>{' '}
                <progress id={`progress-${c.id}`} max={progress.requiredTotal} value={progress.requiredCompleted} />
              </p>
            )}
            <ul class="checklist">
              {c.items.map((item) => {
                const evidence = cert?.evidence.find((e) => e.itemId === item.id);
                return (
                  <li key={item.id} class={evidence ? 'done' : ''}>
                    <strong>{evidence ? '✓ ' : '○ '}{item.title}</strong>{item.required ? '' : ' (optional)'}
                    <div class="hint">{item.description}{item.observation ? ` Observed by the service: ${item.observation}` : ''}</div>
                    {evidence && <div class="hint">Evidence {when(evidence.observedAt)}{evidence.detail ? `: ${evidence.detail}` : ''}</div>}
                  </li>
                );
              })}
            </ul>
            {progress?.submittedAt ? <p>Submitted {when(progress.submittedAt)}.</p> : <button type="button" disabled={!progress?.complete || submit.busy} onClick={() => void submit.run(c.id)}>Submit for certification</button>}
          </article>
        );
      })}
    </Page>
  );
}
