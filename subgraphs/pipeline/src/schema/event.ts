import { actsFor, connectionType, decodeOptionalCursor, DomainError, isId, isOperator, pageSize, toPage, validationError, type SubgraphBuilder } from '@svc/platform';
import type { LoggedEvent } from '../entities/logged-event.js';
import type { EventLog } from '../domain/event-log.js';
import type { PartnerRef } from './sync-job.js';

/** The longest one `event(waitMs:)` may wait. */
export const MAX_WAIT_MS = 5000;
/** How many `event(waitMs:)` waits one request may hold (a subscription's delivery uses one). */
export const MAX_WAITS_PER_REQUEST = 3;

/** How far before the resumed-after event a replay starts (events recorded out of stream order by concurrent log consumers). */
export const REPLAY_SLACK_MS = 5000;
/** How old the event a subscription resumes after may be. */
export const RESUME_WINDOW_HOURS = 24;

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

  const EventReplayPage = builder.objectRef<{ ids: string[]; nextCursor: string | null; anchorOccurredAt: Date }>('EventReplayPage').implement({
    description: 'One page of the events recorded after a given one, oldest first (how a resuming subscription catches up).',
    fields: (t) => ({
      ids: t.field({ type: ['ID'], resolve: (p) => p.ids, description: 'Event ids in recording order.' }),
      nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as cursor for the next page; null on the last page.' }),
      anchorOccurredAt: t.expose('anchorOccurredAt', { type: 'DateTime', description: 'When the event resumed after occurred.' }),
    }),
  });

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
    eventReplay: t.field({
      type: EventReplayPage,
      description: `The ids of the events recorded after event \`after\` (oldest first, from ${REPLAY_SLACK_MS} ms before it was recorded, so a few may repeat: delivery is at-least-once), your partner's only (operators: all). \`after\` must have been recorded within the last ${RESUME_WINDOW_HOURS} hours.`,
      args: { after: t.arg.id({ required: true }), types: t.arg.stringList(), cursor: t.arg.string(), first: t.arg.int() },
      authScopes: { authenticated: true },
      resolve: async (_root, args, ctx) => {
        const anchor = await log.find(ctx.em, String(args.after), 0);
        if (!anchor || !actsFor(ctx.principal, anchor.partnerGpid)) {
          throw new DomainError('NOT_FOUND', 'No such event in the event log: it is unknown, not yours, or beyond the resume window. Subscribe without after.', { details: { field: 'after' } });
        }
        if (anchor.recordedAt.getTime() < Date.now() - RESUME_WINDOW_HOURS * 3600_000) {
          throw new DomainError('VALIDATION_ERROR', `after names an event older than the ${RESUME_WINDOW_HOURS}-hour resume window; read older events with Query.events.`, { details: { field: 'after' } });
        }
        const size = pageSize(args.first);
        let from: { recordedAt: Date; id: string } | null = null;
        if (args.cursor) {
          const [ms, id] = Buffer.from(args.cursor, 'base64url').toString().split('|');
          if (!ms || !id || !Number.isFinite(Number(ms)) || !isId('evt', id)) throw validationError([{ field: 'cursor', message: 'is not a cursor of eventReplay' }], 'cursor is not a cursor of eventReplay.');
          from = { recordedAt: new Date(Number(ms)), id };
        }
        const rows = await log.replay(ctx.em, {
          anchor,
          partnerGpid: isOperator(ctx.principal) ? null : (ctx.principal.partnerGpid ?? '-'),
          types: args.types ?? null,
          size,
          from,
          slackMs: REPLAY_SLACK_MS,
        });
        const page = rows.slice(0, size);
        const last = page[page.length - 1];
        return {
          ids: page.map((e) => e.id),
          nextCursor: rows.length > size && last ? Buffer.from(`${last.recordedAt.getTime()}|${last.id}`).toString('base64url') : null,
          anchorOccurredAt: anchor.occurredAt,
        };
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
