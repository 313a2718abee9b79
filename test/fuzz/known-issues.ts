import type { FuzzCase } from './cases.js';
import type { Finding } from './check.js';
import type { FuzzResponse } from './http.js';

/**
 * Failures of the hardening issue that are being fixed elsewhere: each is reported with its
 * reproduction but does not fail a run. Remove an entry once its fix has landed; the run then holds
 * the fix in place. Undefined for anything not listed.
 */
export function knownIssue(finding: Finding, testCase: FuzzCase, response: FuzzResponse): string | undefined {
  const query = testCase.request.path.split('?')[1] ?? '';
  if (finding.kind === 'server-error' && finding.detail.startsWith('500') && /(^|&)(cursor|after)=/.test(query) && testCase.request.method === 'GET') {
    return 'issue 7 point 10: a forged pagination cursor gives 500 INTERNAL';
  }
  if (response.kind === 'response' && (finding.kind === 'error-format' || finding.kind === 'no-request-id') && [400, 414, 431].includes(response.status)) {
    const body = response.body.toString('utf8');
    // Fastify's own answers before any route runs: Node's parser (clientError) and the router's FST_ERR_BAD_URL.
    if (/"statusCode":\s*(400|414|431)/.test(body) || body === '') return 'issue 7 point 11: 400/414/431 from the HTTP layer are application/json without a request id';
  }
  return undefined;
}
