import type { SubgraphContext, SubgraphServices } from '@svc/platform';
import { outboxEvents } from '../entities/outbox-events.js';

/** How long a revocation waits for its event to reach the bus before answering anyway. */
const REVOCATION_PUBLISH_WAIT_MS = 2_000;

/**
 * Publish what was just committed and, when a revocation event was among it, wait until the relay
 * has handed it to the bus: the caller's next request must already be refused. Should the bus be
 * slow, the revocation still stands (it is committed) and the answer goes out after the wait.
 */
export async function publishRevocation(services: SubgraphServices, ctx: SubgraphContext, eventId: string | null): Promise<void> {
  services.publishCommitted();
  if (eventId === null) return;
  const published = await outboxEvents.awaitPublished(ctx.em, eventId, REVOCATION_PUBLISH_WAIT_MS);
  if (!published) services.runtime.logger.warn({ eventId, requestId: ctx.requestId }, 'revocation committed but its event is not published yet');
}

/**
 * {@link publishRevocation} for a change that staged several events: one wait covers them all
 * (the relay publishes in commit order), bounded by the same 2 s, so every revoked credential is
 * refused from the caller's next request on.
 */
export async function publishRevocations(services: SubgraphServices, ctx: SubgraphContext, eventIds: readonly string[]): Promise<void> {
  services.publishCommitted();
  const deadline = Date.now() + REVOCATION_PUBLISH_WAIT_MS;
  for (const eventId of eventIds) {
    const published = await outboxEvents.awaitPublished(ctx.em, eventId, Math.max(0, deadline - Date.now()));
    if (!published) {
      services.runtime.logger.warn({ eventId, requestId: ctx.requestId }, 'revocation committed but its event is not published yet');
      return;
    }
  }
}
