import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { DomainError, httpStatusFor, type FieldError } from '../errors.js';
import { isConnectionFailure, RETRY_AFTER_SECONDS } from '../dependency-health.js';

/** The extensions every error we emit over GraphQL carries. */
export interface ErrorExtensions {
  code: string;
  status: number;
  fieldErrors?: FieldError[];
  [key: string]: unknown;
}

/**
 * Turn whatever a resolver threw into a GraphQL error with a stable code. Domain errors keep their
 * message and fields; an unreachable backing service is UPSTREAM_UNAVAILABLE; anything else
 * unexpected is masked so internals never leak to a caller. `onInternal` sees both kinds.
 */
export function toGraphQLError(error: GraphQLError, onInternal: (err: unknown) => void): GraphQLError {
  const original = error.originalError;
  if (original instanceof DomainError) {
    // Details first: a detail can never overwrite the code or the status.
    const extensions: ErrorExtensions = { ...original.details, code: original.code, status: original.status };
    if (original.fieldErrors.length > 0) extensions.fieldErrors = [...original.fieldErrors];
    return new GraphQLError(original.message, { nodes: error.nodes, path: error.path, extensions });
  }
  if (original === undefined || original === null) {
    // Validation and parse errors: the caller's document is at fault.
    const code = typeof error.extensions['code'] === 'string' ? error.extensions['code'] : 'BAD_REQUEST';
    return new GraphQLError(error.message, { nodes: error.nodes, path: error.path, extensions: { ...error.extensions, code, status: httpStatusFor(code) } });
  }
  if (original instanceof GraphQLError && typeof original.extensions['code'] === 'string') {
    return new GraphQLError(original.message, { nodes: error.nodes, path: error.path, extensions: original.extensions });
  }
  onInternal(original);
  if (isConnectionFailure(original)) {
    // The database (or another backing service) is unreachable: an outage, not a bug.
    const extensions: ErrorExtensions = { code: 'UPSTREAM_UNAVAILABLE', status: 503, retry_after: RETRY_AFTER_SECONDS };
    return new GraphQLError('A service this request needs is unavailable right now; retry shortly.', { nodes: error.nodes, path: error.path, extensions });
  }
  return new GraphQLError('Internal server error', { nodes: error.nodes, path: error.path, extensions: { code: 'INTERNAL', status: 500 } });
}

/** Read the code of a formatted error that crossed a process boundary. */
export function errorCode(error: GraphQLFormattedError): string {
  const code = error.extensions?.['code'];
  return typeof code === 'string' ? code : 'INTERNAL';
}
