import { actsFor, connectionType, decodeOptionalCursor, DomainError, isId, isOperator, pageSize, toPage, validationError, type SubgraphBuilder } from '@svc/platform';
import type { LoggedEvent } from '../entities/logged-event.js';
import type { EventLog } from '../domain/event-log.js';
import type { PartnerRef } from './sync-job.js';

/** The longest one `event(waitMs:)` may wait. */
export const MAX_WAIT_MS = 5000;
/** How many `event(waitMs:)` waits one request may hold (a subscription's delivery uses one). */
export const MAX_WAITS_PER_REQUEST = 3;

/** Waits started per request (keyed by the request's GraphQL context). */
const waitsPerRequest = new WeakMap<object, number>();

/** Event: one entry of the platform's event log, the root that subscriptions select from. */
export function defineEvent(builder: SubgraphBuilder, log: EventLog, partnerRef: PartnerRef) {
  const EventType = builder.objectRef<LoggedEvent>('Event').implement({
    description: 'A platform event: one envelope for every event type.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'evt_…; consumers deduplicate by it.' }),
      type: t.exposeString('type', { description: 'Dotted name, e.g. pipeline.sync.completed or identity.merged.v1.' }),
      occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
      partnerGpid: t.exposeID('partnerGpid', { nullable: true }),
      partner: t.field({ type: partnerRef, nullable: true, resolve: (e) => (e.partnerGpid ? { gpid: e.partnerGpid } : null) }),
      data: t.expose('data', { type: 'JSONObject', description: "The event's payload, as webhooks deliver it." }),
    }),
  });

  const EventConnection = connectionType(builder, 'Event', EventType);

  builder.queryFields((t) => ({
    events: t.field({
      type: EventConnection,
      description: 'The event log, newest first: your partner\'s events (operators: every event).',
      args: { first: t.arg.int(), after: t.arg.string(), types: t.arg.stringList() },
      authScopes: { authenticated: true },
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const rows = await log.page(ctx.em, {
          partnerGpid: isOperator(ctx.principal) ? null : (ctx.principal.partnerGpid ?? '-'),
          types: args.types ?? null,
          size,
          beforeId: decodeOptionalCursor(args.after, { isKey: (key) => isId('evt', key) }),
        });
        return toPage(rows, size, (e) => e.id);
      },
    }),
    event: t.field({
      type: EventType,
      nullable: true,
      description: `One event of your partner (operators: any). waitMs (0 to ${MAX_WAIT_MS}) waits for an event that is about to be recorded; at most ${MAX_WAITS_PER_REQUEST} waits per request.`,
      args: { id: t.arg.id({ required: true }), waitMs: t.arg.int({ defaultValue: 0 }) },
      authScopes: { authenticated: true },
      resolve: async (_root, { id, waitMs }, ctx) => {
        const wait = waitMs ?? 0;
        if (wait < 0 || wait > MAX_WAIT_MS) throw validationError([{ field: 'waitMs', message: `must be from 0 to ${MAX_WAIT_MS}` }], `waitMs must be from 0 to ${MAX_WAIT_MS} milliseconds.`);
        if (wait > 0) {
          const waits = (waitsPerRequest.get(ctx) ?? 0) + 1;
          waitsPerRequest.set(ctx, waits);
          if (waits > MAX_WAITS_PER_REQUEST) {
            throw new DomainError('TOO_MANY_WAITERS', `At most ${MAX_WAITS_PER_REQUEST} event(waitMs:) waits per request; ask for the others without waitMs or in another request.`, { details: { limit: MAX_WAITS_PER_REQUEST } });
          }
        }
        const started = Date.now();
        const event = await log.find(ctx.em, String(id), wait);
        if (!event) return null;
        // Another partner's event is indistinguishable from a missing one, in its answer and its timing.
        if (!actsFor(ctx.principal, event.partnerGpid)) {
          const left = wait - (Date.now() - started);
          if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
          return null;
        }
        return event;
      },
    }),
  }));
}
