import { describe, expect, it } from 'vitest';
import { openSealed, sealSecret } from './key-sealing.js';

const SECRET = 'a-deployment-secret-of-at-least-32-characters';

describe('sealed private keys', () => {
  it('round-trip with the same secret and key id', () => {
    const sealed = sealSecret('{"d":"private"}', SECRET, 'sig_1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('private');
    expect(openSealed(sealed, SECRET, 'sig_1')).toBe('{"d":"private"}');
  });

  it('differ every time (fresh IV)', () => {
    expect(sealSecret('x', SECRET, 'k')).not.toBe(sealSecret('x', SECRET, 'k'));
  });

  it('do not open with another secret, another key id, or after tampering', () => {
    const sealed = sealSecret('{"d":"private"}', SECRET, 'sig_1');
    expect(openSealed(sealed, `${SECRET}!`, 'sig_1')).toBeNull();
    expect(openSealed(sealed, SECRET, 'sig_2')).toBeNull();
    const [v, iv, body, tag] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(openSealed([v, iv, flipped.toString('base64url'), tag].join('.'), SECRET, 'sig_1')).toBeNull();
    expect(openSealed('garbage', SECRET, 'sig_1')).toBeNull();
  });
});
