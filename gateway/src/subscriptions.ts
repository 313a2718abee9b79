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
import { actsFor, EVENT_TYPES, eventTypeScope, hasScope, isInternalEventType, isOperator, newId, subscriptionFieldName, type EventBus, type EventEnvelope, type Logger, type Principal, type RevocationList } from '@svc/platform';
import type { Gateway, GatewayContext } from './gateway.js';

/** How long an event's query may wait for the event log to record the event. */
const EVENT_WAIT_MS = 3000;
/** Pauses between the attempts of one event's lookup; after the last one it is delivered with an error. */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000, 15000];
/** Error codes worth another attempt: the lookup may succeed once the subgraph or the log catches up. */
const TRANSIENT = new Set(['UPSTREAM_UNAVAILABLE', 'SERVER_BUSY', 'TOO_MANY_WAITERS', 'INTERNAL', 'INTERNAL_SERVER_ERROR', 'RATE_LIMITED']);
/** Recent events kept by each gateway to close the seam of a resume (events seen live but not yet in the log). */
const RECENT_MS = 120_000;
/** How far before the resumed-after event the recent events are replayed too (matches the log's replay slack). */
const RESUME_SLACK_MS = 5000;

const PER_TYPE_FIELDS = EVENT_TYPES.map(
  (e) => `  """${e.description} ${e.scope ? `Needs ${e.scope}.` : 'Any credential of the partner.'} With after: first the events recorded after that id (resume), then live."""\n  ${subscriptionFieldName(e.type)}(after: ID): Event!`,
).join('\n');

