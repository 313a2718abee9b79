import { useEffect, useState } from 'preact/hooks';
import { gql, subscribe } from '../api.js';
import type { Viewer } from '../main.js';
import { ErrorBox, Field, formValue, Loading, Page, SecretOnce, useAction, useQuery, when } from '../ui.js';

const LIST = `query Webhooks { webhookEventTypes { type category description status } webhooks { webhookId url description eventTypes enabled disabledReason createdAt lastSuccessAt } }`;
const CREATE = `mutation CreateWebhook($input: CreateWebhookInput!) { createWebhook(input: $input) { secret webhook { webhookId } } }`;
const REMOVE = `mutation RemoveWebhook($id: ID!) { removeWebhook(webhookId: $id) { webhookId } }`;
const PING = `mutation Ping($id: ID!) { sendWebhookTestPing(webhookId: $id) { deliveryId } }`;
const REDELIVER = `mutation Redeliver($id: ID!) { redeliverWebhookDelivery(deliveryId: $id) { deliveryId } }`;
const DELIVERIES = `query Deliveries($id: ID!) { webhook(webhookId: $id) { deliveries(first: 25) { edges { node {
  deliveryId eventType status attempts lastStatusCode lastError createdAt completedAt nextAttemptAt
  log { attempt trigger attemptedAt statusCode latencyMs error }
} } } } }`;
/** Any event of this partner may have queued a delivery: the log is read again when one arrives. */
const LIVE = 'subscription PortalEvents { events { id type } }';

interface Hook { webhookId: string; url: string; description: string | null; eventTypes: string[]; enabled: boolean; disabledReason: string | null; createdAt: string; lastSuccessAt: string | null }
interface EventType { type: string; category: string; description: string; status: string }
interface Attempt { attempt: number; trigger: string; attemptedAt: string; statusCode: number | null; latencyMs: number; error: string | null }
interface Delivery { deliveryId: string; eventType: string; status: string; attempts: number; lastStatusCode: number | null; lastError: string | null; createdAt: string; completedAt: string | null; nextAttemptAt: string | null; log: Attempt[] }

function DeliveryLog({ hook }: { hook: Hook }) {
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [tick, setTick] = useState(0);
  const refresh = () => setTick((n) => n + 1);
  const action = useAction(async (mutation: string, id: string) => {
    await gql(mutation, { id });
    refresh();
  });
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

  return (
    <section aria-labelledby={`log-${hook.webhookId}`}>
      <h3 id={`log-${hook.webhookId}`}>Delivery log</h3>
      <div class="row">
        <button type="button" onClick={() => void action.run(PING, hook.webhookId)}>Send test.ping</button>
        <button type="button" onClick={refresh}>Refresh</button>
      </div>
      <ErrorBox error={action.error} />
      <ol class="deliveries" aria-live="polite" data-testid="delivery-log">
        {deliveries.map((d) => (
          <li key={d.deliveryId}>
            <details>
              <summary>
                <span class={`status status-${d.status.toLowerCase()}`}>{d.status}</span> <code>{d.eventType}</code> · {d.attempts} attempt{d.attempts === 1 ? '' : 's'} · {d.lastStatusCode ?? d.lastError ?? ''} · {when(d.createdAt)}
              </summary>
              <table>
                <thead><tr><th scope="col">#</th><th scope="col">Trigger</th><th scope="col">At</th><th scope="col">HTTP</th><th scope="col">Latency</th><th scope="col">Error</th></tr></thead>
                <tbody>
                  {d.log.map((a) => (
                    <tr key={a.attempt}><td>{a.attempt}</td><td>{a.trigger}</td><td>{when(a.attemptedAt)}</td><td>{a.statusCode ?? '—'}</td><td>{a.latencyMs} ms</td><td>{a.error ?? ''}</td></tr>
                  ))}
                </tbody>
              </table>
              <button type="button" onClick={() => void action.run(REDELIVER, d.deliveryId)}>Redeliver</button>
            </details>
          </li>
        ))}
        {deliveries.length === 0 && <li>No deliveries yet.</li>}
      </ol>
    </section>
  );
}

export function WebhooksPage(_props: { viewer: Viewer }) {
  const state = useQuery<{ webhookEventTypes: EventType[]; webhooks: Hook[] }>(LIST);
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = useAction(async (form: HTMLFormElement) => {
    const eventTypes = [...form.querySelectorAll<HTMLInputElement>('input[name=event]:checked')].map((i) => i.value);
    const description = formValue(form, 'description');
    const res = await gql<{ createWebhook: { secret: string; webhook: { webhookId: string } } }>(CREATE, { input: { url: formValue(form, 'url'), eventTypes, ...(description ? { description } : {}) } });
    setSecret(res.createWebhook.secret);
    setOpen(res.createWebhook.webhook.webhookId);
    form.reset();
    state.reload();
  });
  const remove = useAction(async (id: string) => {
    await gql(REMOVE, { id });
    state.reload();
  });
  const hooks = state.data?.webhooks ?? [];
  return (
    <Page title="Webhooks">
      <Loading state={state} />
      {secret && <SecretOnce label="Signing secret" secret={secret} />}
      <form onSubmit={(e) => { e.preventDefault(); void create.run(e.currentTarget); }}>
        <h2>Register an endpoint</h2>
        <Field id="hook-url" label="Endpoint URL" hint="HTTPS in production. Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).">
          <input id="hook-url" name="url" type="url" required aria-describedby="hook-url-hint" />
        </Field>
        <Field id="hook-description" label="Description (optional)"><input id="hook-description" name="description" /></Field>
        <fieldset class="scopes">
          <legend>Events</legend>
          {(state.data?.webhookEventTypes ?? []).map((t) => (
            <label key={t.type} class="check"><input type="checkbox" name="event" value={t.type} /><span><code>{t.type}</code> <span class="hint">{t.description}</span></span></label>
          ))}
        </fieldset>
        <ErrorBox error={create.error} />
        <button type="submit" disabled={create.busy}>Register webhook</button>
      </form>
      <h2>Endpoints</h2>
      <ErrorBox error={remove.error} />
      <ul class="hooks">
        {hooks.map((h) => (
          <li key={h.webhookId}>
            <p>
              <code>{h.webhookId}</code> · <span class="url">{h.url}</span> · {h.enabled ? 'enabled' : `disabled (${h.disabledReason ?? ''})`}
            </p>
            <p class="hint">Events: {h.eventTypes.join(', ')}</p>
            <div class="row">
              <button type="button" aria-expanded={open === h.webhookId} onClick={() => setOpen(open === h.webhookId ? null : h.webhookId)}>{open === h.webhookId ? 'Hide deliveries' : 'Deliveries'}</button>
              <button type="button" class="danger" onClick={() => confirm(`Remove ${h.url}?`) && void remove.run(h.webhookId)}>Remove</button>
            </div>
            {open === h.webhookId && <DeliveryLog hook={h} />}
          </li>
        ))}
        {hooks.length === 0 && <li>No endpoints yet.</li>}
      </ul>
    </Page>
  );
}
