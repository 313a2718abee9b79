import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import { makeEvent } from '@svc/platform';
import { bootSystem, type TestSystem } from './support/system.js';
import { freshStorage, TEST_REDIS_URL } from './support/databases.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventsOf, eventually, openIdentityDb } from './support/identity.js';
import { PATIENCE_MS } from './support/patience.js';

interface SqliteDatabase {
  pragma(source: string): unknown;
  prepare(sql: string): { run(...params: unknown[]): unknown };
  exec(sql: string): unknown;
  close(): unknown;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteDatabase;

const GPID_SYSTEM = 'urn:svc:gpid';
const REQUESTED = 'fhir.internal.patient_identity_requested';
const LINKED = 'identity.internal.fhir_patient_linked';
const CONSUMER = 'identity-fhir-link';

type Person = { given: string; family: string; birthDate: string; email?: string };
const patient = (p: Person) => ({
  resourceType: 'Patient',
  name: [{ use: 'official', family: p.family, given: [p.given] }],
  gender: 'female',
  birthDate: p.birthDate,
  ...(p.email ? { telecom: [{ system: 'email', value: p.email }] } : {}),
});
const gpidOf = (p: { identifier?: { system?: string; value?: string }[] }) => p.identifier?.find((i) => i.system === GPID_SYSTEM)?.value;

/**
 * The identity subgraph links the Patients of a read of the stream in batches (one transaction per
 * batch): the GPIDs, events and review items are those of resolving the Patients one at a time, a
 * redelivered batch changes nothing, and a malformed request does not hold up the others.
 */
describe('identity link of FHIR Patients in batches', async () => {
  const storage = await freshStorage();
  const env = { SVC_BOOTSTRAP_TOKEN: 'link-batches-operator-0123456789abcdef', SVC_RATE_LIMITS: 'off' };
  let t: TestSystem;
  let alphaGpid: string;
  let alpha: string;

  beforeAll(async () => {
    t = await bootSystem(env, { storage });
    alphaGpid = await registerPartner(t, 'Alpha Clinic');
    alpha = await apiToken(t, alphaGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
  });
  afterAll(async () => {
    await t?.close();
    await storage.dispose();
  });

  const linked = (id: string) =>
    eventually(async () => {
      const gpid = gpidOf((await fhir(t, alpha, 'GET', `/Patient/${id}`)).json());
      expect(gpid).toMatch(/^SVC-[0-9A-F]{8}$/);
      return gpid!;
    });
  async function bundle(people: Person[]): Promise<string[]> {
    const entry = people.map((p) => ({ request: { method: 'POST', url: 'Patient' }, resource: patient(p) }));
    const res = await fhir(t, alpha, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry }, { 'x-svc-source': 'provider' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().entry.map((e: { response: { location: string } }) => e.response.location.split('/')[1]);
  }
  /** The identity.match events of these GPIDs, oldest first, as (match type, status, subject named). */
  async function matchEvents(gpids: readonly string[]) {
    const events = (await eventsOf(t, ['identity.match'], 100)).reverse().filter((e) => gpids.includes(String(e.data['gpid'])));
    return events.map((e) => ({ gpid: String(e.data['gpid']), matchType: e.data['match_type'], status: e.data['identity_status'], subject: e.data['subject_gpid'] === null ? null : gpids.indexOf(String(e.data['subject_gpid'])) }));
  }
  async function openReviewItems(): Promise<number> {
    const db = await openIdentityDb(t);
    try {
      return Number((await db.all("select count(*) as n from identity_review_items where status = 'OPEN'"))[0]!['n']);
    } finally {
      await db.close();
    }
  }

  /**
   * Two sets of people built alike: a person, another, the first again, the second with the day
   * and month of birth swapped and another email (a near duplicate), a third with no email.
   */
  const cohort = (families: [string, string, string], givens: [string, string, string], tag: string): Person[] => [
    { given: givens[0], family: families[0], birthDate: '1971-03-09', email: `${tag}.one@example.org` },
    { given: givens[1], family: families[1], birthDate: '1988-04-11', email: `${tag}.two@example.org` },
    { given: givens[0], family: families[0], birthDate: '1971-03-09', email: `${tag}.one@example.org` },
    { given: givens[1], family: families[1], birthDate: '1988-11-04', email: `${tag}.other@example.org` },
    { given: givens[2], family: families[2], birthDate: '1990-07-23' },
  ];

  it('gives the Patients of one Bundle the GPIDs, events and review items that resolving them one at a time gives', async () => {
    const reviewBefore = await openReviewItems();
    // In one Bundle: one commit, one read of the stream, one batch.
    const inBundle = await bundle(cohort(['Aasheim', 'Kveldsvik', 'Ulvestad'], ['Maren', 'Tobias', 'Signe'], 'bundle'));
    const bundleGpids: string[] = [];
    for (const id of inBundle) bundleGpids.push(await linked(id));
    const reviewAfterBundle = await openReviewItems();
    // One at a time: each Patient its own request, linked before the next is written.
    const single: string[] = [];
    const singleGpids: string[] = [];
    for (const person of cohort(['Brekkestad', 'Fjellheim', 'Vatnedal'], ['Hedda', 'Sindre', 'Ylva'], 'single')) {
      const created = await fhir(t, alpha, 'POST', '/Patient', patient(person), { 'x-svc-source': 'provider' });
      expect(created.statusCode).toBe(201);
      single.push(created.json().id);
      singleGpids.push(await linked(created.json().id));
    }
    const shape = (gpids: string[]) => gpids.map((g) => gpids.indexOf(g));
    // The same person twice: one GPID, in the Bundle as one at a time; no false merge.
    expect(shape(bundleGpids)).toEqual([0, 1, 0, expect.any(Number), 4]);
    expect(bundleGpids[0]).not.toBe(bundleGpids[1]);
    expect(shape(bundleGpids)).toEqual(shape(singleGpids));
    // The same decisions, statuses and subjects, in the same order; the same review items.
    const distinct = (gpids: string[]) => [...new Set(gpids)];
    await eventually(async () => {
      const batched = await matchEvents(distinct(bundleGpids));
      const oneByOne = await matchEvents(distinct(singleGpids));
      expect(batched).toHaveLength(5);
      expect(batched.map(({ gpid: _g, ...rest }) => rest)).toEqual(oneByOne.map(({ gpid: _g, ...rest }) => rest));
    });
    expect(reviewAfterBundle - reviewBefore).toBe((await openReviewItems()) - reviewAfterBundle);
  });

  it('links the other Patients of a batch that holds malformed requests', async () => {
    // Requests the FHIR subgraph would not write (no resource id, no demographics, an unknown
    // source, demographics the registry refuses), committed right before a Bundle: one read.
    const malformed = [
      { resource_type: 'Patient', version_id: '1', source: 'provider', demographics: { name: { given: 'No', family: 'Id' }, dob: '1970-01-01' } },
      { resource_type: 'Patient', resource_id: 'pat-without-demographics', version_id: '1', source: 'provider' },
      { resource_type: 'Patient', resource_id: 'pat-unknown-source', version_id: '1', source: 'nowhere', demographics: { name: { given: 'Un', family: 'Known' }, dob: '1970-01-01' } },
      { resource_type: 'Patient', resource_id: 'pat-refused', version_id: '1', source: 'provider', demographics: { name: null, dob: null, email: 'not an email' } },
    ].map((data) => makeEvent(REQUESTED, alphaGpid, { event: REQUESTED, partner_gpid: alphaGpid, ...data }));
    await insertFhirOutbox(malformed);
    const ids = await bundle([
      { given: 'Ragnhild', family: 'Sørbøe', birthDate: '1966-02-02', email: 'ragnhild@example.no' },
      { given: 'Eilif', family: 'Tverrå', birthDate: '1959-09-19' },
    ]);
    const [a, b] = [await linked(ids[0]!), await linked(ids[1]!)];
    expect(a).not.toBe(b);
  });

  it('changes nothing when the stream hands every request to the consumer again (at-least-once delivery)', async () => {
    const db = await openIdentityDb(t);
    const count = async (sql: string) => Number((await db.all(sql))[0]!['n']);
    const counts = async () => ({
      linked: await count(`select count(*) as n from identity_outbox where type = '${LINKED}'`),
      history: await count('select count(*) as n from identity_match_history'),
      confirmations: await count('select sum(confirmations) as n from identity_sources'),
      review: await count('select count(*) as n from identity_review_items'),
    });
    const before = await counts();
    await db.close();
    expect(before.linked).toBeGreaterThanOrEqual(12);
    // A crash before the acknowledgement: the consumer's position goes back to the start of the stream.
    await t.close();
    await rewindConsumer();
    t = await bootSystem(env, { storage });
    alpha = await apiToken(t, alphaGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
    // A new Patient comes after every redelivered request: once it is linked, they were all handled.
    const [id] = await bundle([{ given: 'Oddveig', family: 'Rustad', birthDate: '1981-05-05', email: 'oddveig@example.no' }]);
    await linked(id!);
    const again = await openIdentityDb(t);
    try {
      const after = {
        linked: Number((await again.all(`select count(*) as n from identity_outbox where type = '${LINKED}'`))[0]!['n']),
        history: Number((await again.all('select count(*) as n from identity_match_history'))[0]!['n']),
        confirmations: Number((await again.all('select sum(confirmations) as n from identity_sources'))[0]!['n']),
        review: Number((await again.all('select count(*) as n from identity_review_items'))[0]!['n']),
      };
      expect(after).toEqual({ linked: before.linked + 1, history: before.history + 1, confirmations: before.confirmations + 1, review: before.review });
    } finally {
      await again.close();
    }
  });

  /** Commits events to the FHIR subgraph's outbox, as a producer of these requests would. */
  async function insertFhirOutbox(events: ReturnType<typeof makeEvent>[]): Promise<void> {
    if (t.config.databaseUrl) {
      const client = new pg.Client({ connectionString: t.config.databaseUrl });
      await client.connect();
      try {
        await client.query('begin');
        for (const e of events) await client.query('insert into fhir_outbox (id, type, partner_gpid, occurred_at, data, published_at) values ($1, $2, $3, $4, $5, null)', [e.id, e.type, e.partner_gpid, new Date(e.occurred_at), JSON.stringify(e.data)]);
        await client.query('commit');
      } finally {
        await client.end();
      }
      return;
    }
    const db = new Database(join(t.config.dataDir, 'fhir.sqlite'));
    db.pragma(`busy_timeout = ${PATIENCE_MS}`);
    try {
      const insert = db.prepare('insert into fhir_outbox (id, type, partner_gpid, occurred_at, data, published_at) values (?, ?, ?, ?, ?, null)');
      db.exec('begin');
      for (const e of events) insert.run(e.id, e.type, e.partner_gpid, new Date(e.occurred_at).getTime(), JSON.stringify(e.data));
      db.exec('commit');
    } finally {
      db.close();
    }
  }

  /** Puts the identity link consumer back at the start of the stream (system stopped). */
  async function rewindConsumer(): Promise<void> {
    const prefix = storage.env['SVC_REDIS_PREFIX'];
    if (prefix) {
      const redis = new Redis(TEST_REDIS_URL);
      try {
        await redis.call('XGROUP', 'SETID', `${prefix}:events:stream`, CONSUMER, '0');
      } finally {
        redis.disconnect();
      }
      return;
    }
    const db = new Database(join(storage.env['SVC_DATA_DIR']!, 'identity.sqlite'));
    try {
      db.prepare('delete from identity_stream_positions where consumer = ?').run(CONSUMER);
    } finally {
      db.close();
    }
  }
});