const SUBSCRIPTION_SDL = `
"""Live platform events. Each event is delivered by running your selection against Query.event, so it can reach into every subgraph. Delivery is at-least-once: deduplicate by Event.id."""
type Subscription {
  """Events of your partner (operators: all), optionally only of the named types (e.g. pipeline.sync.completed); types of the event catalog need their scope. With after (the last event id you saw): first what you missed, then live."""
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

/** One delivered result, with the event it is for (resume deduplicates by it). */
interface Delivery {
  eventId: string;
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

/**
 * Event-driven federated subscriptions: one tail of the event stream for the whole gateway; for each
 * event, every group of subscribers with the same document, variables and credential shares one
 * execution of its selection through the gateway's own query planner. A lookup that fails (a
 * subgraph down, the log not caught up) is retried, then delivered with an error on the field: an
 * event is never dropped. A subscriber that passes `after` first gets the events recorded since
 * (from the event log, plus what this gateway saw lately), then live events, without duplicates at
 * the seam.
 */
export class SubscriptionHub {
  private readonly groups = new Map<string, Group>();
  private readonly unsubscribe: () => void;
  private readonly recent: { event: EventEnvelope; at: number }[] = [];

  constructor(
    private readonly gateway: Pick<Gateway, 'execute'>,
    bus: Pick<EventBus, 'subscribe'>,
    private readonly logger: Logger,
    /** A group whose credential is revoked or expired is never run again, even before its sockets finish closing. */
    private readonly revocations?: Pick<RevocationList, 'revokes'>,
  ) {
    this.unsubscribe = bus.subscribe((event) => this.dispatch(event));
  }

  /** The stream of results for one subscriber; ending the iteration unsubscribes. */
  subscribe(args: ExecutionArgs): AsyncGenerator<ExecutionResult> | ExecutionResult {
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
    const leave = () => {
      done = true;
      wake?.();
      group.sinks.delete(sink);
      if (group.sinks.size === 0) this.groups.delete(key);
    };
    const replay = plan.after ? this.replay(plan, context) : null;
    return (async function* stream() {
      try {
        const seen = new Set<string>();
        if (replay) {
          try {
            for await (const delivery of replay) {
              if (done) return;
              seen.add(delivery.eventId);
              yield delivery.result;
            }
          } catch (err) {
            // A resume that cannot start (unknown or too old `after`, the log unreachable) ends with its error.
            yield { errors: [err instanceof GraphQLError ? err : new GraphQLError('The subscription could not resume; retry.', { extensions: { code: 'UPSTREAM_UNAVAILABLE' } })] };
            return;
          }
        }
        while (!done) {
          const next = live.shift();
          if (next) {
            if (seen.has(next.eventId)) continue;
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
  }

  close(): void {
    this.unsubscribe();
    this.groups.clear();
  }

  /**
   * What a resuming subscriber missed: the ids the event log recorded after `plan.after`, then the
   * events this gateway saw lately that the log did not list yet; each looked up like a live one.
   */
  private async *replay(plan: Plan, context: GatewayContext): AsyncGenerator<Delivery> {
    const listed = new Set<string>();
    let cursor: string | null = null;
    let anchorOccurredAt = 0;
    do {
      const response = await this.gateway.execute(
        {
          query: 'query($after: ID!, $types: [String!], $cursor: String) { eventReplay(after: $after, types: $types, cursor: $cursor, first: 100) { ids nextCursor anchorOccurredAt } }',
          variables: { after: plan.after, types: plan.types ? [...plan.types] : null, cursor },
        },
        { principal: context.principal, requestId: newId('req') },
      );
      const page = response.data?.['eventReplay'] as { ids: string[]; nextCursor: string | null; anchorOccurredAt: string } | null | undefined;
      if (!page) {
        const error = response.errors?.[0] as { message?: string; extensions?: Record<string, unknown> } | undefined;
        throw new GraphQLError(error?.message ?? 'The event log could not be read to resume; retry.', { extensions: { ...(error?.extensions ?? { code: 'UPSTREAM_UNAVAILABLE' }), field: 'after' } });
      }
      anchorOccurredAt = Date.parse(page.anchorOccurredAt);
      for (const id of page.ids) {
        listed.add(id);
        yield { eventId: id, result: await this.lookup(plan, context.principal, { id, type: '?' }) };
      }
      cursor = page.nextCursor;
    } while (cursor);
    for (const { event } of [...this.recent]) {
      if (listed.has(event.id) || event.id === plan.after) continue;
      if (Date.parse(event.occurred_at) < anchorOccurredAt - RESUME_SLACK_MS) continue;
      if (plan.types && !plan.types.has(event.type)) continue;
      if (!mayReceive(context.principal, event)) continue;
      yield { eventId: event.id, result: await this.lookup(plan, context.principal, event) };
    }
  }

  private credentialStands(principal: Principal): boolean {
    if (principal.credentialExpiresAt !== undefined && principal.credentialExpiresAt <= Date.now()) return false;
    return !this.revocations?.revokes(principal);
  }

  private remember(event: EventEnvelope): void {
    const now = Date.now();
    this.recent.push({ event, at: now });
    while (this.recent.length > 0 && this.recent[0]!.at < now - RECENT_MS) this.recent.shift();
  }

  /**
   * Run the selection for one event, retrying transient failures; the last failure is delivered as
   * an error on the field (with the event id, so the subscriber can look it up later), never dropped.
   */
  private async lookup(plan: Plan, principal: Principal, event: Pick<EventEnvelope, 'id' | 'type'>): Promise<ExecutionResult> {
    let last: { errors?: readonly unknown[] } = {};
    for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1]!);
      try {
        const response = await this.gateway.execute({ query: plan.query, variables: { ...plan.variables, __eventId: event.id } }, { principal, requestId: newId('req') });
        const value = response.data?.[plan.responseKey];
        const codes = errorCodes(response.errors);
        const transient = codes.some((c) => TRANSIENT.has(c));
        if (value !== null && value !== undefined && (!transient || attempt === RETRY_DELAYS_MS.length)) {
          const result: ExecutionResult = { data: { [plan.responseKey]: value } };
          return response.errors ? { ...result, errors: response.errors as ExecutionResult['errors'] } : result;
        }
        // Not found yet (the log is behind) or a transient failure: try again; a permanent error ends here.
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
        new GraphQLError(`The event ${event.id} could not be looked up (${errorCodes(last.errors).join(', ') || 'not in the event log yet'}); read it later with Query.event.`, {
          path: [plan.responseKey],
          extensions: { code: 'EVENT_LOOKUP_FAILED', eventId: event.id, eventType: event.type },
        }),
      ],
    };
  }

  private dispatch(event: EventEnvelope): void {
    if (isInternalEventType(event.type)) return; // never sent to subscribers (see envelope.ts)
    this.remember(event);
    for (const group of this.groups.values()) {
      if (group.plan.types && !group.plan.types.has(event.type)) continue;
      if (!mayReceive(group.context.principal, event)) continue;
      if (!this.credentialStands(group.context.principal)) continue;
      const result = this.lookup(group.plan, group.context.principal, event);
      group.chain = group.chain.then(async () => {
        const delivered = await result;
        for (const sink of group.sinks) sink({ eventId: event.id, result: delivered });
      });
    }
  }
}
