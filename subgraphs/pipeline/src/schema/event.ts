import { actsFor, connectionType, decodeCursor, isOperator, pageSize, toPage, type SubgraphBuilder } from '@svc/platform';
import type { LoggedEvent } from '../entities/logged-event.js';
import type { EventLog } from '../domain/event-log.js';
import type { PartnerRef } from './sync-job.js';

const MAX_WAIT_MS = 5000;

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
          beforeId: args.after ? decodeCursor(args.after) : null,
        });
        return toPage(rows, size, (e) => e.id);
      },
    }),
    event: t.field({
      type: EventType,
      nullable: true,
      description: 'One event of your partner (operators: any). waitMs waits for an event that is about to be recorded.',
      args: { id: t.arg.id({ required: true }), waitMs: t.arg.int({ defaultValue: 0 }) },
      authScopes: { authenticated: true },
      resolve: async (_root, { id, waitMs }, ctx) => {
        const wait = Math.min(Math.max(waitMs ?? 0, 0), MAX_WAIT_MS);
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
