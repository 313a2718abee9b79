import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/** Send raw bytes to a listening app and read the whole answer (the server closes after an error). */
function rawRequest(port: number, bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
  });
}

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(res.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, code, type: expect.stringMatching(/^\/problems\//), title: expect.any(String), detail: expect.any(String) });
  expect(problem['request_id']).toBe(res.headers['x-request-id']);
  expect(problem['request_id']).toMatch(/^req_/);
  return problem;
}

function expectOperationOutcome(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/fhir\+json/);
  const outcome = JSON.parse(res.body) as { resourceType: string; issue: { details: { text: string } }[] };
  expect(outcome.resourceType).toBe('OperationOutcome');
  expect(outcome.issue[0]!.details.text).toBe(code);
  expect(res.headers['x-request-id']).toMatch(/^req_/);
}

describe('what the HTTP layer refuses is a problem document (OperationOutcome under /fhir/R4) with a request id', () => {
  let sys: TestSystem;
  let port: number;
  beforeAll(async () => {
    sys = await bootSystem();
    await sys.system.app.listen({ port: 0, host: '127.0.0.1' });
    port = (sys.system.app.server.address() as AddressInfo).port;
  });
  afterAll(() => sys?.close());

  const inject = (options: { method?: string; url: string; headers?: Record<string, string>; payload?: string }) =>
    sys.system.app.inject({ method: (options.method ?? 'GET') as 'GET', url: options.url, headers: { authorization: `Bearer ${sys.operatorToken}`, ...options.headers }, ...(options.payload === undefined ? {} : { payload: options.payload }) });

  it('malformed JSON and an empty JSON body: 400', async () => {
    expectProblem(await inject({ method: 'POST', url: '/cms/tokens', headers: { 'content-type': 'application/json' }, payload: '{"name":' }), 400, 'BAD_REQUEST');
    expectProblem(await inject({ method: 'POST', url: '/cms/tokens', headers: { 'content-type': 'application/json' }, payload: '' }), 400, 'BAD_REQUEST');
    expectProblem(await inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: '{' }), 400, 'BAD_REQUEST');
    expectOperationOutcome(await inject({ method: 'POST', url: '/fhir/R4/Patient', headers: { 'content-type': 'application/fhir+json' }, payload: '{"resourceType":' }), 400, 'BAD_REQUEST');
  });

  it('JSON nested deeper than 100 levels: 400 before anything walks it, as a body or as JSON text inside a GraphQL string', async () => {
    const deep = (depth: number) => `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
    const json = { 'content-type': 'application/json' };
    const tooDeep = expectProblem(await inject({ method: 'POST', url: '/cms/tokens', headers: json, payload: deep(5000) }), 400, 'BAD_REQUEST');
    expect(tooDeep['detail']).toMatch(/deeper than 100 levels/);
    expectProblem(await inject({ method: 'POST', url: '/graphql', headers: json, payload: `{"query":"{ __typename }","variables":${deep(5000)}}` }), 400, 'BAD_REQUEST');
    expectOperationOutcome(await inject({ method: 'POST', url: '/fhir/R4', headers: { 'content-type': 'application/fhir+json' }, payload: `{"resourceType":"Bundle","type":"batch","entry":[${deep(200)}]}` }), 400, 'BAD_REQUEST');
    // Brackets inside strings are text, not nesting.
    const text = await inject({ method: 'POST', url: '/graphql', headers: json, payload: JSON.stringify({ query: `{ __typename }`, variables: { note: '['.repeat(500) } }) });
    expect(text.statusCode).toBe(200);
    // JSON text in a GraphQL string is checked where it is parsed: a typed error naming the argument.
    const mutation = 'mutation C($text: String) { fhirCreate(resourceType: "Patient", resourceText: $text) { status } }';
    const res = await inject({ method: 'POST', url: '/graphql', headers: json, payload: JSON.stringify({ query: mutation, variables: { text: `{"resourceType":"Patient","extension":[${deep(5000)}]}` } }) });
    const body = JSON.parse(res.body) as { errors?: { message: string; extensions: { code: string } }[] };
    expect(body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/resourceText nests objects and arrays deeper than 100 levels/), extensions: { code: 'BAD_REQUEST' } });
  });

  it('a malformed percent-encoding in the path: 400', async () => {
    expectProblem(await inject({ url: '/api/identity/%E0%A4%A' }), 400, 'BAD_REQUEST');
    expectOperationOutcome(await inject({ url: '/fhir/R4/Patient/%E0%A4%A' }), 400, 'BAD_REQUEST');
  });

  it('a path segment over the router limit: 414', async () => {
    expectProblem(await inject({ url: `/api/identity/${'A'.repeat(500)}` }), 414, 'URI_TOO_LONG');
    expectOperationOutcome(await inject({ url: `/fhir/R4/Patient/${'A'.repeat(500)}` }), 414, 'URI_TOO_LONG');
  });

  it('headers over the HTTP parser limit: 431, answered by the parser itself', async () => {
    const res = await rawRequest(port, `GET /cms/tokens HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectProblem({ statusCode: res.status, headers: res.headers, body: res.body }, 431, 'HEADERS_TOO_LARGE');
    const fhir = await rawRequest(port, `GET /fhir/R4/metadata HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectOperationOutcome({ statusCode: fhir.status, headers: fhir.headers, body: fhir.body }, 431, 'HEADERS_TOO_LARGE');
  });

  it('a URL over the HTTP parser limit: 414, without echoing the URL', async () => {
    const res = await rawRequest(port, `GET /cms/tokens?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const problem = expectProblem({ statusCode: res.status, headers: res.headers, body: res.body }, 414, 'URI_TOO_LONG');
    expect(res.body.length).toBeLessThan(1000);
    expect(problem['instance']).toBe('/');
  });

  it('a malformed Content-Length or request line: 400', async () => {
    const badLength = await rawRequest(port, 'POST /cms/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}');
    expectProblem({ statusCode: badLength.status, headers: badLength.headers, body: badLength.body }, 400, 'BAD_REQUEST');
    const twoLengths = await rawRequest(port, 'POST /cms/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}');
    expectProblem({ statusCode: twoLengths.status, headers: twoLengths.headers, body: twoLengths.body }, 400, 'BAD_REQUEST');
    const garbage = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expectProblem({ statusCode: garbage.status, headers: garbage.headers, body: garbage.body }, 400, 'BAD_REQUEST');
  });

  it('a body shorter than its Content-Length, as Fastify reads it: 400', async () => {
    const res = await rawRequest(port, 'POST /cms/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    // A well-formed request still goes through (and is refused for its missing credential).
    expect(res.status).toBe(401);
  });

  it('the connection keeps serving ordinary requests afterwards', async () => {
    const res = await inject({ url: '/health' });
    expect(res.statusCode).toBe(200);
  });
});
