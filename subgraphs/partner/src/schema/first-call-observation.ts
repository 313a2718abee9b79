import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { SubgraphContext } from '@svc/platform';
import type { CertificationObserver } from '../domain/certification-observations.js';

/**
 * Let the certification observer see every authenticated partner request that reaches this
 * subgraph: each root field of Query and Mutation, once it resolved without error, reports the
 * principal. Until a partner's first call is recorded the answer waits for the record (one
 * insert), so a client that checks its certification right after the call sees the evidence;
 * afterwards the check is an in-memory lookup.
 */
export function observeAuthenticatedCalls(schema: GraphQLSchema, observer: CertificationObserver): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context: SubgraphContext, info) => {
        const result: unknown = resolve(source, args, context, info);
        if (!observer.needsFirstCall(context.principal)) return result;
        return Promise.resolve(result).then(async (value) => {
          await observer.onAuthenticatedCall(context.principal, context.requestId);
          return value;
        });
      };
    }
  }
  return schema;
}
