import { executeSync, parse, type GraphQLSchema } from 'graphql';
import { printSubgraphSchema } from '@apollo/subgraph';
import { ANONYMOUS } from '../auth/principal.js';

const SERVICE_SDL = parse('{ _service { sdl } }');

/**
 * A subgraph schema's SDL as it serves it in `_service { sdl }`: the text its builder printed when
 * it made the schema, so it is not printed a second time (printing a subgraph parses and validates
 * it again, a large part of a boot). `_service` is public, as every subgraph serves it to a gateway
 * composing it; a schema without that field is printed.
 */
export function serviceSdl(schema: GraphQLSchema): string {
  const result = schema.getQueryType()?.getFields()['_service'] ? executeSync({ schema, document: SERVICE_SDL, contextValue: { principal: ANONYMOUS } }) : undefined;
  const sdl = (result?.data?.['_service'] as { sdl?: unknown } | undefined)?.sdl;
  return typeof sdl === 'string' ? sdl : printSubgraphSchema(schema);
}
