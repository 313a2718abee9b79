/**
 * Errors are values: every failure the platform reports carries a stable `code`. One table maps a
 * code to its HTTP status; the REST facade renders it as RFC 9457 problem+json, the GraphQL layer as
 * a typed error, the FHIR layer as an OperationOutcome.
 */

/** Stable error codes. Clients may switch on these; never rename one. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_ERROR: 422,
  MISSING_SOURCE_HEADER: 400,
  INVALID_SOURCE_HEADER: 400,
  UNAUTHENTICATED: 401,
  INVALID_TOKEN: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  // A partner's asynchronous jobs waiting or running reached its share of the queue.
  JOB_QUEUE_FULL: 429,
  ACCOUNT_LOCKED: 423,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  UPSTREAM_UNAVAILABLE: 503,
  NOT_READY: 503,
  // GraphQL operations refused before execution (platform/src/graphql/operation-limits.ts).
  OPERATION_TOO_DEEP: 400,
  TOO_MANY_ALIASES: 400,
  TOO_MANY_TOKENS: 400,
  TOO_MANY_DIRECTIVES: 400,
  PAGE_SIZE_TOO_LARGE: 400,
  OPERATION_TOO_COSTLY: 400,
  RESPONSE_TOO_LARGE: 400,
  // Trusted documents and persisted queries at the public /graphql (gateway/src/trusted-documents.ts).
  TRUSTED_DOCUMENT_REQUIRED: 403,
  PERSISTED_QUERY_NOT_LISTED: 400,
  PERSISTED_QUERY_HASH_MISMATCH: 400,
  // Waiting for an event (Query.event(waitMs)): too many waits in one request, or in the whole process.
  TOO_MANY_WAITERS: 400,
  SERVER_BUSY: 503,
  // An ASC X12 interchange that breaks its envelope or implementation guide (the details name segment and element).
  X12_INVALID: 422,
  // Partner input over one of its parser's size or complexity limits (platform/src/payload-limits.ts);
  // `details.limit` names the limit. PAYLOAD_TOO_LARGE (above) also serves the size and entry counts.
  TOO_MANY_SEGMENTS: 413,
  TOO_MANY_LOOPS: 413,
  NESTING_TOO_DEEP: 413,
  SEGMENT_TOO_LONG: 413,
  ELEMENT_TOO_LONG: 413,
  TOO_MANY_REPETITIONS: 413,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One field-level problem, addressed by a JSON-pointer-like path such as `contact.email`. */
export interface FieldError {
  field: string;
  message: string;
}

/** A failure that the caller can act on. Anything else is an internal error. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly fieldErrors: readonly FieldError[];
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { fieldErrors?: readonly FieldError[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.fieldErrors = options.fieldErrors ?? [];
    this.details = options.details ?? {};
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Shorthand for the most common domain error: input that failed validation, field by field. */
export function validationError(fieldErrors: readonly FieldError[], message = 'The request has invalid fields.'): DomainError {
  return new DomainError('VALIDATION_ERROR', message, { fieldErrors });
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** The HTTP status for a code; unknown codes are internal errors. */
export function httpStatusFor(code: string): number {
  return isErrorCode(code) ? ERROR_STATUS[code] : 500;
}

/** RFC 9457 problem document, extended with our stable `code` and field errors. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode | string;
  instance?: string;
  request_id?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

const TITLES: Partial<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  423: 'Locked',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** Base of the `type` URIs; each code is documented at `${PROBLEM_TYPE_BASE}/${code}`. */
export const PROBLEM_TYPE_BASE = '/problems';

/** Render any error code as a problem document. */
export function problemFor(
  code: string,
  detail: string,
  extras: { instance?: string; requestId?: string; fieldErrors?: readonly FieldError[]; details?: Record<string, unknown> } = {},
): ProblemDocument {
  const status = httpStatusFor(code);
  const problem: ProblemDocument = {
    type: `${PROBLEM_TYPE_BASE}/${code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...extras.details,
  };
  if (extras.instance) problem.instance = extras.instance;
  if (extras.requestId) problem.request_id = extras.requestId;
  if (extras.fieldErrors && extras.fieldErrors.length > 0) problem.errors = [...extras.fieldErrors];
  return problem;
}
