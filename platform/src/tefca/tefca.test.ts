import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { readPurposeOfUse, TEFCA_PURPOSE_CODES } from './purpose-of-use.js';
import { parseTefcaPeers, readTefcaSettings } from './settings.js';
import { tefcaEventType } from './exchange.js';
import { readTefcaPatient } from './patient.js';
import { EVENT_TYPES } from '../events/event-types.js';

describe('TEFCA purpose of use', () => {
  it('accepts every exchange purpose code, treatment in both spellings and the sub-codes', () => {
    for (const code of ['T-TREAT', 'T-TRTMNT', 'T-PYMNT', 'T-HCO', 'T-HCO-CC', 'T-PH', 'T-IAS', 'T-GOVDTRM', 'T-GOVDTRM-DISABILITY']) expect(readPurposeOfUse(code)).toBe(code);
    expect(TEFCA_PURPOSE_CODES.every((c) => c.startsWith('T-'))).toBe(true);
  });

  it('refuses a missing, unknown or differently spelled purpose, naming the field', () => {
    for (const bad of [undefined, null, '', 't-treat', 'TREAT', 'T-MARKETING', 42]) {
      const err = (() => {
        try {
          readPurposeOfUse(bad);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('VALIDATION_ERROR');
      expect((err as DomainError).fieldErrors[0]?.field).toBe('purpose_of_use');
    }
  });
});

describe('TEFCA peers (SVC_TEFCA_PEERS)', () => {
  it('reads the network endpoint seed and reports each bad entry by index and field', () => {
    const problems: string[] = [];
    const peers = parseTefcaPeers(
      JSON.stringify([
        { home_community_id: 'urn:oid:1.2.3', name: 'B', base_url: 'https://b.example/', token: 't' },
        { home_community_id: 'urn:oid:1.2.3', base_url: 'https://dup.example' },
        { home_community_id: 'not-an-oid', base_url: 'https://c.example' },
        { home_community_id: 'urn:oid:1.2.4', base_url: 'ftp://c.example' },
        { home_community_id: 'urn:oid:2.999.1', base_url: 'https://self.example' },
        { home_community_id: 'urn:oid:1.2.5', base_url: 'https://d.example', capabilities: ['xds'] },
      ]),
      'urn:oid:2.999.1',
      problems,
    );
    expect(peers).toEqual([{ homeCommunityId: 'urn:oid:1.2.3', name: 'B', baseUrl: 'https://b.example', capabilities: ['xcpd', 'xca'], token: 't' }]);
    expect(problems).toEqual([
      'SVC_TEFCA_PEERS[1].home_community_id urn:oid:1.2.3 is listed twice',
      'SVC_TEFCA_PEERS[2].home_community_id must be an urn:oid: URN',
      'SVC_TEFCA_PEERS[3].base_url must be an absolute http(s) URL',
      'SVC_TEFCA_PEERS[4].home_community_id is our own home community id',
      'SVC_TEFCA_PEERS[5].capabilities must be a list of xcpd, xca',
    ]);
    expect(parseTefcaPeers('{', 'urn:oid:2.999.1', (problems.length = 0, problems))).toEqual([]);
    expect(problems).toEqual(['SVC_TEFCA_PEERS must be a JSON array of peer communities']);
  });
});

describe('TEFCA exchange events', () => {
  it('names only event types of the catalog, all emitted', () => {
    const names = new Set<string>();
    for (const kind of ['xcpd', 'xca.query', 'xca.retrieve'] as const)
      for (const direction of ['inbound', 'outbound'] as const) for (const outcome of ['success', 'partial', 'failure'] as const) names.add(tefcaEventType(kind, direction, outcome));
    const catalog = new Map(EVENT_TYPES.map((t) => [t.type, t.status]));
    for (const name of [...names, 'tefca.exchange.refused']) expect(catalog.get(name)).toBe('emitted');
  });
});

describe('TEFCA patient demographics', () => {
  it('needs a name and a well-formed date, and names the wire fields', () => {
    expect(readTefcaPatient({ given: 'Ada', family: 'Lovelace', birthDate: '1985-12-10' })).toMatchObject({ given: ['Ada'], family: 'Lovelace', birthDate: '1985-12-10' });
    try {
      readTefcaPatient({ birthDate: '10/12/1985', gender: 'x' });
      expect.unreachable();
    } catch (e) {
      expect((e as DomainError).fieldErrors.map((f) => f.field)).toEqual(['patient.birth_date', 'patient.gender', 'patient.family']);
    }
  });
});

describe('the built-in sandbox peer (TefcaSettings.sandboxPeer)', () => {
  const read = (env: Record<string, string>, environment: 'sandbox' | 'production') =>
    readTefcaSettings((n) => env[n], (_n, fallback) => fallback, () => false, [], environment);
  const peer = JSON.stringify([{ home_community_id: 'urn:oid:1.2.3', base_url: 'https://b.example' }]);

  it('serves a sandbox that names no peers, and only such a sandbox', () => {
    expect(read({}, 'sandbox').sandboxPeer).toBe(true);
    expect(read({ SVC_TEFCA_PEERS: peer }, 'sandbox').sandboxPeer).toBe(false);
    expect(read({ SVC_TEFCA_PEERS: '[]' }, 'sandbox').sandboxPeer).toBe(true);
  });

  it('is never part of a production deployment', () => {
    expect(read({}, 'production').sandboxPeer).toBe(false);
    expect(read({ SVC_TEFCA_PEERS: '[]' }, 'production').sandboxPeer).toBe(false);
  });
});
