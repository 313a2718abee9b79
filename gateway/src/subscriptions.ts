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
import { actsFor, isInternalEventType, newId, type EventBus, type EventEnvelope, type Logger, type Principal, type RevocationList } from '@svc/platform';
import type { Gateway, GatewayContext } from './gateway.js';

/** How long an event's query may wait for the event log to record the event. */
const EVENT_WAIT_MS = 3000;

const SUBSCRIPTION_SDL = `
"""Live platform events. Each event is delivered by running your selection against Query.event, so it can reach into every subgraph."""
type Subscription {
  """Events of your partner (operators: all), optionally only of the named types (e.g. pipeline.sync.completed)."""
  events(types: [String!]): Event!
}
extend schema { subscription: Subscription }
`;

/** The API schema plus the event subscriptions; unchanged when the supergraph has no Event type. */
export function withSubscriptions(apiSchema: GraphQLSchema): GraphQLSchema {
  if (!apiSchema.getType('Event') || apiSchema.getSubscriptionType()) return apiSchema;
  return extendSchema(apiSchema, parse(SUBSCRIPTION_SDL));
}

/** A subscriber's selection, rewritten as a query against Query.event. */
interface Plan {
  query: string;
  variables: Record<string, unknown>;
  responseKey: string;
  types: ReadonlySet<string> | null;
}

function planFor(args: ExecutionArgs): Plan {
  const operation = getOperationAST(args.document, args.operationName);
  const field = operation?.selectionSet.selections[0];
  if (!operation || operation.operation !== 'subscription' || field?.kind !== Kind.FIELD || field.name.value !== 'events') {
    throw new Error('Only the events subscription is available.');
  }
  const variables = { ...(args.variableValues ?? {}) };
  const typesArg = field.arguments?.find((a) => a.name.value === 'types');
  const types = typesArg ? (valueFromAST(typesArg.value, new GraphQLList(new GraphQLNonNull(GraphQLString)), variables) as string[] | null | undefined) : null;

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
  return { query: print(document), variables, responseKey: eventField.alias!.value, types: types ? new Set(types) : null };
}

interface Group {
  plan: Plan;
  context: GatewayContext;
  sinks: Set<(result: ExecutionResult) => void>;
}

/**
 * Event-driven federated subscriptions: one bus subscription for the whole gateway; for each event,
 * every group of subscribers with the same document, variables and credential shares one execution
 * of its selection through the gateway's own query planner.
 */
export class SubscriptionHub {
  private readonly groups = new Map<string, Group>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly gateway: Pick<Gateway, 'execute'>,
    bus: EventBus,
    private readonly logger: Logger,
    /** A group whose credential is revoked or expired is never run again, even before its sockets finish closing. */
    private readonly revocations?: Pick<RevocationList, 'revokes'>,
  ) {
    this.unsubscribe = bus.subscribe((event) => this.dispatch(event));
  }

  /** The stream of results for one subscriber; ending the iteration unsubscribes. */
  subscribe(args: ExecutionArgs): AsyncGenerator<ExecutionResult> {
    const plan = planFor(args);
    const context = args.contextValue as GatewayContext;
    // The group runs as its first subscriber's principal, so it is shared only by connections of the
    // same credential: revoking one credential must not leave others running on a revoked principal.
    const { partnerGpid, scopes, tokenId, clientId } = context.principal;
    const key = JSON.stringify([plan.query, plan.variables, partnerGpid, scopes, tokenId ?? null, clientId ?? null]);
    let group = this.groups.get(key);
    if (!group) {
      group = { plan, context, sinks: new Set() };
      this.groups.set(key, group);
    }
    const queue: ExecutionResult[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const sink = (result: ExecutionResult) => {
      queue.push(result);
      wake?.();
    };
    group.sinks.add(sink);
    const leave = () => {
      done = true;
      wake?.();
      group.sinks.delete(sink);
      if (group.sinks.size === 0) this.groups.delete(key);
    };
    return (async function* stream() {
      try {
        while (!done) {
          const next = queue.shift();
          if (next) {
            yield next;
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

  private credentialStands(principal: Principal): boolean {
    if (principal.credentialExpiresAt !== undefined && principal.credentialExpiresAt <= Date.now()) return false;
    return !this.revocations?.revokes(principal);
  }

  private async dispatch(event: EventEnvelope): Promise<void> {
    if (isInternalEventType(event.type)) return; // never sent to subscribers (see envelope.ts)
    await Promise.all(
      [...this.groups.values()].map(async (group) => {
        if (group.plan.types && !group.plan.types.has(event.type)) return;
        if (!actsFor(group.context.principal, event.partner_gpid)) return;
        if (!this.credentialStands(group.context.principal)) return;
        try {
          const response = await this.gateway.execute(
            { query: group.plan.query, variables: { ...group.plan.variables, __eventId: event.id } },
            { principal: group.context.principal, requestId: newId('req') },
          );
          const value = response.data?.[group.plan.responseKey];
          if (value === null || value === undefined) return;
          const result: ExecutionResult = { data: { [group.plan.responseKey]: value } };
          for (const sink of group.sinks) sink(response.errors ? { ...result, errors: response.errors as ExecutionResult['errors'] } : result);
        } catch (err) {
          this.logger.error({ err, eventId: event.id }, 'subscription delivery failed');
        }
      }),
    );
  }
}
