import {
  Kind,
  extendSchema,
  getOperationAST,
  parse,
  print,
  valueFromAST,
  visit,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { GraphQLError } from 'graphql';
import {
  actsFor,
  EVENT_TYPES,
  eventTypeScope,
  hasScope,
  isInternalEventType,
  isOperator,
  eventLoopSlices,
  inStoredTrace,
  newId,
  SpanKind,
  RESUME_WINDOW_MS,
  subscriptionFieldName,
  type EventBackbone,
  type EventEnvelope,
  type Logger,
  type Principal,
  type RevocationList,
  type StreamPosition,
} from '@svc/platform';
import type { Gauge } from 'prom-client';
import type { Gateway, GatewayContext } from './gateway.js';

/**
 * How long an event's query may wait for the event log to record the event: used only when the
 * selection reaches into the pipeline subgraph's own data (the envelope is answered from the stream).
 */
const EVENT_WAIT_MS = 3000;
/** Pauses between the attempts of one event's lookup; after the last one it is delivered with an error. */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000, 15000];
/** Error codes worth another attempt: the lookup may succeed once the subgraph or the log catches up. */
const TRANSIENT = new Set(['UPSTREAM_UNAVAILABLE', 'SERVER_BUSY', 'TOO_MANY_WAITERS', 'INTERNAL', 'INTERNAL_SERVER_ERROR', 'RATE_LIMITED']);
/** Stream entries read per page of a resume. */
const REPLAY_PAGE = 500;

const PER_TYPE_FIELDS = EVENT_TYPES.map(
  (e) => `  """${e.description} ${e.scope ? `Needs ${e.scope}.` : 'Any credential of the partner.'} With after: first the events that came after that id (resume), then live."""\n  ${subscriptionFieldName(e.type)}(after: ID): Event!`,
).join('\n');

const SUBSCRIPTION_SDL = `
"""Live platform events. Each event is delivered by running your selection on the event as the event stream holds it, so it can reach into every subgraph. Delivery is at-least-once: deduplicate by Event.id."""
type Subscription {
  """Events of your partner (operators: all), optionally only of the named types (e.g. pipeline.sync.completed); types of the event catalog need their scope. With after (the last event id you saw): first exactly the events that came after it, then live."""
  events(types: [String!], after: ID): Event!
${PER_TYPE_FIELDS}
}
extend schema { subscription: Subscription }
`;

/** The API schema plus the event subscriptions; unchanged when the supergraph has no Event type. */
export function withSubscriptions(apiSchema: GraphQLSchema): GraphQLSchema {
  if (!apiSchema.getType('Event') || apiSchema.getSubscriptionType()) return apiSchema;
  return extendSchema(apiSchema, parse(SUBSCRIPTION_SDL));
}

const FIELD_TYPES = new Map<string, string>(EVENT_TYPES.map((e) => [subscriptionFieldName(e.type), e.type]));

/** A subscriber's selection, rewritten as a query against Query.event. */
interface Plan {
  query: string;
  variables: Record<string, unknown>;
  responseKey: string;
  types: ReadonlySet<string> | null;
  after: string | null;
}

