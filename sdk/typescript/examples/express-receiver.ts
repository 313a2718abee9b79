/**
 * The same webhook receiver on Express: `express.text` keeps the raw body the signature covers.
 *
 *   WEBHOOK_SECRET=whsec_… npx tsx examples/express-receiver.ts
 */
import { pathToFileURL } from 'node:url';
import express, { type Express } from 'express';
import { DeliveryDeduplicator, verifyWebhook, WebhookVerificationFailed, type WebhookEvent } from '@health-partner/sdk';

export function expressReceiver(secret: string, onEvent: (event: WebhookEvent) => void): Express {
  const app = express();
  const deliveries = new DeliveryDeduplicator();
  app.post('/webhooks', express.text({ type: 'application/json', limit: '1mb' }), (req, res) => {
    try {
      const { deliveryId, event } = verifyWebhook(req.body as string, req.headers as Record<string, string>, secret);
      if (deliveries.firstDelivery(deliveryId)) onEvent(event);
      res.status(204).end();
    } catch (err) {
      if (!(err instanceof WebhookVerificationFailed)) throw err;
      res.status(400).json({ error: err.message });
    }
  });
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  expressReceiver(process.env['WEBHOOK_SECRET'] ?? '', (event) => console.log(event.type, event.event_id)).listen(Number(process.env['PORT'] ?? 8080));
}
