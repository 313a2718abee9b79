import type { FuzzCase } from './cases.js';
import type { FuzzResponse } from './http.js';
import type { ErrorDialect, Operation } from './openapi.js';

/** What the bar forbids: each kind is one line of the README's "What fails a run". */
export type FindingKind = 'server-error' | 'error-format' | 'no-request-id' | 'no-response' | 'bad-success-body' | 'isolation';

export interface Finding {
  kind: FindingKind;
  /** What was wrong, short: the status and code, or the media type that came back. */
  detail: string;
}

const header = (res: Extract<FuzzResponse, { kind: 'response' }>, name: string): string => {
  const value = res.headers[name];
  return Array.isArray(value) ? value.join(', ') : value ?? '';
};

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The error dialect the request's path and method call for. */
export function dialectOf(testCase: FuzzCase): ErrorDialect {
  const path = testCase.request.path.split('?')[0]!;
  if (path === '/fhir/R4' || path.startsWith('/fhir/R4/')) return 'fhir';
  const sameRoute = testCase.request.method === testCase.operation.method && !testCase.mutations.some((m) => m.startsWith('path-'));
  return sameRoute && testCase.operation.errorDialect === 'oauth' ? 'oauth' : 'problem';
}

/** An error body in the wrong dialect, or without what every error carries; undefined when fine. */
function errorFormatProblem(dialect: ErrorDialect, res: Extract<FuzzResponse, { kind: 'response' }>, requestId: string, head: boolean): string | undefined {
  const type = header(res, 'content-type');
  const expected = { problem: 'application/problem+json', fhir: 'application/fhir+json', oauth: 'application/json' }[dialect];
  if (!type.toLowerCase().startsWith(expected)) return `${res.status} as "${type || 'no content-type'}", not ${expected}`;
  if (head) return undefined;
  const parsed = parseJson(res.body);
  if (!parsed.ok || !isRecord(parsed.value)) return `${res.status} ${expected} body is not a JSON object`;
  const body = parsed.value;
  if (dialect === 'fhir') return body['resourceType'] === 'OperationOutcome' && Array.isArray(body['issue']) && body['issue'].length > 0 ? undefined : `${res.status} body is not an OperationOutcome`;
  if (dialect === 'oauth') return typeof body['error'] === 'string' ? undefined : `${res.status} body has no RFC 6749 "error"`;
  for (const field of ['type', 'title', 'code'] as const) if (typeof body[field] !== 'string') return `${res.status} problem without "${field}"`;
  if (body['status'] !== res.status) return `${res.status} problem says status ${String(body['status'])}`;
  if (body['request_id'] !== requestId) return `${res.status} problem request_id ${JSON.stringify(body['request_id'])} is not the X-Request-Id ${JSON.stringify(requestId)}`;
  return undefined;
}

/**
 * A matcher of the operations the document marks as not served yet (`x-implemented: false`), by
 * method and request path, the way the router matches them (a parameter is one non-empty segment).
 */
export function notServedMatcher(operations: readonly Operation[]): (method: string, path: string) => boolean {
  const patterns = operations
    .filter((op) => !op.implemented)
    .map((op) => ({ method: op.method, pattern: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]*')}$`) }));
  return (method, path) => patterns.some((p) => p.method === method && p.pattern.test(path));
}

/**
 * Judge one answer: no 5xx (501 only where the document says the operation is not served), no
 * dropped connection, an X-Request-Id on everything, errors in the path's dialect, and JSON that
 * parses where JSON is announced.
 */
export function checkResponse(testCase: FuzzCase, res: FuzzResponse, notServed: (method: string, path: string) => boolean): Finding[] {
  if (res.kind === 'no-response') return res.error.startsWith('unsendable') ? [] : [{ kind: 'no-response', detail: res.error }];
  const findings: Finding[] = [];
  const { request } = testCase;
  const head = request.method === 'HEAD';
  const code = (() => {
    const parsed = head ? { ok: false as const } : parseJson(res.body);
    return parsed.ok && isRecord(parsed.value) ? String(parsed.value['code'] ?? parsed.value['error'] ?? '') : '';
  })();

  const documentedNotServed = res.status === 501 && notServed(request.method === 'HEAD' ? 'GET' : request.method, request.path.split('?')[0]!);
  if (res.status >= 500 && !documentedNotServed) findings.push({ kind: 'server-error', detail: `${res.status}${code ? ` ${code}` : ''}` });

  const requestId = header(res, 'x-request-id');
  if (!requestId) findings.push({ kind: 'no-request-id', detail: `${res.status} without X-Request-Id` });

  if (res.status === 429 && !header(res, 'retry-after')) findings.push({ kind: 'error-format', detail: '429 without Retry-After' });
  if (res.status >= 400) {
    const problem = errorFormatProblem(dialectOf(testCase), res, requestId, head);
    if (problem) findings.push({ kind: 'error-format', detail: problem });
  } else if (res.status >= 200 && res.status !== 204 && !head && /[/+]json\b/i.test(header(res, 'content-type')) && !parseJson(res.body).ok) {
    findings.push({ kind: 'bad-success-body', detail: `${res.status} ${header(res, 'content-type')} body does not parse` });
  }
  return findings;
}