function planFor(args: ExecutionArgs): Plan {
  const operation = getOperationAST(args.document, args.operationName);
  const field = operation?.selectionSet.selections[0];
  const fieldName = field?.kind === Kind.FIELD ? field.name.value : '';
  if (!operation || operation.operation !== 'subscription' || field?.kind !== Kind.FIELD || (fieldName !== 'events' && !FIELD_TYPES.has(fieldName))) {
    throw new Error('Only the event subscriptions are available.');
  }
  const variables = { ...(args.variableValues ?? {}) };
  const argValue = (name: string, type: Parameters<typeof valueFromAST>[1]) => {
    const arg = field.arguments?.find((a) => a.name.value === name);
    return arg ? valueFromAST(arg.value, type, variables) : undefined;
  };
  const typesArg = argValue('types', new GraphQLList(new GraphQLNonNull(GraphQLString))) as string[] | null | undefined;
  const types = fieldName === 'events' ? (typesArg ?? null) : [FIELD_TYPES.get(fieldName)!];
  const after = (argValue('after', GraphQLString) as string | null | undefined) ?? null;
  const eventField: FieldNode = {
    ...field,
    alias: { kind: Kind.NAME, value: field.alias?.value ?? field.name.value },
    name: { kind: Kind.NAME, value: 'event' },
    arguments: [
      { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'id' }, value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: '__eventId' } } },
      { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'waitMs' }, value: { kind: Kind.INT, value: String(EVENT_WAIT_MS) } },
    ],
  };
  const fragments = args.document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  const used = new Set<string>();
  visit({ kind: Kind.DOCUMENT, definitions: [{ ...operation, variableDefinitions: [], selectionSet: { kind: Kind.SELECTION_SET, selections: [eventField] } }, ...fragments] }, {
    Variable: (node) => void used.add(node.name.value),
  });
  const query: OperationDefinitionNode = {
    kind: Kind.OPERATION_DEFINITION,
    operation: 'query' as OperationDefinitionNode['operation'],
    directives: [],
    variableDefinitions: [
      ...(operation.variableDefinitions ?? []).filter((v) => used.has(v.variable.name.value)),
      {
        kind: Kind.VARIABLE_DEFINITION,
        variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: '__eventId' } },
        type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'ID' } } },
      },
    ],
    selectionSet: { kind: Kind.SELECTION_SET, selections: [eventField] },
  };
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [query, ...fragments] };
  return { query: print(document), variables, responseKey: eventField.alias!.value, types: types ? new Set(types) : null, after };
}

/** Refuse a subscription to a catalogued event type whose scope the principal lacks. */
function checkScopes(plan: Plan, principal: Principal): void {
  if (isOperator(principal) || !plan.types) return;
  for (const type of plan.types) {
    const scope = eventTypeScope(type);
    if (scope && !hasScope(principal.scopes, scope)) {
      throw new GraphQLError(`Receiving ${type} events needs the ${scope} scope.`, { extensions: { code: 'INSUFFICIENT_SCOPE', required_scope: scope } });
    }
  }
}

/** May this principal receive this event (tenancy and scope)? */
function mayReceive(principal: Principal, event: EventEnvelope): boolean {
  if (!actsFor(principal, event.partner_gpid)) return false;
  if (isOperator(principal)) return true;
  const scope = eventTypeScope(event.type);
  return !scope || hasScope(principal.scopes, scope);
}

/** One delivered result, with the event it is for and its position in the stream (a resume's seam). */
interface Delivery {
  eventId: string;
  position: StreamPosition;
  result: ExecutionResult;
}

interface Group {
  plan: Plan;
  context: GatewayContext;
  sinks: Set<(delivery: Delivery) => void>;
  /** Deliveries leave in event order even though lookups run concurrently. */
  chain: Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorCodes(errors: readonly unknown[] | undefined): string[] {
  return (errors ?? []).map((e) => String(((e as { extensions?: { code?: unknown } }).extensions?.code ?? 'INTERNAL')));
}

/** The stream the hub reads: its live tail, and reads back for a resume. */
export type SubscriptionStream = Pick<EventBackbone, 'tail' | 'locate' | 'readAfter'>;

/**
 * Event-driven federated subscriptions: one tail of the event stream for the whole gateway; for each
 * event, every group of subscribers with the same document, variables and credential shares one
 * execution of its selection through the gateway's own query planner, on the event as the stream
 * holds it (its envelope fields never need the pipeline subgraph). A lookup that fails (a subgraph
 * down) is retried, then delivered with an error on the field: an event is never dropped. A
 * subscriber that passes `after` first gets exactly the events the stream holds after that one, then
 * live events: the stream's positions tell where the replay ended, so the seam has neither a gap
 * nor a repeat.
 */
export class SubscriptionHub {
  private readonly groups = new Map<string, Group>();
  private readonly unsubscribe: () => void;
  /** Events are dispatched one after another, so every group's results keep the stream's order. */
  private dispatching: Promise<void> = Promise.resolve();

  constructor(
    private readonly gateway: Pick<Gateway, 'execute'>,
    private readonly stream: SubscriptionStream,
    private readonly logger: Logger,
    /** A group whose credential is revoked or expired is never run again, even before its sockets finish closing. */
    private readonly revocations?: Pick<RevocationList, 'revokes'>,
    /** Follows how many subscribers are open (`svc_graphql_subscribers`). */
    private readonly subscribers?: Pick<Gauge, 'inc' | 'dec'>,
  ) {
    this.unsubscribe = stream.tail((event, position) => {
      this.dispatching = this.dispatching.then(() => this.dispatch(event, position)).catch((err: unknown) => this.logger.error({ err, eventId: event.id }, 'subscription dispatch failed'));
    });
  }

