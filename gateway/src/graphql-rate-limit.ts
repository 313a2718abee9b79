import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestContext } from '@apollo/server';
import {
  getArgumentValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import {
  admitClientAuthentication,
  claimedClient,
  clientSubject,
  DomainError,
  graphqlTwin,
  rateLimitedError,
  rateLimitHeaders,
  rateLimitSubject,
  recordClientAuthentication,
  type CapabilityUse,
  type ClientClaim,
  type Principal,
  type RateLimiter,
} from '@svc/platform';
import type { GatewayContext } from './gateway.js';
import type { FastPathAware } from './fast-path.js';

/** A token request found in an operation: the response key it answers under and the client it claims. */
interface TokenRequest {
  responseKey: string;
  claim: ClientClaim;
}

export interface OperationCost {
  uses: CapabilityUse[];
  tokenRequests: TokenRequest[];
}

/** Every field of a selection set, with fragment spreads and inline fragments resolved (aliases each count). */
function fieldsOf(selectionSet: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, out: FieldNode[] = [], path: ReadonlySet<string> = new Set()): FieldNode[] {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) out.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fieldsOf(selection.selectionSet, fragments, out, path);
    else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A cycle is a validation error before we get here; guard anyway.
      if (fragment && !path.has(name)) fieldsOf(fragment.selectionSet, fragments, out, new Set([...path, name]));
    }
  }
  return out;
}

/**
 * What an operation costs against the REST twins' limits: one point per occurrence of a twin
 * field (root fields, and the nested twins such as `partner { baaSignatures }`), per principal;
 * token requests (issueAccessToken) per claimed client, as the token endpoint counts them.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  principal: Principal,
  clientAddress: string,
): OperationCost {
  const root = operation.operation === 'query' ? 'Query' : operation.operation === 'mutation' ? 'Mutation' : null;
  if (!root) return { uses: [], tokenRequests: [] };
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
  const subject = rateLimitSubject(principal, clientAddress);
  const uses: CapabilityUse[] = [];
  const tokenRequests: TokenRequest[] = [];
  const rootType = root === 'Query' ? schema.getQueryType() : schema.getMutationType();

  for (const field of fieldsOf(operation.selectionSet, fragments)) {
    const name = `${root}.${field.name.value}`;
    const twin = graphqlTwin(name);
    if (twin?.clientAuthentication) {
      const definition = rootType?.getFields()[field.name.value];
      let claim: ClientClaim = { clientId: null, secretHash: null };
      try {
        if (definition) claim = claimedClient(getArgumentValues(definition, field, variables)['input']);
      } catch {
        // Arguments the execution will refuse anyway: counted against the address.
      }
      tokenRequests.push({ responseKey: field.alias?.value ?? field.name.value, claim });
      uses.push({ capability: twin, subject: clientSubject(claim, clientAddress), points: 1 });
    } else if (twin) {
      uses.push({ capability: twin, subject, points: 1 });
    }
    if (field.selectionSet) {
      for (const child of fieldsOf(field.selectionSet, fragments)) {
        const nested = graphqlTwin(`${name}.${child.name.value}`);
        if (nested) uses.push({ capability: nested, subject, points: 1 });
      }
    }
  }
  return { uses, tokenRequests };
}

/** A refusal as a GraphQL error: RATE_LIMITED with the policy, and HTTP 429 with Retry-After and the rate-limit headers. */
function refusal(error: DomainError, headers: Record<string, string>): GraphQLError {
  const http = new HeaderMap();
  for (const [key, value] of Object.entries(headers)) http.set(key, value);
  const retryAfter = error.details['retry_after'];
  if (typeof retryAfter === 'number') http.set('retry-after', String(retryAfter));
  return new GraphQLError(error.message, { extensions: { ...error.details, code: error.code, status: error.status, http: { status: error.status, headers: http } } });
}

/**
 * Applies the REST limits to operations that came in on the public /graphql (HTTP or graphql-ws):
 * the context's `publicRequest` marks them. Operations the REST facade runs for a REST request
 * (in process, or over the forwarded-principal hop) carry no such mark: the facade counted them.
 * Runs after the document is parsed and validated, so persisted queries and GET requests count too.
 */
export function graphqlRateLimitPlugin(limiter: RateLimiter): ApolloServerPlugin<GatewayContext> & FastPathAware {
  return {
    // The gateway's fast path (fast-path.ts) skips these hooks only where they would do nothing: an
    // operation that is not a public one, or whose fields have no REST twin and request no token.
    fastPathAdmits({ schema, document, operation, variables, context }) {
      if (!context.publicRequest) return true;
      const cost = operationCost(schema, document, operation, variables, context.principal, context.publicRequest.clientAddress);
      return cost.uses.length === 0 && cost.tokenRequests.length === 0;
    },
    async requestDidStart() {
      let tokenRequests: TokenRequest[] = [];
      let clientAddress = '';
      return {
        async didResolveOperation(rc: GraphQLRequestContext<GatewayContext>) {
          const publicRequest = rc.contextValue.publicRequest;
          if (!publicRequest || !rc.operation || !rc.document) return;
          clientAddress = publicRequest.clientAddress;
          const cost = operationCost(rc.schema, rc.document, rc.operation, rc.request.variables ?? {}, rc.contextValue.principal, clientAddress);
          if (cost.tokenRequests.length > 1) {
            throw new GraphQLError('An operation may request at most one access token (issueAccessToken), as the token endpoint takes one request at a time.', {
              extensions: { code: 'BAD_REQUEST', status: 400, http: { status: 400 } },
            });
          }
          const decision = await limiter.consume(cost.uses);
          const headers = decision ? rateLimitHeaders(decision) : {};
          for (const [key, value] of Object.entries(headers)) rc.response.http.headers.set(key, value);
          if (decision && !decision.allowed) throw refusal(rateLimitedError(decision.binding), headers);
          for (const request of cost.tokenRequests) {
            try {
              await admitClientAuthentication(limiter, clientAddress, request.claim);
            } catch (err) {
              if (err instanceof DomainError) throw refusal(err, headers);
              throw err;
            }
          }
          tokenRequests = cost.tokenRequests;
        },
        async willSendResponse(rc: GraphQLRequestContext<GatewayContext>) {
          const body = rc.response.body;
          if (tokenRequests.length === 0 || body?.kind !== 'single') return;
          const { data, errors } = body.singleResult;
          for (const request of tokenRequests) {
            const failed = errors?.some((e) => e.path?.[0] === request.responseKey && e.extensions?.['code'] === 'UNAUTHENTICATED');
            const succeeded = !failed && data?.[request.responseKey] !== null && data?.[request.responseKey] !== undefined;
            if (failed || succeeded) await recordClientAuthentication(limiter, clientAddress, request.claim, succeeded);
          }
        },
      };
    },
  };
}
