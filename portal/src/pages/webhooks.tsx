import { useEffect, useRef, useState } from 'preact/hooks';
import { gql, subscribe } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, SecretOnce, useAction, useQuery, when } from '../ui.js';

const LIST = /* GraphQL */ `query Webhooks { webhookEventTypes { type category description status } webhooks { webhookId url description eventTypes enabled disabledReason createdAt lastSuccessAt signatureVerifiedAt previousSecretExpiresAt recentDeliveryStats { attempts succeeded failed successRate } } }`;
const CREATE = /* GraphQL */ `mutation CreateWebhook($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { webhookId } } }`;
const UPDATE = /* GraphQL */ `mutation UpdateWebhook($id: ID!, $input: UpdateWebhookInput!) { updateWebhook(webhookId: $id, input: $input) { webhookId } }`;
const REMOVE = /* GraphQL */ `mutation RemoveWebhook($id: ID!) { removeWebhook(webhookId: $id) { webhookId } }`;
const ENABLE = /* GraphQL */ `mutation EnableWebhook($id: ID!) { enableWebhook(webhookId: $id) { webhookId } }`;
const DISABLE = /* GraphQL */ `mutation DisableWebhook($id: ID!) { disableWebhook(webhookId: $id) { webhookId } }`;
const ROTATE = /* GraphQL */ `mutation RotateWebhookSecret($id: ID!, $overlap: Int) { rotateWebhookSecret(webhookId: $id, overlapSeconds: $overlap) { secret webhook { webhookId previousSecretExpiresAt } } }`;
const PING = /* GraphQL */ `mutation Ping($id: ID!) { sendWebhookTestPing(webhookId: $id) { deliveryId } }`;
const SAMPLE = /* GraphQL */ `mutation Sample($id: ID!, $type: String!) { sendWebhookSample(webhookId: $id, eventType: $type) { deliveryId } }`;
const REDELIVER = /* GraphQL */ `mutation Redeliver($id: ID!) { redeliverWebhookDelivery(deliveryId: $id) { deliveryId } }`;
const DELIVERIES = /* GraphQL */ `query Deliveries($id: ID!) { webhook(webhookId: $id) { deliveries(first: 25) { edges { node {
  deliveryId eventType sample status attempts lastStatusCode lastError createdAt completedAt nextAttemptAt body
  log { attempt trigger attemptedAt statusCode latencyMs responseExcerpt error nextRetryAt probeStatusCode signatureCheck }
} } } } }`;
/** Any event of this partner may have queued a delivery: the log is read again when one arrives. */
const LIVE = /* GraphQL */ `subscription PortalEvents { events { id type } }`;

/** How long the replaced secret also signs, so a receiver can switch keys without refusing deliveries. */
const OVERLAP_CHOICES = [
  { seconds: 0, label: 'Old secret stops signing now' },
  { seconds: 3600, label: 'Both secrets sign for 1 hour' },
  { seconds: 86400, label: 'Both secrets sign for 24 hours' },
];

interface Stats { attempts: number; succeeded: number; failed: number; successRate: number | null }
interface Hook { webhookId: string; url: string; description: string | null; eventTypes: string[]; enabled: boolean; disabledReason: string | null; createdAt: string; lastSuccessAt: string | null; signatureVerifiedAt: string | null; previousSecretExpiresAt: string | null; recentDeliveryStats: Stats }
interface EventType { type: string; category: string; description: string; status: string }
interface Attempt { attempt: number; trigger: string; attemptedAt: string; statusCode: number | null; latencyMs: number; responseExcerpt: string | null; error: string | null; nextRetryAt: string | null; probeStatusCode: number | null; signatureCheck: 'VERIFIED' | 'NOT_VERIFIED' | 'NOT_CHECKED' }
interface Delivery { deliveryId: string; eventType: string; sample: boolean; status: string; attempts: number; lastStatusCode: number | null; lastError: string | null; createdAt: string; completedAt: string | null; nextAttemptAt: string | null; body: string; log: Attempt[] }

/** The body as sent, indented for reading (the signed bytes are the compact form). */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * A delivery's state as the log shows it. A test.ping answered 2xx is only "reachable" unless the
 * receiver also refused the mis-signed probe: green is kept for what is really proven.
 */
function deliveryState(d: Delivery): { label: string; css: string; signature: { label: string; css: string } | null } {
  const check = d.eventType === 'test.ping' ? d.log[d.log.length - 1]?.signatureCheck : undefined;
  if (d.status === 'SUCCEEDED' && check === 'NOT_VERIFIED') return { label: 'SUCCEEDED', css: 'status-reachable', signature: { label: 'Reachable, signature NOT verified', css: 'badge badge-warn' } };
  if (d.status === 'SUCCEEDED' && check === 'VERIFIED') return { label: 'SUCCEEDED', css: 'status-succeeded', signature: { label: 'Signature verified', css: 'badge badge-ok' } };
  return { label: d.status, css: `status-${d.status.toLowerCase()}`, signature: null };
}