  /**
   * The stream of results for one subscriber; ending the iteration unsubscribes. An aborted `signal`
   * ends it too, at once, even while it waits for the next event (a transport ending the stream).
   */
  subscribe(args: ExecutionArgs, signal?: AbortSignal): AsyncGenerator<ExecutionResult> | ExecutionResult {
    const context = args.contextValue as GatewayContext;
    let plan: Plan;
    try {
      plan = planFor(args);
      checkScopes(plan, context.principal);
    } catch (err) {
      if (err instanceof GraphQLError) return { errors: [err] };
      throw err;
    }
    // The group runs as its first subscriber's principal, so it is shared only by connections of the
    // same credential: revoking one credential must not leave others running on a revoked principal.
    const { partnerGpid, scopes, tokenId, clientId } = context.principal;
    const key = JSON.stringify([plan.query, plan.variables, [...(plan.types ?? [])], partnerGpid, scopes, tokenId ?? null, clientId ?? null]);
    let group = this.groups.get(key);
    if (!group) {
      group = { plan, context, sinks: new Set(), chain: Promise.resolve() };
      this.groups.set(key, group);
    }
    const live: Delivery[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const sink = (delivery: Delivery) => {
      live.push(delivery);
      wake?.();
    };
    // Registered before the replay is read, so nothing that arrives meanwhile is missed.
    group.sinks.add(sink);
    this.subscribers?.inc();
    const stop = () => {
      done = true;
      wake?.();
    };
    if (signal?.aborted) done = true;
    else signal?.addEventListener('abort', stop, { once: true });
    const leave = () => {
      stop();
      signal?.removeEventListener('abort', stop);
      if (group.sinks.delete(sink)) this.subscribers?.dec();
      if (group.sinks.size === 0) this.groups.delete(key);
    };
    /** The position of the last event the replay covered: live events up to it were replayed or came before `after`. */
    const seam: { position: StreamPosition | null } = { position: null };
    const replay = plan.after ? this.replay(plan, context, plan.after, seam) : null;
    const results = (async function* stream() {
      try {
        if (replay) {
          try {
            for await (const delivery of replay) {
              if (done) return;
              yield delivery.result;
            }
          } catch (err) {
            // A resume that cannot start (unknown or too old `after`, the stream unreachable) ends with its error.
            yield { errors: [err instanceof GraphQLError ? err : new GraphQLError('The subscription could not resume; retry.', { extensions: { code: 'UPSTREAM_UNAVAILABLE', field: 'after' } })] };
            return;
          }
        }
        while (!done) {
          const next = live.shift();
          if (next) {
            if (seam.position !== null && next.position <= seam.position) continue;
            yield next.result;
            continue;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        leave();
      }
    })();
    // A transport ends a stream by calling return(), which a generator handles only at its next
    // yield: one waiting for an event would keep its subscriber, and hold the transport's close,
    // until an event came. Stopping first ends the wait at once.
    const returnWhenDone = results.return.bind(results);
    results.return = (value) => {
      stop();
      return returnWhenDone(value);
    };
    return results;
  }

  close(): void {
    this.unsubscribe();
    this.groups.clear();
  }

  /**
   * What a resuming subscriber missed: the events the stream holds after `after`, oldest first, read
   * to the end of the stream, each run like a live one. `seam` follows the position read up to.
   */
  private async *replay(plan: Plan, context: GatewayContext, after: string, seam: { position: StreamPosition | null }): AsyncGenerator<Delivery> {
    const principal = context.principal;
    const anchor = await this.stream.locate(after);
    if (!anchor || !actsFor(principal, anchor.event.partner_gpid)) {
      throw new GraphQLError('No such event in the event stream: it is unknown, not yours, or beyond the resume window. Subscribe without after.', {
        extensions: { code: 'NOT_FOUND', status: 404, field: 'after' },
      });
    }
    if (Date.parse(anchor.event.occurred_at) < Date.now() - RESUME_WINDOW_MS) {
      throw new GraphQLError(`after names an event older than the ${RESUME_WINDOW_MS / 3600_000}-hour resume window; read older events with Query.events.`, {
        extensions: { code: 'VALIDATION_ERROR', status: 400, field: 'after' },
      });
    }
    seam.position = anchor.position;
    const filter = { partnerGpid: isOperator(principal) ? null : (principal.partnerGpid ?? '-'), types: plan.types };
    let from: StreamPosition | null = anchor.position;
    while (from !== null) {
      const page = await this.stream.readAfter(from, filter, REPLAY_PAGE);
      for (const { event, position } of page.events) {
        if (isInternalEventType(event.type) || !mayReceive(principal, event)) continue;
        const result = await this.lookup(plan, principal, event);
        seam.position = position;
        yield { eventId: event.id, position, result };
      }
      from = page.next;
    }
  }

  private credentialStands(principal: Principal): boolean {
    if (principal.credentialExpiresAt !== undefined && principal.credentialExpiresAt <= Date.now()) return false;
    return !this.revocations?.revokes(principal);
  }

  /**
   * Run the selection for one event, retrying transient failures; the last failure is delivered as
   * an error on the field (with the event id, so the subscriber can look it up later), never dropped.
   * The event travels in the context: the planner's fetch of its envelope is answered from it.
   */
  private async lookup(plan: Plan, principal: Principal, event: EventEnvelope): Promise<ExecutionResult> {
    let last: { errors?: readonly unknown[] } = {};
    for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1]!);
      try {
        const response = await this.gateway.execute({ query: plan.query, variables: { ...plan.variables, __eventId: event.id } }, { principal, requestId: newId('req'), streamedEvent: event });
        const value = response.data?.[plan.responseKey];
        const codes = errorCodes(response.errors);
        const transient = codes.some((c) => TRANSIENT.has(c));
        if (value !== null && value !== undefined && (!transient || attempt === RETRY_DELAYS_MS.length)) {
          const result: ExecutionResult = { data: { [plan.responseKey]: value } };
          return response.errors ? { ...result, errors: response.errors as ExecutionResult['errors'] } : result;
        }
        // Not found yet (a selection reaching into the event log, which is behind) or a transient
        // failure: try again; a permanent error ends here.
        last = response;
        if (response.errors && !transient) break;
      } catch (err) {
        last = { errors: [err] };
      }
    }
    this.logger.warn({ eventId: event.id, codes: errorCodes(last.errors) }, 'subscription lookup failed after retries; delivered with an error');
    return {
      data: null,
      errors: [
        new GraphQLError(`The event ${event.id} could not be delivered (${errorCodes(last.errors).join(', ') || 'not in the event log yet'}); read it later with Query.event.`, {
          path: [plan.responseKey],
          extensions: { code: 'EVENT_LOOKUP_FAILED', eventId: event.id, eventType: event.type },
        }),
      ],
    };
  }

