import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { signPrincipal, verifyPrincipal } from './internal-token.js';
import type { Principal } from './principal.js';

const SECRET = 'a-shared-secret-of-at-least-32-characters!';
const principal: Principal = { kind: 'partner', partnerGpid: 'CMS-12345678', tokenId: 'tok_1', scopes: ['cms.partner.read'] };

describe('the principal the gateway forwards to subgraphs', () => {
  it('round-trips', async () => {
    expect(await verifyPrincipal(await signPrincipal(principal, SECRET), SECRET)).toEqual(principal);
  });

  it('is refused when signed with another secret', async () => {
    const forged = await signPrincipal({ ...principal, scopes: ['*'] }, 'another-secret-of-at-least-32-characters');
    await expect(verifyPrincipal(forged, SECRET)).rejects.toThrow();
  });

  it('is refused when tampered with', async () => {
    const [h, , s] = (await signPrincipal(principal, SECRET)).split('.');
    const payload = Buffer.from(JSON.stringify({ knd: 'service', pgp: null, scp: ['*'], iss: 'svc-gateway', aud: 'svc-subgraph', exp: 9e9 })).toString('base64url');
    await expect(verifyPrincipal(`${h}.${payload}.${s}`, SECRET)).rejects.toThrow();
  });

  it('is refused once expired', async () => {
    const old = await new SignJWT({ knd: 'partner', pgp: 'CMS-1', scp: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('svc-gateway')
      .setAudience('svc-subgraph')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 540)
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifyPrincipal(old, SECRET)).rejects.toThrow(/exp/);
  });
});
