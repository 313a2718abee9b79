import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '@svc/platform';
import { bootSystem, type TestSystem } from '../support/system.js';
import { memoryLogger } from '../support/logs.js';


describe('secrets in query strings are refused, and never reach a log line', () => {
  const { lines, logger } = memoryLogger();
  let sys: TestSystem;
  let apiToken: string;
  const clientSecret = 'svc_cs_query-string-client-secret-0123456789';
  const password = 'Portal-Password-In-A-URL-9876';

  beforeAll(async () => {
    sys = await bootSystem({}, { logger });
    const created = await sys.request({ method: 'POST', url: '/cms/tokens', body: { name: 'log test', scopes: ['cms.tokens.read'] } });
    expect(created.statusCode).toBe(201);
    apiToken = created.json().secret;
    expect(apiToken).toMatch(/^svc_pat_/);
  });
  afterAll(() => sys?.close());

  /** Every line logged for one request id. */
  const linesOf = (requestId: unknown) => lines.filter((l) => l.includes(String(requestId)));
  const allLogs = () => lines.join('\n');

  it('refuses ?access_token= (RFC 6750 §2.3, not supported) with a problem asking for the Authorization header', async () => {
    const res = await sys.request({ url: `/cms/tokens?access_token=${apiToken}`, token: null });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json();
    expect(problem.code).toBe('BAD_REQUEST');
    expect(problem.detail).toMatch(/Authorization header/);
    expect(problem.errors).toEqual([{ field: 'access_token', message: expect.stringContaining('Authorization header') }]);
    expect(problem.request_id).toBe(res.headers['x-request-id']);
    // The request was logged, without the token.
    const logged = linesOf(res.headers['x-request-id']);
    expect(logged.some((l) => l.includes('/cms/tokens?access_token=[redacted]'))).toBe(true);
    // Even with a valid header beside it, the query parameter is refused.
    const both = await sys.request({ url: `/cms/tokens?access_token=${apiToken}`, token: apiToken });
    expect(both.statusCode).toBe(400);
    // Under /fhir/R4 the same refusal is an OperationOutcome.
    const fhir = await sys.request({ url: `/fhir/R4/metadata?access_token=${apiToken}`, token: null });
    expect(fhir.statusCode).toBe(400);
    expect(fhir.json().resourceType).toBe('OperationOutcome');
  });

  it('refuses client credentials in the /oauth/token query string (RFC 6749 §2.3.1) with invalid_request', async () => {
    const res = await sys.request({
      method: 'POST',
      url: `/oauth/token?client_id=cli_x&client_secret=${clientSecret}`,
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('RFC 6749') });
    expect(linesOf(res.headers['x-request-id']).some((l) => l.includes('/oauth/token?client_id=cli_x&client_secret=[redacted]'))).toBe(true);
    // In the body, where the RFC puts it, the secret is checked (and refused as unknown) without being logged.
    const body = await sys.request({
      method: 'POST',
      url: '/oauth/token',
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=cli_00000000000000000000000000&client_secret=${clientSecret}`,
    });
    expect(body.statusCode).toBe(401);
  });

  it('refuses a mutation over GET /graphql, and logs its URL without the query string', async () => {
    const mutation = `mutation { portalLogin(email: "someone@example.org", password: "${password}") { accessToken } }`;
    for (const headers of [{}, { 'apollo-require-preflight': 'true' }] as Record<string, string>[]) {
      const res = await sys.request({ url: `/graphql?query=${encodeURIComponent(mutation)}`, token: null, headers });
      expect([400, 405]).toContain(res.statusCode);
      expect(res.body).not.toContain(password);
      expect(linesOf(res.headers['x-request-id']).some((l) => l.includes('"url":"/graphql?[redacted]"'))).toBe(true);
    }
    // With the preflight header Apollo gets to read the operation: a mutation over GET is 405 (GraphQL over HTTP).
    const preflight = await sys.request({ url: `/graphql?query=${encodeURIComponent(mutation)}`, token: null, headers: { 'apollo-require-preflight': 'true' } });
    expect(preflight.statusCode).toBe(405);
    // Variables in the query string are redacted as a whole too.
    const withVariables = await sys.request({
      url: `/graphql?query=${encodeURIComponent('mutation($p: String!) { portalLogin(email: "a@example.org", password: $p) { accessToken } }')}&variables=${encodeURIComponent(JSON.stringify({ p: password }))}`,
      token: null,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(withVariables.statusCode).toBe(405);
    // A query over GET still works.
    const query = await sys.request({ url: `/graphql?query=${encodeURIComponent('{ viewer { kind } }')}`, token: apiToken, headers: { 'apollo-require-preflight': 'true' } });
    expect(query.statusCode).toBe(200);
  });

  it('logs a FHIR search by its parameter names, never its values', async () => {
    const res = await sys.request({ url: '/fhir/R4/Patient?family=Nakamura-Lindqvist&birthdate=1961-02-17&_count=5', token: sys.operatorToken });
    const logged = linesOf(res.headers['x-request-id']);
    expect(logged.some((l) => l.includes('"url":"/fhir/R4/Patient?family=[redacted]&birthdate=[redacted]&_count=5"'))).toBe(true);
    expect(allLogs()).not.toContain('Nakamura');
    expect(allLogs()).not.toContain('1961-02-17');
  });

  it('never wrote a secret, while every request above was logged', () => {
    const text = allLogs();
    expect(lines.filter((l) => l.includes('incoming request')).length).toBeGreaterThanOrEqual(8);
    expect(text).not.toContain(apiToken);
    expect(text).not.toContain(sys.operatorToken);
    expect(text).not.toContain(clientSecret);
    expect(text).not.toContain(password);
    expect(text).not.toContain(encodeURIComponent(password));
  });

  it('censors credential headers and body fields wherever an object is logged', () => {
    const probe = memoryLogger();
    probe.logger.info(
      {
        req: { method: 'POST', url: '/cms/oauth/register?token=abc&limit=1', headers: { authorization: 'Bearer s1', cookie: 's2', 'x-svc-principal': 's3', 'proxy-authorization': 's4' } },
        headers: { authorization: 'Bearer s5', 'x-svc-principal': 's6' },
        body: { client_secret: 's7', password: 's8', nested: { refresh_token: 's9' } },
      },
      'probe',
    );
    const line = JSON.parse(probe.lines[0]!) as Record<string, Record<string, unknown>>;
    expect(line['req']!['url']).toBe('/cms/oauth/register?token=[redacted]&limit=1');
    expect(line['req']!['headers']).toBeUndefined();
    expect(line['headers']).toEqual({ authorization: '[redacted]', 'x-svc-principal': '[redacted]' });
    expect(line['body']).toEqual({ client_secret: '[redacted]', password: '[redacted]', nested: { refresh_token: '[redacted]' } });
    for (const secret of ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 'abc']) expect(probe.lines[0]).not.toContain(`"${secret}"`);
  });

  it('keeps only the values of parameters that shape an answer or name an OAuth flow', () => {
    expect(redactUrl('GET', '/x?code=1&state=2&client_assertion=3&refresh_token=4&limit=5')).toBe('/x?code=[redacted]&state=2&client_assertion=[redacted]&refresh_token=[redacted]&limit=5');
    // A search's values are health data: only its names and the answer's shape are logged.
    expect(redactUrl('GET', '/fhir/R4/Patient?name:exact=Zo%C3%AB&birthdate=1970-05-03&identifier=urn:oid:2.16.840.1.113883.4.1|123-45-6789&_count=20&_sort=-birthdate&_include:iterate=Patient:link&_cursor=eyJ2IjoiWm9lIn0')).toBe(
      '/fhir/R4/Patient?name:exact=[redacted]&birthdate=[redacted]&identifier=[redacted]&_count=20&_sort=-birthdate&_include:iterate=Patient:link&_cursor=[redacted]',
    );
    expect(redactUrl('GET', '/api/pipeline/jobs?partner=CMS-00000001&first=10&after=abc&flag')).toBe('/api/pipeline/jobs?partner=[redacted]&first=10&after=[redacted]&flag');
    expect(redactUrl('GET', '/graphql?query={viewer{kind}}')).toBe('/graphql?[redacted]');
    expect(redactUrl('GET', '/cms/tokens')).toBe('/cms/tokens');
  });
});
