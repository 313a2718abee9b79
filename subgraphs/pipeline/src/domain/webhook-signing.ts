import { randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the reference library signs, so
 * our signatures are byte-for-byte what every Standard Webhooks verifier expects.
 */

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (the HMAC key is the decoded bytes). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one attempt: `webhook-signature` holds `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * for every secret given (the current one first; during a rotation overlap also the previous one),
 * space-separated, as the specification allows.
 */
export function signDelivery(secrets: readonly string[], deliveryId: string, at: Date, body: string): SignedHeaders {
  const seconds = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map((secret) => new StandardWebhook(secret).sign(deliveryId, at, body));
  return { 'webhook-id': deliveryId, 'webhook-timestamp': String(seconds), 'webhook-signature': signatures.join(' ') };
}
