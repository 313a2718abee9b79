import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { OperationOutcomeError, validateResource } from '@medplum/core';
import type { Resource } from '@medplum/fhirtypes';
import { beforeAll, describe, expect, it } from 'vitest';
import { definitions } from './definitions.js';
import { EXTENSION_NOT_AN_OBJECT, NOT_AN_OBJECT, validateStructure } from './structure-validator.js';
import { seededRandom } from '@svc/platform';

/**
 * validateStructure must give what Medplum's validateResource gives, issue for issue and in the
 * same order, on valid and on broken resources: the official R4 examples as they are, and each
 * with seeded mutations at random places (a property removed, nulled, emptied, given the wrong
 * JSON type or a malformed primitive, an array where one value belongs and back, an unknown
 * property, a choice element renamed to another or to no type, a primitive extension).
 */
const dir = dirname(createRequire(import.meta.url).resolve('hl7.fhir.r4.examples/package.json'));
/** The example instances of the resource types (not the specification's own definitions, see test/fhir-hl7-examples.test.ts), small enough to validate often. */
const manifest = (JSON.parse(readFileSync(join(dir, 'ig-r4.json'), 'utf8')) as { manifest: { resource: { reference: { reference: string }; exampleBoolean?: boolean }[] } }).manifest.resource;
const files = manifest
  .filter((r) => r.exampleBoolean === undefined)
  .map((r) => `${r.reference.reference.replace('/', '-')}.json`)
  .filter((f) => statSync(join(dir, f)).size < 200_000);

type Outcome = { issues: unknown } | { thrown: string };

function outcomeOf(validate: () => unknown): Outcome {
  try {
    return { issues: validate() };
  } catch (err) {
    if (err instanceof OperationOutcomeError) return { issues: err.outcome.issue };
    return { thrown: String(err) };
  }
}

type Issue = { severity: string; details?: { text?: string }; expression?: string[] };
const hasError = (outcome: Outcome) => 'thrown' in outcome || (outcome.issues as Issue[]).some((issue) => issue.severity === 'error');
const isWrongKind = (issue: Issue) => [NOT_AN_OBJECT, EXTENSION_NOT_AN_OBJECT].some((text) => issue.details?.text?.startsWith(text));

/**
 * Asserts both validators agree on the resource; true when it has an error. They may differ only
 * on JSON of the wrong kind. Where an object belongs, Medplum accepts a number or a boolean, and
 * reads the characters of a string, or the items of an array, as unknown properties (after
 * "Expected array of values" or "Expected single value"); on a primitive's `_x` that is not an
 * object it throws a plain Error. Ours names such a value once and does not read inside it. There
 * ours must refuse the resource too, and its other issues must be Medplum's, in Medplum's order.
 */
function compare(resource: Resource): boolean {
  const medplum = outcomeOf(() => validateResource(structuredClone(resource)));
  const ours = outcomeOf(() => validateStructure(structuredClone(resource)));
  expect('thrown' in ours).toBe(false);
  const oursIssues = (ours as { issues: Issue[] }).issues;
  if ('thrown' in medplum) {
    expect(medplum.thrown).toMatch(/Primitive extension must be an object/);
    expect(oursIssues.some((issue) => issue.details?.text?.startsWith(EXTENSION_NOT_AN_OBJECT))).toBe(true);
    return true;
  }
  const medplumIssues = medplum.issues as Issue[];
  const wrongKindInput = oursIssues.some(isWrongKind) || medplumIssues.some((issue) => /^(Expected array of values|Expected single value|Invalid additional property "\d+")/.test(issue.details?.text ?? ''));
  if (!wrongKindInput) {
    expect(oursIssues).toEqual(medplumIssues);
    return hasError(medplum);
  }
  expect(hasError(ours)).toBe(true);
  const others = oursIssues.filter((issue) => !isWrongKind(issue));
  expect(others).toEqual(medplumIssues.filter((issue) => others.some((other) => isDeepStrictEqual(other, issue))));
  return true;
}

type Container = Record<string, unknown> | unknown[];

/** Every (container, key) of the JSON, the root's resourceType excepted. */
function sites(value: unknown, out: [Container, string | number][] = []): [Container, string | number][] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([value, i]);
      sites(item, out);
    });
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key !== 'resourceType') out.push([value as Record<string, unknown>, key]);
      sites(item, out);
    }
  }
  return out;
}

const MUTATIONS: ((container: Container, key: string | number, rand: () => number) => void)[] = [
  (c, k) => (Array.isArray(c) ? c.splice(k as number, 1) : delete c[k]),
  (c, k) => ((c as Record<string | number, unknown>)[k] = null),
  (c, k) => ((c as Record<string | number, unknown>)[k] = {}),
  (c, k) => ((c as Record<string | number, unknown>)[k] = []),
  (c, k) => ((c as Record<string | number, unknown>)[k] = '  '),
  (c, k) => ((c as Record<string | number, unknown>)[k] = 42.5),
  (c, k) => ((c as Record<string | number, unknown>)[k] = true),
  (c, k) => ((c as Record<string | number, unknown>)[k] = 'not a date: 2020-13-45'),
  (c, k) => {
    const v = (c as Record<string | number, unknown>)[k];
    (c as Record<string | number, unknown>)[k] = Array.isArray(v) ? v[0] : [v];
  },
  (c) => {
    if (!Array.isArray(c)) c['unknownElement'] = 'x';
  },
  (c, k, rand) => {
    if (Array.isArray(c) || typeof k !== 'string') return;
    const choice = /^([a-z]+)([A-Z][A-Za-z]*)$/.exec(k);
    if (!choice) return;
    const value = c[k];
    delete c[k];
    c[`${choice[1]}${['String', 'Quantity', 'Foo', 'DateTime', 'Boolean'][Math.floor(rand() * 5)]}`] = value;
  },
  (c, k, rand) => {
    if (Array.isArray(c) || typeof k !== 'string' || k.startsWith('_')) return;
    c[`_${k}`] = rand() < 0.5 ? { extension: [{ url: 'http://example.org/x', valueString: 'y' }] } : { id: 5 };
  },
];