  /**
   * Start every interested group's execution of `event`. In the embedded process the gateway reaches
   * the subgraphs in-process and SQLite answers synchronously, so an execution never leaves the event
   * loop a turn by itself: started all at once, 150 of them held every request until the last was
   * done. The loop gets a turn every slice instead.
   */
  private async dispatch(event: EventEnvelope, position: StreamPosition): Promise<void> {
    if (isInternalEventType(event.type)) return; // never sent to subscribers (see envelope.ts)
    const slice = eventLoopSlices();
    for (const group of [...this.groups.values()]) {
      await slice();
      if (group.plan.types && !group.plan.types.has(event.type)) continue;
      if (!mayReceive(group.context.principal, event)) continue;
      if (!this.credentialStands(group.context.principal)) continue;
      // The execution is a span of the event's trace (the envelope's traceparent): the gateway's
      // planning, fetches and statements for this event are its children.
      const attributes = { 'graphql.operation.type': 'subscription', 'svc.event_type': event.type, 'svc.subscription.subscribers': group.sinks.size };
      const result = inStoredTrace(event.traceparent, `subscription ${event.type}`, { kind: SpanKind.CONSUMER, attributes }, () => this.lookup(group.plan, group.context.principal, event));
      group.chain = group.chain.then(async () => {
        const delivered = await result;
        for (const sink of group.sinks) sink({ eventId: event.id, position, result: delivered });
      });
    }
  }
}
