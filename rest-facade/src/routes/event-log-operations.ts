import { DomainError, isId, validationError, type FieldError } from '@svc/platform';
import { failOn, PAGE_PARAMETERS, pageBody, readPage } from './page-query.js';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/**
 * The event log as a partner reads it (its own events; operators: all), the pipeline subgraph's
 * events, event and eventReplay: what webhooks deliver, for a receiver that missed some or
 * resumes after the last one it processed. Another partner's event answers 404 like a missing one.
 *
 * These fields have no per-field limit on GraphQL (subscriptions read through Query.event), so the
 * routes spend only the platform product's overall and burst limits.
 */

const EVENT_FIELDS = 'id type occurredAt partnerGpid data';
const EVENT_ID: JsonSchema = { type: 'string', pattern: '^evt_[0-9a-z]{26}$' };
const EVENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'occurred_at', 'data'],
  properties: {
    id: { ...EVENT_ID, description: 'Consumers deduplicate by it.' },
    type: { type: 'string', description: 'e.g. pipeline.sync.completed' },
    occurred_at: { type: 'string', format: 'date-time' },
    partner_gpid: { type: ['string', 'null'] },
    data: { type: 'object', description: 'The payload, as webhooks deliver it (its keys as sent).' },
  },
};
const TYPES_PARAMETER = { schema: { type: 'string' }, description: 'Comma-separated event types to keep (e.g. pipeline.sync.completed,pipeline.sync.failed).' };

/** An event as REST shows it: its envelope in snake_case, its payload untouched. */
function eventBody(event: { id: string; type: string; occurredAt: string; partnerGpid: string | null; data: unknown }): Record<string, unknown> {
  return { id: event.id, type: event.type, occurred_at: event.occurredAt, partner_gpid: event.partnerGpid, data: event.data };
}

function typesOf(query: RouteInput['query'], errors: FieldError[]): string[] | null {
  const raw = query['types'];
  if (raw === undefined) return null;
  const types = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(',')).map((t) => t.trim()).filter(Boolean);
  if (types.length === 0) errors.push({ field: 'types', message: 'must name at least one event type' });
  return types;
}

type EventData = Parameters<typeof eventBody>[0];
type EventConnection = Parameters<typeof pageBody<EventData>>[0];

const listEvents: GatewayOperation = {
  document: `query Events($first: Int, $after: String, $types: [String!]) { events(first: $first, after: $after, types: $types) { edges { node { ${EVENT_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
  variables: ({ query }) => {
    const { first, after, errors } = readPage(query, { known: ['types'], cursorKey: 'evt' });
    const types = typesOf(query, errors);
    failOn(errors);
    return { first, after, types };
  },
  result: (data) => {
    const page = pageBody(data['events'] as EventConnection, eventBody);
    return { events: page.items, next_cursor: page.next_cursor };
  },
};

const getEvent: GatewayOperation = {
  document: `query Event($id: ID!) { event(id: $id) { ${EVENT_FIELDS} } }`,
  variables: (input) => {
    const id = input.params['event_id'] ?? '';
    if (!isId('evt', id)) throw validationError([{ field: 'event_id', message: 'must be an event id (evt_…)' }], 'The event id is malformed.');
    return { id };
  },
  result: (data, input) => {
    const event = data['event'] as EventData | null;
    if (!event) throw new DomainError('NOT_FOUND', `Event ${input.params['event_id']} does not exist.`);
    return eventBody(event);
  },
};

const replay: GatewayOperation = {
  document: `query EventReplay($after: ID!, $types: [String!], $cursor: String, $first: Int) {
  eventReplay(after: $after, types: $types, cursor: $cursor, first: $first) { ids nextCursor anchorOccurredAt } }`,
  variables: ({ query }) => {
    const errors: FieldError[] = [];
    const known = new Set(['after', 'types', 'cursor', 'limit']);
    for (const key of Object.keys(query)) if (!known.has(key)) errors.push({ field: key, message: `is not a parameter of this route (known: ${[...known].join(', ')})` });
    const after = query['after'];
    if (after === undefined || after === '') errors.push({ field: 'after', message: 'is required: the id of the last event you processed (evt_…)' });
    else if (Array.isArray(after) || !isId('evt', after)) errors.push({ field: 'after', message: 'must be one event id (evt_…)' });
    const limit = query['limit'];
    let first = 20;
    if (limit !== undefined) {
      first = Number(limit);
      if (Array.isArray(limit) || !/^\d+$/.test(limit) || first < 1 || first > 100) errors.push({ field: 'limit', message: 'must be an integer from 1 to 100' });
    }
    const cursor = query['cursor'];
    if (Array.isArray(cursor)) errors.push({ field: 'cursor', message: 'must be given once' });
    const types = typesOf(query, errors);
    failOn(errors);
    return { after, types, cursor: cursor || null, first };
  },
  result: (data) => {
    const page = data['eventReplay'] as { ids: string[]; nextCursor: string | null; anchorOccurredAt: string };
    return snakeKeys({ eventIds: page.ids, nextCursor: page.nextCursor, afterOccurredAt: page.anchorOccurredAt });
  },
};

/** The event log routes. */
export const eventLogRoutes: RouteSpec[] = [
  {
    id: 'events.list',
    method: 'GET',
    path: '/api/partner/events',
    product: 'platform',
    summary: "The event log, newest first: your partner's events (paged)",
    auth: 'bearer',
    scopes: [],
    successStatus: 200,
    operation: listEvents,
    queryParameters: { ...PAGE_PARAMETERS, types: TYPES_PARAMETER },
    responseBody: { type: 'object', required: ['events', 'next_cursor'], properties: { events: { type: 'array', items: EVENT_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
  },
  {
    id: 'events.replay',
    method: 'GET',
    path: '/api/partner/events/replay',
    product: 'platform',
    summary: 'Replay: the ids of the events recorded after a given one, oldest first (paged; the event must be under 24 hours old)',
    auth: 'bearer',
    scopes: [],
    successStatus: 200,
    operation: replay,
    queryParameters: {
      after: { schema: EVENT_ID, description: 'The last event you processed. Unknown, not yours, or out of the window: 404.', required: true },
      types: TYPES_PARAMETER,
      limit: PAGE_PARAMETERS['limit']!,
      cursor: { schema: { type: 'string' }, description: 'next_cursor of the previous page.' },
    },
    responseBody: {
      type: 'object',
      required: ['event_ids', 'next_cursor', 'after_occurred_at'],
      properties: {
        event_ids: { type: 'array', items: EVENT_ID, description: 'In recording order; a few may repeat (delivery is at least once). Read each with GET /api/partner/events/{event_id}.' },
        next_cursor: { type: ['string', 'null'] },
        after_occurred_at: { type: 'string', format: 'date-time', description: 'When the event named by after occurred.' },
      },
    },
  },
  {
    id: 'events.get',
    method: 'GET',
    path: '/api/partner/events/{event_id}',
    product: 'platform',
    summary: 'One event of your partner',
    auth: 'bearer',
    scopes: [],
    successStatus: 200,
    operation: getEvent,
    pathParameters: { event_id: { schema: EVENT_ID, description: 'The event (evt_…).' } },
    responseBody: EVENT_SCHEMA,
  },
];