function DeliveryLog({ hook, eventTypes, onSettled }: { hook: Hook; eventTypes: EventType[]; onSettled: () => void }) {
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [tick, setTick] = useState(0);
  const refresh = () => setTick((n) => n + 1);
  const action = useAction(async (mutation: string, variables: Record<string, unknown>) => {
    await gql(mutation, variables);
    refresh();
  });
  const [sampleType, setSampleType] = useState(eventTypes[0]?.type ?? '');
  useEffect(() => {
    let live = true;
    void gql<{ webhook: { deliveries: { edges: { node: Delivery }[] } } | null }>(DELIVERIES, { id: hook.webhookId }).then((d) => live && setDeliveries(d.webhook?.deliveries.edges.map((e) => e.node) ?? []));
    return () => {
      live = false;
    };
  }, [hook.webhookId, tick]);
  // Live: every event of the partner (the subscription) re-reads the log; while an attempt is under way it is re-read briefly too.
  useEffect(() => subscribe(LIVE, {}, () => refresh()), []);
  const inFlight = deliveries.some((d) => d.status === 'PENDING' || d.status === 'SENDING');
  useEffect(() => {
    if (!inFlight) return;
    const timer = setTimeout(refresh, 1000);
    return () => clearTimeout(timer);
  }, [inFlight, tick]);
  // When deliveries settle, the endpoint's verification and success rate may have changed: read it again.
  const settled = inFlight ? null : deliveries.map((d) => `${d.deliveryId}:${d.status}:${d.attempts}`).join(' ');
  const lastSettled = useRef<string | null>(null);
  useEffect(() => {
    if (settled === null) return;
    if (lastSettled.current !== null && lastSettled.current !== settled) onSettled();
    lastSettled.current = settled;
  }, [settled]);

  const sampleId = `sample-${hook.webhookId}`;
  return (
    <section aria-labelledby={`log-${hook.webhookId}`}>
      <h3 id={`log-${hook.webhookId}`}>Delivery log</h3>
      <div class="row">
        <button type="button" disabled={action.busy} onClick={() => void action.run(PING, { id: hook.webhookId })}>Send test.ping</button>
        <button type="button" onClick={refresh}>Refresh</button>
      </div>
      <p class="hint">
        test.ping is sent twice: signed, then the same body under a wrong key. A receiver that verifies signatures accepts the first (2xx) and refuses the second (4xx); only then is it verified.
      </p>
      <div class="row sample">
        <Field id={sampleId} label="Event type for a sample">
          <select id={sampleId} value={sampleType} onChange={(e) => setSampleType(e.currentTarget.value)}>
            {eventTypes.map((t) => (
              <option key={t.type} value={t.type}>{t.type}</option>
            ))}
          </select>
        </Field>
        <button type="button" disabled={action.busy || !sampleType} onClick={() => void action.run(SAMPLE, { id: hook.webhookId, type: sampleType })}>Send sample</button>
      </div>
      <ErrorBox error={action.error} />
      <ol class="deliveries" aria-live="polite" data-testid="delivery-log">
        {deliveries.map((d) => {
          const state = deliveryState(d);
          return (
            <li key={d.deliveryId}>
              <details>
                <summary>
                  <span class={`status ${state.css}`}>{state.label}</span> {state.signature && <span class={state.signature.css}>{state.signature.label}</span>} <code>{d.eventType}</code>
                  {d.sample ? ' (sample)' : ''} · {d.attempts} attempt{d.attempts === 1 ? '' : 's'} · {d.lastStatusCode ?? d.lastError ?? ''} · {when(d.createdAt)}
                  {d.nextAttemptAt && d.status === 'PENDING' && <> · next attempt {when(d.nextAttemptAt)}</>}
                </summary>
                <p class="hint">Delivery id (webhook-id header): <code>{d.deliveryId}</code></p>
                {d.lastError && <p class="note">{d.lastError}</p>}
                <h4>Request body, as signed and sent</h4>
                <pre class="payload" tabIndex={0} aria-label={`Request body of ${d.deliveryId}`}>{pretty(d.body)}</pre>
                <h4>Attempts</h4>
                <div class="table-wrap">
                  <table>
                    <thead><tr><th scope="col">#</th><th scope="col">Trigger</th><th scope="col">At</th><th scope="col">HTTP</th><th scope="col">Latency</th><th scope="col">Wrong-key probe</th><th scope="col">Next retry</th><th scope="col">Error</th></tr></thead>
                    <tbody>
                      {d.log.map((a) => (
                        <tr key={a.attempt}>
                          <td>{a.attempt}</td><td>{a.trigger}</td><td>{when(a.attemptedAt)}</td><td>{a.statusCode ?? '—'}</td><td>{a.latencyMs} ms</td>
                          <td>{a.probeStatusCode === null ? '—' : `${a.probeStatusCode || 'no answer'} (${a.signatureCheck === 'VERIFIED' ? 'refused: verified' : 'not refused'})`}</td>
                          <td>{a.nextRetryAt ? when(a.nextRetryAt) : '—'}</td><td>{a.error ?? ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {d.log.map((a) => (
                  <div key={a.attempt}>
                    <h4>Response body of attempt {a.attempt}</h4>
                    {a.responseExcerpt ? (
                      <pre class="payload" tabIndex={0} aria-label={`Response body of attempt ${a.attempt}`}>{a.responseExcerpt}</pre>
                    ) : (
                      <p class="hint">No body.</p>
                    )}
                  </div>
                ))}
                {d.log.length > 0 && <p class="hint">Response bodies are kept up to their first 1024 characters.</p>}
                <button type="button" disabled={action.busy} onClick={() => void action.run(REDELIVER, { id: d.deliveryId })}>Redeliver</button>
              </details>
            </li>
          );
        })}
        {deliveries.length === 0 && <li>No deliveries yet.</li>}
      </ol>
    </section>
  );
}

function EditEndpoint({ hook, eventTypes, onDone }: { hook: Hook; eventTypes: EventType[]; onDone: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const types = [...form.querySelectorAll<HTMLInputElement>('input[name=edit-event]:checked')].map((i) => i.value);
    await gql(UPDATE, { id: hook.webhookId, input: { url: formValue(form, 'url'), eventTypes: types, description: formValue(form, 'description') } });
    onDone();
  });
  const known = new Set(eventTypes.map((t) => t.type));
  const id = hook.webhookId;
  return (
    <form aria-label={`Edit ${hook.url}`} onSubmit={(e) => { e.preventDefault(); void save.run(e.currentTarget); }}>
      <Field id={`url-${id}`} label="URL of this endpoint" hint="A new URL is a new receiver: send a test.ping to verify it again.">
        <input id={`url-${id}`} name="url" type="url" required defaultValue={hook.url} aria-describedby={`url-${id}-hint`} />
      </Field>
      <Field id={`desc-${id}`} label="Description"><input id={`desc-${id}`} name="description" defaultValue={hook.description ?? ''} /></Field>
      <fieldset class="scopes">
        <legend>Event types to send</legend>
        {eventTypes.map((t) => (
          <label key={t.type} class="check"><input type="checkbox" name="edit-event" value={t.type} defaultChecked={hook.eventTypes.includes(t.type)} /><span><code>{t.type}</code></span></label>
        ))}
        {hook.eventTypes.filter((f) => !known.has(f)).map((f) => (
          <label key={f} class="check"><input type="checkbox" name="edit-event" value={f} defaultChecked /><span><code>{f}</code> <span class="hint">(wildcard)</span></span></label>
        ))}
      </fieldset>
      <ErrorBox error={save.error} />
      <div class="row">
        <button type="submit" disabled={save.busy}>Save changes</button>
        <button type="button" class="secondary" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}

function successRate(stats: Stats): string {
  if (stats.attempts === 0) return 'no attempts in the last 24 h';
  return `${Math.round((stats.successRate ?? 0) * 100)} % of ${stats.attempts} attempt${stats.attempts === 1 ? '' : 's'} in the last 24 h`;
}

export function WebhooksPage(_props: { viewer: Viewer }) {
  const state = useQuery<{ webhookEventTypes: EventType[]; webhooks: Hook[] }>(LIST);
  const [secret, setSecret] = useState<{ label: string; secret: string; note?: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [overlap, setOverlap] = useState(86400);
  const create = useAction(async (form: HTMLFormElement) => {
    const eventTypes = [...form.querySelectorAll<HTMLInputElement>('input[name=event]:checked')].map((i) => i.value);
    const description = formValue(form, 'description');
    const res = await gql<{ createWebhook: { secret: string; webhook: { webhookId: string } } }>(CREATE, { input: { url: formValue(form, 'url'), eventTypes, ...(description ? { description } : {}) } });
    setSecret({ label: 'Signing secret', secret: res.createWebhook.secret });
    setOpen(res.createWebhook.webhook.webhookId);
    form.reset();
    state.reload();
  });
  const act = useAction(async (mutation: string, id: string) => {
    await gql(mutation, { id });
    state.reload();
  });
  const rotate = useAction(async (h: Hook) => {
    const res = await gql<{ rotateWebhookSecret: { secret: string; webhook: { previousSecretExpiresAt: string | null } } }>(ROTATE, { id: h.webhookId, overlap });
    const until = res.rotateWebhookSecret.webhook.previousSecretExpiresAt;
    setSecret({ label: `New signing secret of ${h.url}`, secret: res.rotateWebhookSecret.secret, note: until ? `Deliveries carry both signatures (new and old secret) until ${when(until)}.` : 'The old secret no longer signs.' });
    state.reload();
  });
  const hooks = state.data?.webhooks ?? [];
  const eventTypes = state.data?.webhookEventTypes ?? [];
  const busy = act.busy || rotate.busy;
  return (
    <Page title="Webhooks">
      <Loading state={state} />
      {secret && (
        <>
          <SecretOnce label={secret.label} secret={secret.secret} />
          {secret.note && <p class="notice" role="status">{secret.note}</p>}
        </>
      )}
      <form onSubmit={(e) => { e.preventDefault(); void create.run(e.currentTarget); }}>
        <h2>Register an endpoint</h2>
        <Field id="hook-url" label="Endpoint URL" hint="HTTPS in production. Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).">
          <input id="hook-url" name="url" type="url" required aria-describedby="hook-url-hint" />
        </Field>
        <Field id="hook-description" label="Description (optional)"><input id="hook-description" name="description" /></Field>
        <fieldset class="scopes">
          <legend>Events</legend>
          {eventTypes.map((t) => (
            <label key={t.type} class="check"><input type="checkbox" name="event" value={t.type} /><span><code>{t.type}</code> <span class="hint">{t.description}</span></span></label>
          ))}
        </fieldset>
        <ErrorBox error={create.error} />
        <button type="submit" disabled={create.busy}>Register webhook</button>
      </form>
      <h2>Endpoints</h2>
      <ErrorBox error={act.error ?? rotate.error} />
      {hooks.length > 0 && (
        <Field id="rotate-overlap" label="When rotating a signing secret">
          <select id="rotate-overlap" value={overlap} onChange={(e) => setOverlap(Number(e.currentTarget.value))}>
            {OVERLAP_CHOICES.map((c) => <option key={c.seconds} value={c.seconds}>{c.label}</option>)}
          </select>
        </Field>
      )}
      <ul class="hooks">
        {hooks.map((h) => (
          <li key={h.webhookId} data-testid={`hook-${h.webhookId}`}>
            <p>
              <code>{h.webhookId}</code> · <span class="url">{h.url}</span> · {h.enabled ? <span class="badge badge-ok">enabled</span> : <span class="badge badge-bad">disabled ({h.disabledReason ?? ''})</span>}
            </p>
            <p class="hint">Events: {h.eventTypes.join(', ')}{h.description ? ` · ${h.description}` : ''}</p>
            <p>
              Signature verification:{' '}
              {h.signatureVerifiedAt ? <span class="badge badge-ok">verified {when(h.signatureVerifiedAt)}</span> : <span class="badge badge-warn">not verified: send a test.ping</span>}
              {' · '}Success rate: <strong data-testid="success-rate">{successRate(h.recentDeliveryStats)}</strong>
            </p>
            {h.previousSecretExpiresAt && <p class="hint">Both secrets sign until {when(h.previousSecretExpiresAt)}.</p>}
            <div class="row">
              <button type="button" aria-expanded={open === h.webhookId} onClick={() => setOpen(open === h.webhookId ? null : h.webhookId)}>{open === h.webhookId ? 'Hide deliveries' : 'Deliveries'}</button>
              <button type="button" aria-expanded={editing === h.webhookId} aria-label={`Edit ${h.url}`} onClick={() => setEditing(editing === h.webhookId ? null : h.webhookId)}>Edit</button>
              {h.enabled ? (
                <button type="button" disabled={busy} aria-label={`Disable ${h.url}`} onClick={() => void act.run(DISABLE, h.webhookId)}>Disable</button>
              ) : (
                <button type="button" disabled={busy} aria-label={`Enable ${h.url}`} onClick={() => void act.run(ENABLE, h.webhookId)}>Enable</button>
              )}
              <button type="button" disabled={busy} aria-label={`Rotate secret of ${h.url}`} onClick={() => void rotate.run(h)}>Rotate secret</button>
              <button type="button" class="danger" disabled={busy} onClick={() => confirm(`Remove ${h.url}?`) && void act.run(REMOVE, h.webhookId)}>Remove</button>
            </div>
            {editing === h.webhookId && <EditEndpoint hook={h} eventTypes={eventTypes} onDone={() => { setEditing(null); state.reload(); }} />}
            {open === h.webhookId && <DeliveryLog hook={h} eventTypes={eventTypes} onSettled={state.reload} />}
          </li>
        ))}
        {hooks.length === 0 && <li>No endpoints yet.</li>}
      </ul>
    </Page>
  );
}
