/**
 * A webhook receiver on Fastify: verifies each delivery's Standard Webhooks signature with the SDK,
 * refuses forgeries with 400 (the platform checks that a receiver does), acknowledges a repeated
 * delivery without handling it twice, and answers 204 fast (handle heavy work after answering).
 *
 *   WEBHOOK_SECRET=whsec_… npx tsx examples/fastify-receiver.ts
 */
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { DeliveryDeduplicator, verifyWebhook, WebhookVerificationFailed, type WebhookEvent } from '@health-partner/sdk';

/** `secret`: the endpoint's whsec_… secret (or a function answering it, for one known only after registering). */
export function fastifyReceiver(secret: string | (() => string), onEvent: (event: WebhookEvent) => void): FastifyInstance {
  const app = Fastify();
  const deliveries = new DeliveryDeduplicator();
  // The signature covers the raw bytes: keep the body as text.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/webhooks', async (request, reply) => {
    try {
      const { deliveryId, event } = verifyWebhook(request.body as string, request.headers as Record<string, string>, typeof secret === 'string' ? secret : secret());
      if (deliveries.firstDelivery(deliveryId)) onEvent(event);
      return reply.code(204).send();
    } catch (err) {
      if (err instanceof WebhookVerificationFailed) return reply.code(400).send({ error: err.message });
      throw err;
    }
  });
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const app = fastifyReceiver(process.env['WEBHOOK_SECRET'] ?? '', (event) => console.log(event.type, event.event_id));
  await app.listen({ port: Number(process.env['PORT'] ?? 8080), host: '0.0.0.0' });
}
