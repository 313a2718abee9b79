import { afterAll, describe, expect, it } from 'vitest';
import { bootSystem } from './support/system.js';
import { freshStorage } from './support/databases.js';

describe('persistence: migrations on start, data across restarts, events flushed on shutdown', async () => {
  const storage = await freshStorage();
  afterAll(() => storage.dispose());
  const token = 'restart-operator-secret-0123456789';

  it('keeps partners, tokens and events across a restart, and the bootstrap credential stays single', async () => {
    const first = await bootSystem({ SVC_BOOTSTRAP_TOKEN: token }, { storage });
    const created = await first.graphql<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Durable Health", organizationType: "PAYER" }) { gpid } }');
    const gpid = created.data!.registerPartner.gpid;
    // Stop right after the commit: shutdown publishes what the outbox holds before anything closes.
    await first.close();

    const second = await bootSystem({ SVC_BOOTSTRAP_TOKEN: token }, { storage });
    try {
      const partner = await second.graphql<{ partner: { legalName: string } }>('query($g: ID!) { partner(gpid: $g) { legalName } }', { g: gpid });
      expect(partner.data!.partner.legalName).toBe('Durable Health');
      const tokens = await second.request({ url: '/cms/tokens', token });
      expect(tokens.json().tokens).toHaveLength(1);
      const events = await second.graphql<{ events: { edges: { node: { type: string; partnerGpid: string; data: Record<string, unknown> } }[] } }>(
        '{ events(first: 10, types: ["partner.registered"]) { edges { node { type partnerGpid data } } } }',
        {},
        token,
      );
      expect(events.data!.events.edges.map((e) => e.node)).toContainEqual({ type: 'partner.registered', partnerGpid: gpid, data: expect.objectContaining({ legal_name: 'Durable Health' }) });
    } finally {
      await second.close();
    }
  });
});
