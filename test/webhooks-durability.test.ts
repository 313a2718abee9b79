import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { freshStorage, type TestStorage } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { eventually, PATIENCE_MS } from './support/patience.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Deliveries are rows: a process killed with SIGKILL in the middle of an attempt leaves the row
 * leased; once the lease runs out the next process sends it again under the same webhook-id, and
 * the receiver, deduplicating by webhook-id, processes the event once.
 *
 * The receiver holds the first attempt until the sender is dead, so the kill always lands in the
 * middle of it; the attempt timeout only has to outlast the moments between the attempt's start
 * and the kill on a busy machine, and the lease (two timeouts and 2 s) is what the restart waits.
 */
const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_MS = 2 * ATTEMPT_TIMEOUT_MS + 2000;

describe('webhooks: a delivery survives SIGKILL of the process sending it', () => {
  let storage: TestStorage;
  let receiver: WebhookReceiver;
  const processes: ServiceProcess[] = [];
  const operator = `op_${randomBytes(24).toString('base64url')}`;

  beforeAll(async () => {
    storage = await freshStorage();
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await receiver?.close();
    await storage?.dispose();
  });

  const env = () => ({
    ...storage.env,
    SVC_BOOTSTRAP_TOKEN: operator,
    SVC_OUTBOX_POLL_MS: '50',
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    SVC_WEBHOOK_TIMEOUT_MS: String(ATTEMPT_TIMEOUT_MS),
    SVC_WEBHOOK_POLL_MS: '100',
    SVC_WEBHOOK_RETRY_BASE_MS: '100',
  });
  const graphql = async <T>(p: ServiceProcess, query: string, variables: Record<string, unknown> = {}): Promise<T> => {
    const res = await fetch(`${p.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${operator}` }, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data: T; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data;
  };

  it('resumes the delivery after a restart, same webhook-id, processed once', async () => {
    const first = await startProcess('all', env());
    processes.push(first);
    await waitUntilReady(first);
    const { registerPartner } = await graphql<{ registerPartner: { gpid: string } }>(first, 'mutation { registerPartner(input: { legalName: "Durable Health", organizationType: "LABORATORY" }) { gpid } }');
    const url = receiver.path('durable', { script: [{ status: 200, held: true }] });
    const created = await fetch(`${first.url}/api/partner/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operator}` },
      body: JSON.stringify({ url, event_types: ['pipeline.sync.completed'], partner_gpid: registerPartner.gpid }),
    });
    expect(created.status).toBe(201);
    const { webhook_id: webhookId, secret } = (await created.json()) as { webhook_id: string; secret: string };
    receiver.setSecrets('durable', [secret]);

    const job = await graphql<{ createSyncJob: { jobId: string } }>(first, 'mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: registerPartner.gpid });
    await graphql(first, 'mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 1) { status } }', { j: job.createSyncJob.jobId });

    // The first attempt is in flight (the receiver holds it): kill the sender, then let the
    // receiver answer it, to nobody.
    await eventually(async () => expect(receiver.of('durable')).toHaveLength(1));
    await first.stop('SIGKILL');
    receiver.release('durable');

    const second = await startProcess('all', env());
    processes.push(second);
    await waitUntilReady(second);
    await eventually(async () => expect(receiver.of('durable').filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2), LEASE_MS + PATIENCE_MS);
    const ids = new Set(receiver.of('durable').map((r) => r.id));
    expect(ids.size).toBe(1);
    expect(receiver.state('durable').processed.size).toBe(1);

    const state = await eventually(async () => {
      const data = await graphql<{ webhook: { deliveries: { edges: { node: { deliveryId: string; status: string; attempts: number } }[] } } }>(
        second,
        'query($w: ID!) { webhook(webhookId: $w) { deliveries { edges { node { deliveryId status attempts } } } } }',
        { w: webhookId },
      );
      const node = data.webhook.deliveries.edges[0]!.node;
      expect(node.status).toBe('SUCCEEDED');
      return node;
    });
    expect(ids.has(state.deliveryId)).toBe(true);
    // The killed attempt was never recorded; the one that resumed it is.
    expect(state.attempts).toBe(1);
  }, 900_000);
});