describe('validateStructure against Medplum validateResource', () => {
  beforeAll(() => {
    definitions();
  });

  it(`gives the same issues for each of the ${files.length} HL7 R4 example instances`, () => {
    expect(files.length).toBeGreaterThan(700);
    for (const file of files) compare(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Resource);
  });

  it('gives the same issues for each example broken in four seeded ways', () => {
    const rand = seededRandom(20261127);
    let broken = 0;
    for (const file of files) {
      for (let n = 0; n < 4; n++) {
        const resource = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Resource;
        const all = sites(resource);
        if (all.length === 0) continue;
        const [container, key] = all[Math.floor(rand() * all.length)]!;
        MUTATIONS[Math.floor(rand() * MUTATIONS.length)]!(container, key, rand);
        if (compare(resource)) broken++;
      }
    }
    expect(broken).toBeGreaterThan(files.length * 2);
  });

  it('names a number, a boolean, a string or an array where an object belongs, and a primitive extension that is not an object, once each', () => {
    const issues = (resource: Record<string, unknown>) => {
      const outcome = outcomeOf(() => validateStructure(resource as unknown as Resource));
      return ('issues' in outcome ? (outcome.issues as Issue[]) : []).map((issue) => [issue.expression?.[0], issue.details?.text]);
    };
    const observation = { resourceType: 'Observation', status: 'final', code: 42, subject: true };
    // Medplum's validator accepts this one.
    expect(validateResource(observation as unknown as Resource)).toEqual([]);
    expect(issues(observation)).toEqual([
      ['Observation.code', `${NOT_AN_OBJECT}, but got number`],
      ['Observation.subject', `${NOT_AN_OBJECT}, but got boolean`],
    ]);
    expect(issues({ resourceType: 'Patient', name: [['Okafor']], managingOrganization: 'Organization/1' })).toEqual([
      ['Patient.name[0]', `${NOT_AN_OBJECT}, but got array`],
      ['Patient.managingOrganization', `${NOT_AN_OBJECT}, but got string`],
    ]);
    expect(issues({ resourceType: 'Patient', birthDate: '1984-03-02', _birthDate: 5, name: [{ given: ['A'], _given: ['x'] }] })).toEqual([
      ['Patient._birthDate', `${EXTENSION_NOT_AN_OBJECT} (or an array of objects and nulls)`],
      ['Patient.name[0]._given', `${EXTENSION_NOT_AN_OBJECT} (or an array of objects and nulls)`],
    ]);
  });

  it('gives the same issues for resources missing required elements, with unknown types and primitive extensions', () => {
    const cases: Record<string, unknown>[] = [
      { resourceType: 'Observation' },
      { resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueFoo: 1 },
      { resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueQuantity: { value: 1 }, valueString: 'a' },
      { resourceType: 'Observation', status: 'final', code: { text: 'x' }, _status: { extension: [{ url: 'http://example.org', valueCode: 'x' }] } },
      { resourceType: 'Patient', birthDate: '1970-02-30T00:00', _birthDate: { id: 'b' }, name: [{ given: ['A', null], _given: [null, { id: 'g' }] }] },
      { resourceType: 'Patient', name: [{ given: [null] }], contact: [{}], link: [{ other: { reference: 'Patient/x' } }] },
      { resourceType: 'Bundle', type: 'collection', entry: [{ resource: { resourceType: 'Patient', gender: 5 } }, { resource: { resourceType: 'Observation' } }] },
      { resourceType: 'Patient', contained: [{ resourceType: 'Organization', id: 'o' }], managingOrganization: { reference: '#o' } },
      { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, subject: { reference: 'Organization/o' } },
      { resourceType: 'Patient', extension: [{ url: 'http://example.org', valueQuantity: { value: 1 }, extension: [{ url: 'a' }] }] },
      // Each invariant the validator passes on its face, broken.
      { resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueString: 'v', dataAbsentReason: { text: 'unknown' } },
      { resourceType: 'Observation', status: 'final', code: { coding: [{ system: 's', code: 'c' }] }, valueString: 'v', component: [{ code: { coding: [{ system: 's', code: 'c' }] }, valueString: 'w' }] },
      { resourceType: 'Observation', status: 'final', code: { text: 'x' }, contained: [{ resourceType: 'Patient', id: 'p', meta: { versionId: '1', security: [{ code: 's' }] }, contained: [{ resourceType: 'Patient', id: 'q' }] }], subject: { reference: '#p' } },
    ];
    for (const resource of cases) compare(resource as unknown as Resource);
  });
});
