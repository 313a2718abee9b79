/**
 * The FHIR ingest client, run as a child process of bench/fhir.ts so that building and sending
 * bundles never shares the server's event loop. It receives one ingest job at a time over IPC:
 * `bundles` transaction Bundles of about `bundleSize` resources each (Patients, their Encounters
 * and Observations, linked by `urn:uuid:` references), posted by `clients` concurrent clients to
 * `POST /fhir/R4` with `Prefer: return=minimal`. It answers with the elapsed time, the number of
 * resources stored, and what the search measurements need (patient ids, names, birth dates).
 */
import { randomUUID } from 'node:crypto';
import { seededRandom } from '@svc/platform';

export interface IngestSpec {
  baseUrl: string;
  token: string;
  bundles: number;
  bundleSize: number;
  clients: number;
  /** Seeds the generator, so each job produces different data. */
  seed: number;
  /** Sent as X-Svc-Source (a partner's documented write path: its Patients get their GPID link). */
  source?: string;
}

export interface IngestedPatient {
  id: string;
  family: string;
  birthDate: string;
}

export interface IngestRun {
  resources: number;
  seconds: number;
  /** Per-bundle latency, milliseconds. */
  latencies: number[];
  failures: number;
  firstFailure?: string;
  patients: IngestedPatient[];
  /** A sample of stored Observation ids (at most 2000). */
  observations: string[];
  /** When the last Bundle's answer came (epoch ms): its write had committed. */
  lastWriteAt: number;
}

export type ToIngest = { kind: 'run'; id: number; spec: IngestSpec } | { kind: 'exit' };
export type FromIngest = { kind: 'done'; id: number; run: IngestRun } | { kind: 'failed'; id: number; message: string };

/** Observations per patient come from these LOINC codes (vital signs and common labs). */
export const LOINC = [
  ['8867-4', 'Heart rate', '/min'],
  ['8310-5', 'Body temperature', 'Cel'],
  ['29463-7', 'Body weight', 'kg'],
  ['8302-2', 'Body height', 'cm'],
  ['8480-6', 'Systolic blood pressure', 'mm[Hg]'],
  ['8462-4', 'Diastolic blood pressure', 'mm[Hg]'],
  ['2339-0', 'Glucose', 'mg/dL'],
  ['2093-3', 'Cholesterol', 'mg/dL'],
  ['718-7', 'Hemoglobin', 'g/dL'],
  ['59408-5', 'Oxygen saturation', '%'],
] as const;

export const FAMILIES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas',
  'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King',
  'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts', 'Müller', 'Schmidt',
  'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Dubois', 'Moreau', 'Laurent', 'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi',
];
const GIVEN = ['James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'Anna', 'Lukas', 'Sofia', 'Noah', 'Emma', 'Liam', 'Olivia', 'Mateo', 'Léa', 'Jonas'];

/** Observations and Encounters per patient; a "family" of 1 + ENCOUNTERS + OBSERVATIONS resources. */
const ENCOUNTERS = 2;
const OBSERVATIONS = 12;
export const FAMILY_SIZE = 1 + ENCOUNTERS + OBSERVATIONS;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

interface Built {
  bundle: Record<string, unknown>;
  patients: { fullUrl: string; family: string; birthDate: string }[];
  resources: number;
}

function buildBundle(rand: () => number, size: number): Built {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const entry: Record<string, unknown>[] = [];
  const patients: Built['patients'] = [];
  const families = Math.max(1, Math.round(size / FAMILY_SIZE));
  for (let f = 0; f < families; f++) {
    const patientUrl = `urn:uuid:${randomUUID()}`;
    const family = pick(FAMILIES);
    const birthDate = `${1930 + Math.floor(rand() * 85)}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}`;
    patients.push({ fullUrl: patientUrl, family, birthDate });
    entry.push({
      fullUrl: patientUrl,
      request: { method: 'POST', url: 'Patient' },
      resource: {
        resourceType: 'Patient',
        identifier: [{ system: 'urn:oid:2.16.840.1.113883.4.1', value: String(100000000 + Math.floor(rand() * 899999999)) }],
        active: true,
        name: [{ use: 'official', family, given: [pick(GIVEN), pick(GIVEN)] }],
        telecom: [{ system: 'phone', value: `+1-555-${pad(Math.floor(rand() * 10000), 4)}`, use: 'home' }],
        gender: rand() < 0.5 ? 'female' : 'male',
        birthDate,
        address: [{ line: [`${1 + Math.floor(rand() * 999)} Main Street`], city: pick(['Springfield', 'Riverside', 'Fairview', 'Bern', 'Lyon']), postalCode: pad(Math.floor(rand() * 100000), 5), country: 'US' }],
      },
    });
    const encounterUrls: string[] = [];
    for (let e = 0; e < ENCOUNTERS; e++) {
      const url = `urn:uuid:${randomUUID()}`;
      encounterUrls.push(url);
      const day = `20${pad(15 + Math.floor(rand() * 10))}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}`;
      entry.push({
        fullUrl: url,
        request: { method: 'POST', url: 'Encounter' },
        resource: {
          resourceType: 'Encounter',
          status: 'finished',
          class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB', display: 'ambulatory' },
          type: [{ coding: [{ system: 'http://snomed.info/sct', code: '185349003', display: 'Encounter for check up' }] }],
          subject: { reference: patientUrl },
          period: { start: `${day}T09:00:00Z`, end: `${day}T09:30:00Z` },
        },
      });
    }
    for (let o = 0; o < OBSERVATIONS; o++) {
      const [code, display, unit] = pick(LOINC);
      const encounter = encounterUrls[o % ENCOUNTERS]!;
      const when = `20${pad(15 + Math.floor(rand() * 10))}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}T${pad(Math.floor(rand() * 24))}:${pad(Math.floor(rand() * 60))}:00Z`;
      entry.push({
        fullUrl: `urn:uuid:${randomUUID()}`,
        request: { method: 'POST', url: 'Observation' },
        resource: {
          resourceType: 'Observation',
          status: 'final',
          category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs' }] }],
          code: { coding: [{ system: 'http://loinc.org', code, display }], text: display },
          subject: { reference: patientUrl },
          encounter: { reference: encounter },
          effectiveDateTime: when,
          valueQuantity: { value: Math.round(rand() * 2000) / 10, unit, system: 'http://unitsofmeasure.org', code: unit },
        },
      });
    }
  }
  return { bundle: { resourceType: 'Bundle', type: 'transaction', entry }, patients, resources: entry.length };
}

/** fetch, with the underlying cause in the message when the connection fails. */
/**
 * POST, retried as told when the server sheds load (503 with Retry-After, at most 10 times): on a
 * busy shared machine the event-loop delay can pass the shedding threshold, and a client retries.
 */
async function post(url: string, init: RequestInit): Promise<Response> {
  try {
    let res = await fetch(url, init);
    for (let attempt = 1; res.status === 503 && res.headers.has('retry-after') && attempt <= 10; attempt++) {
      await res.text();
      await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(5, Number(res.headers.get('retry-after')) || 1)));
      res = await fetch(url, init);
    }
    return res;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`POST ${url}: ${err instanceof Error ? err.message : String(err)}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`);
  }
}

