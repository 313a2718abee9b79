import { describe, expect, it } from 'vitest';
import { AuditChainVerifier, canonicalJson, GENESIS_HASH, sealAuditEntry, type AuditEntry } from './audit-chain.js';

function chain(n: number): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (let i = 0; i < n; i++) {
    out.push(sealAuditEntry(out.at(-1) ?? null, { eventId: `evt_${i}`, type: 'identity.merged.v1', occurredAt: `2026-06-12T12:00:0${i}.000Z`, payload: canonicalJson({ n: i, b: [1, { z: 1, a: 2 }] }) }));
  }
  return out;
}

function verify(entries: AuditEntry[]) {
  const v = new AuditChainVerifier();
  for (const e of entries) if (!v.push(e)) break;
  return v.result();
}

describe('audit chain', () => {
  it('writes canonical JSON whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { y: 1, x: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"x":2,"y":1}]},"b":1}');
  });

  it('links every entry to the previous hash and verifies a sound chain', () => {
    const entries = chain(4);
    expect(entries[0]!.prevHash).toBe(GENESIS_HASH);
    expect(entries[2]!.prevHash).toBe(entries[1]!.hash);
    expect(verify(entries)).toEqual({ valid: true, checked: 4, headSeq: 4, headHash: entries[3]!.hash, firstInvalidSeq: null, problem: null });
    expect(verify([])).toMatchObject({ valid: true, checked: 0, headSeq: null });
  });

  it('detects an altered, removed or reordered entry', () => {
    const altered = chain(3);
    altered[1] = { ...altered[1]!, payload: altered[1]!.payload.replace('"n":1', '"n":9') };
    expect(verify(altered)).toMatchObject({ valid: false, firstInvalidSeq: 2, checked: 1, problem: expect.stringContaining('altered') });

    const removed = chain(3);
    removed.splice(1, 1);
    expect(verify(removed)).toMatchObject({ valid: false, firstInvalidSeq: 3, problem: expect.stringContaining('missing') });

    // Rehashing the altered entry alone is not enough: the next one no longer links to it.
    const rehashed = chain(3);
    const forged = sealAuditEntry({ seq: 1, hash: rehashed[0]!.hash }, { ...rehashed[1]!, payload: '{"n":9}' });
    rehashed[1] = forged;
    expect(verify(rehashed)).toMatchObject({ valid: false, firstInvalidSeq: 3, problem: expect.stringContaining('link') });
  });
});
