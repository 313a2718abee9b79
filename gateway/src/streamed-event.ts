import { buildSchema, execute, parse, validate, type DocumentNode, type ExecutionResult } from 'graphql';
import type { EventEnvelope, GraphQLRequest } from '@svc/platform';
import type { SubgraphResponse } from './subgraph-client.js';

/**
 * The part of the pipeline subgraph's schema that an event's stream entry answers by itself:
 * `Query.event` and the envelope fields of `Event`, with `partner` as the key of a Partner entity
 * (the planner fetches the Partner's own fields from the subgraphs that have them).
 */
const ENVELOPE_SCHEMA = buildSchema(`
  scalar DateTime
  scalar JSONObject
  type Query {
    event(id: ID!, waitMs: Int = 0): Event
  }
  type Event {
    id: ID!
    type: String!
    occurredAt: DateTime!
    partnerGpid: ID
    partner: Partner
    data: JSONObject!
  }
  type Partner {
    gpid: ID!
  }
`);

/** The Event object of an envelope, shaped as the pipeline subgraph resolves it. */
function eventObject(event: EventEnvelope): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    occurredAt: event.occurred_at,
    partnerGpid: event.partner_gpid,
    partner: event.partner_gpid ? { gpid: event.partner_gpid } : null,
    data: event.data,
  };
}

/** Fetch operations of the query planner, parsed and checked once: the document, or null when the envelope cannot answer it. */
const answerable = new Map<string, DocumentNode | null>();
const MAX_REMEMBERED = 500;

function envelopeDocument(query: string): DocumentNode | null {
  let document = answerable.get(query);
  if (document !== undefined) return document;
  try {
    const parsed = parse(query);
    document = validate(ENVELOPE_SCHEMA, parsed).length === 0 ? parsed : null;
  } catch {
    document = null;
  }
  if (answerable.size >= MAX_REMEMBERED) answerable.delete(answerable.keys().next().value!);
  answerable.set(query, document);
  return document;
}

/**
 * Answer one of the query planner's subgraph fetches from the stream entry the subscription hub
 * holds, when the fetch asks only for what the entry has (the envelope fields of `Query.event`);
 * null otherwise (the fetch goes to the subgraph as usual). So delivering an event whose selection
 * stays on the envelope, or reaches from it into other subgraphs through `partner`, never needs the
 * pipeline subgraph (which answers `Query.event` from its event log).
 */
export function answerFromStreamedEvent(request: GraphQLRequest, event: EventEnvelope): SubgraphResponse | null {
  const document = envelopeDocument(request.query);
  if (!document) return null;
  const result = execute({
    schema: ENVELOPE_SCHEMA,
    document,
    rootValue: { event: ({ id }: { id: string }) => (id === event.id ? eventObject(event) : null) },
    variableValues: request.variables ?? {},
    operationName: request.operationName ?? null,
  }) as ExecutionResult;
  const response: SubgraphResponse = { data: (result.data as Record<string, unknown> | null | undefined) ?? null };
  if (result.errors) response.errors = result.errors.map((e) => e.toJSON());
  return response;
}
