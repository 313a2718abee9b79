import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * A pipeline subgraph that misbehaves on demand, by the job id asked for: a domain error, an
 * internal error whose message and stack leak internals, or an HTTP 502 without a GraphQL body.
 */
function misbehavingPipeline(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const text = JSON.stringify(JSON.parse(body || '{}'));
      const json = (payload: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      if (text.includes('job_forbidden')) {
        json({ data: { syncJob: null }, errors: [{ message: 'The credential does not carry a scope this field requires.', path: ['syncJob'], extensions: { code: 'INSUFFICIENT_SCOPE', status: 403 } }] });
      } else if (text.includes('job_internal')) {
        json({
          data: { syncJob: null },
          errors: [{ message: 'connect ECONNREFUSED 10.0.0.5:5432 (pipeline_sync_jobs)', path: ['syncJob'], extensions: { code: 'INTERNAL', status: 500, stacktrace: ['Error: connect ECONNREFUSED', '    at PipelineStore.find (/srv/subgraphs/pipeline/src/entities/sync-jobs.ts:41:7)'] } }],
        });
      } else {
        res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway');
      }
    });
  });
}

type Errors = { message: string; path?: unknown; extensions?: Record<string, unknown> }[];

/** Nothing in an error may name a subgraph or show the federation's insides. */
function expectNoInternals(errors: Errors): void {
  const text = JSON.stringify(errors);
  for (const leak of [/serviceName/, /stacktrace/, /fetch failed/i, /subgraph/i, /\bpipeline\b/i, /\bpartner\b(?! )/, /ECONNREFUSED/, /10\.0\.0\.5/, /\.ts:\d+/]) {
    expect(text).not.toMatch(leak);
  }
}

/**
 * Issue point 11 (GraphQL part): errors exposed subgraph names (extensions.serviceName) and
 * internals ("Subgraph pipeline answered …", "fetch failed", stack traces). The gateway now masks
 * them and keeps the stable code. Also the sandbox counterpart of point 10: introspection stays
 * open to anonymous callers and validation errors keep their suggestions.
 */
describe('hardening 11: GraphQL errors never expose subgraph names or internals', () => {
  let t: TestSystem;
  let pipeline: Server;

  beforeAll(async () => {
    pipeline = misbehavingPipeline();
    await new Promise<void>((resolve) => pipeline.listen(0, '127.0.0.1', resolve));
    const dead = 'http://127.0.0.1:9/graphql';
    t = await bootSystem({
      SVC_ROLE: 'gateway',
      SVC_INTERNAL_SECRET: 'error-masking-test-shared-secret-0123456789',
      SVC_SUBGRAPH_PARTNER_URL: dead,
      SVC_SUBGRAPH_IDENTITY_URL: dead,
      SVC_SUBGRAPH_FHIR_URL: dead,
      SVC_SUBGRAPH_PIPELINE_URL: `http://127.0.0.1:${(pipeline.address() as AddressInfo).port}/graphql`,
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => pipeline?.close(resolve));
  });

  it('keeps a domain error\'s code and message, without the subgraph\'s name', async () => {
    const res = await t.graphql('{ syncJob(jobId: "job_forbidden") { jobId } }', {}, null);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ message: 'The credential does not carry a scope this field requires.', path: ['syncJob'], extensions: { code: 'INSUFFICIENT_SCOPE', status: 403 } });
    expectNoInternals(res.errors!);
  });

  it('masks an internal error\'s message and stack, keeping its code', async () => {
    const res = await t.graphql('{ syncJob(jobId: "job_internal") { jobId } }', {}, null);
    expect(res.errors![0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL' } });
    expectNoInternals(res.errors!);
  });

  it('masks "Subgraph pipeline answered HTTP 502" as an unavailable service, keeping UPSTREAM_UNAVAILABLE', async () => {
    const res = await t.graphql('{ syncJob(jobId: "job_502") { jobId } }', {}, null);
    expect(res.errors![0]!.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    expect(res.errors![0]!.message).toBe('A service this operation needs is unavailable; try again shortly.');
    expectNoInternals(res.errors!);
  });

  it('masks an unreachable subgraph ("fetch failed"), keeping a code', async () => {
    const res = await t.graphql('{ legalDocuments { id } }', {}, null);
    expect(res.errors!.length).toBeGreaterThan(0);
    for (const error of res.errors!) {
      expect(['UPSTREAM_UNAVAILABLE', 'INTERNAL_SERVER_ERROR']).toContain(error.extensions?.['code']);
      expect(['A service this operation needs is unavailable; try again shortly.', 'Internal server error']).toContain(error.message);
    }
    expectNoInternals(res.errors!);
  });

  it('in sandbox, keeps introspection open to anonymous callers and suggestions in validation errors', async () => {
    const introspection = await t.graphql<{ __schema: { types: { name: string }[] } }>('{ __schema { types { name } } }', {}, null);
    expect(introspection.status).toBe(200);
    expect(introspection.errors).toBeUndefined();
    expect(introspection.data!.__schema.types.some((type) => type.name === 'SyncJob')).toBe(true);
    const typo = await t.graphql('{ legalDocuments { titel } }', {}, null);
    expect(typo.status).toBe(400);
    expect(typo.errors![0]!.message).toBe('Cannot query field "titel" on type "LegalDocument". Did you mean "title"?');
  });
});
