/** One invalid input field, as the API names it (`subscriber.member_id`, `line 3`, …). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A request the API refused, whatever the error format of its route: RFC 9457 problem+json (REST),
 * a FHIR OperationOutcome (under /fhir/R4) or an OAuth error (the token endpoint). `code` is the
 * API's error code (`NOT_FOUND`, `RATE_LIMITED`, `invalid_client` …).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: {
      /** The fields that were invalid, when the API names them. */
      errors?: FieldError[];
      /** Seconds the API asked to wait (Retry-After), on 429 and 503. */
      retryAfterSeconds?: number;
      /** The API's request id (`request_id`), for support. */
      requestId?: string;
      /** The parsed body (problem document, OperationOutcome or OAuth error). */
      body?: unknown;
      method?: string;
      url?: string;
    } = {},
  ) {
    super(message);
  }

  get errors(): FieldError[] {
    return this.details.errors ?? [];
  }
}

/** The ApiError of a refused response; reads (and consumes) its body. */
export async function apiErrorOf(response: Response, method: string): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the text is the message.
  }
  return apiErrorFrom(response, method, body);
}

/** The ApiError of a refused response whose body was already read (`body`: parsed JSON, or text). */
export function apiErrorFrom(response: Response, method: string, body: unknown): ApiError {
  const retryAfterSeconds = retryAfterOf(response.headers, Date.now());
  const common = { body, ...(method ? { method } : {}), url: response.url, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  if (isObject(body) && body['resourceType'] === 'OperationOutcome') {
    const issue = (Array.isArray(body['issue']) ? body['issue'][0] : undefined) as { diagnostics?: string; details?: { coding?: { code?: string }[]; text?: string }; expression?: string[] } | undefined;
    const code = issue?.details?.coding?.[0]?.code ?? issue?.details?.text ?? `HTTP_${response.status}`;
    const errors = (issue?.expression ?? []).map((field) => ({ field, message: issue?.diagnostics ?? '' }));
    return new ApiError(response.status, code, issue?.diagnostics ?? `HTTP ${response.status}`, { ...common, ...(errors.length ? { errors } : {}) });
  }
  if (isObject(body) && typeof body['error'] === 'string' && !('code' in body)) {
    return new ApiError(response.status, body['error'], typeof body['error_description'] === 'string' ? body['error_description'] : body['error'], common);
  }
  if (isObject(body)) {
    const errors = Array.isArray(body['errors']) ? (body['errors'] as FieldError[]).filter((e) => isObject(e) && typeof e.field === 'string') : undefined;
    return new ApiError(response.status, typeof body['code'] === 'string' ? body['code'] : `HTTP_${response.status}`, typeof body['detail'] === 'string' ? body['detail'] : `HTTP ${response.status}`, {
      ...common,
      ...(errors?.length ? { errors } : {}),
      ...(typeof body['request_id'] === 'string' ? { requestId: body['request_id'] } : {}),
    });
  }
  return new ApiError(response.status, `HTTP_${response.status}`, typeof body === 'string' && body ? body.slice(0, 500) : `HTTP ${response.status}`, common);
}

/** Retry-After in seconds (delta seconds or an HTTP date), if the response carries one. */
export function retryAfterOf(headers: Headers, now: number): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