export { post as postRetryingShed };

async function ingest(spec: IngestSpec): Promise<IngestRun> {
  const target = new URL(spec.baseUrl);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to load a non-loopback target: ${target.host}`);
  const rand = seededRandom(spec.seed);
  // Bodies are built before the clock starts: the measurement is the server's, not the generator's.
  const built = Array.from({ length: spec.bundles }, () => buildBundle(rand, spec.bundleSize));
  const bodies = built.map((b) => JSON.stringify(b.bundle));
  const run: IngestRun = { resources: 0, seconds: 0, latencies: [], failures: 0, patients: [], observations: [], lastWriteAt: 0 };
  let next = 0;
  const client = async () => {
    for (let i = next++; i < built.length; i = next++) {
      const sent = performance.now();
      const res = await post(`${spec.baseUrl}/fhir/R4`, {
        method: 'POST',
        headers: { authorization: `Bearer ${spec.token}`, 'content-type': 'application/fhir+json', prefer: 'return=minimal', ...(spec.source ? { 'x-svc-source': spec.source } : {}) },
        body: bodies[i]!,
      });
      const text = await res.text();
      run.latencies.push(performance.now() - sent);
      run.lastWriteAt = Math.max(run.lastWriteAt, Date.now());
      if (res.status !== 200) {
        run.failures++;
        run.firstFailure ??= `${res.status} ${text.slice(0, 300)}`;
        continue;
      }
      const answer = JSON.parse(text) as { entry: { response: { location?: string } }[] };
      const entries = (built[i]!.bundle['entry'] as { fullUrl: string; resource: { resourceType: string } }[]);
      run.resources += answer.entry.length;
      const idOf = new Map<string, string>();
      answer.entry.forEach((e, k) => {
        const id = e.response.location?.split('/')[1];
        if (!id) return;
        idOf.set(entries[k]!.fullUrl, id);
        if (entries[k]!.resource.resourceType === 'Observation' && run.observations.length < 2000 && rand() < 0.1) run.observations.push(id);
      });
      for (const p of built[i]!.patients) {
        const id = idOf.get(p.fullUrl);
        if (id) run.patients.push({ id, family: p.family, birthDate: p.birthDate });
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: spec.clients }, client));
  run.seconds = (performance.now() - started) / 1000;
  return run;
}

const send = (message: FromIngest) => process.send?.(message);

process.on('message', (message: ToIngest) => {
  if (message.kind === 'exit') {
    process.disconnect?.();
    return;
  }
  ingest(message.spec).then(
    (run) => send({ kind: 'done', id: message.id, run }),
    (err: unknown) => send({ kind: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) }),
  );
});
