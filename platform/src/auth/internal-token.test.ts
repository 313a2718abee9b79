import { describe, expect, it, vi } from 'vitest';
import { SignJWT } from 'jose';
import { decodeJwt, SignJWT as Sign } from 'jose';
import { principalVerifier, SIGNED_PRINCIPAL_LIFETIME_SECONDS, signPrincipal, verifyPrincipal } from './internal-token.js';
import type { Principal } from './principal.js';
import { RevocationList } from './revocations.js';
import { MemoryEventBus } from '../events/memory-bus.js';
import { makeEvent } from '../events/envelope.js';

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

  it('lives briefly, never beyond its credential, and carries the credential expiry', async () => {
    const long = decodeJwt(await signPrincipal(principal, SECRET));
    expect(long.exp! - long.iat!).toBe(SIGNED_PRINCIPAL_LIFETIME_SECONDS);
    // Within the signature's lifetime (15 s), with room for a busy machine to sign and verify it.
    const expiring = { ...principal, credentialExpiresAt: Date.now() + 10_000 };
    const short = decodeJwt(await signPrincipal(expiring, SECRET));
    expect(short.exp).toBe(Math.floor(expiring.credentialExpiresAt / 1000));
    expect(await verifyPrincipal(await signPrincipal(expiring, SECRET), SECRET)).toEqual(expiring);
  });

  it('is refused once its credential has expired', async () => {
    const token = await new Sign({ knd: 'partner', pgp: 'CMS-1', scp: [], cxp: Date.now() - 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('svc-gateway')
      .setAudience('svc-subgraph')
      .setIssuedAt()
      .setExpirationTime('15s')
      .sign(new TextEncoder().encode(SECRET));
    await expect(verifyPrincipal(token, SECRET)).rejects.toThrow(/expired/);
  });

  it('is refused once its token, session or OAuth client is revoked on the bus', async () => {
    const bus = new MemoryEventBus();
    const revocations = new RevocationList().follow(bus);
    const viaClient: Principal = { kind: 'partner', partnerGpid: 'CMS-12345678', clientId: 'cli_1', scopes: [] };
    const signedToken = await signPrincipal(principal, SECRET);
    const signedClient = await signPrincipal(viaClient, SECRET);
    expect(await verifyPrincipal(signedToken, SECRET, revocations)).toEqual(principal);

    await bus.publish(makeEvent('partner.token.revoked', 'CMS-12345678', { token_id: 'tok_1' }));
    await expect(verifyPrincipal(signedToken, SECRET, revocations)).rejects.toThrow(/revoked/);
    expect(await verifyPrincipal(signedClient, SECRET, revocations)).toEqual(viaClient);
    await bus.publish(makeEvent('partner.token.revoked', 'CMS-12345678', { token_id: 'cli_1' }));
    await expect(verifyPrincipal(signedClient, SECRET, revocations)).rejects.toThrow(/revoked/);

    const session: Principal = { kind: 'portal', partnerGpid: 'CMS-12345678', tokenId: 'ses_1', scopes: [] };
    await bus.publish(makeEvent('partner.session.revoked', 'CMS-12345678', { session_id: 'ses_1' }));
    await expect(verifyPrincipal(await signPrincipal(session, SECRET), SECRET, revocations)).rejects.toThrow(/revoked/);
    revocations.close();
  });

  it('is verified once per token by a remembering verifier, which still checks revocation and expiry on every call', async () => {
    const bus = new MemoryEventBus();
    const revocations = new RevocationList().follow(bus);
    const verify = principalVerifier(SECRET, revocations);
    const signedToken = await signPrincipal(principal, SECRET);
    expect(await verify(signedToken)).toEqual(principal);
    const first = await verify(signedToken);
    expect(first).toEqual(principal);
    first.scopes = ['cms.admin'];
    expect(await verify(signedToken)).toEqual(principal);
    await expect(verify(`${signedToken.slice(0, -2)}xx`)).rejects.toThrow();
    await expect(verify(await signPrincipal(principal, 'another-secret-of-at-least-32-characters'))).rejects.toThrow();

    await bus.publish(makeEvent('partner.token.revoked', 'CMS-12345678', { token_id: 'tok_1' }));
    await expect(verify(signedToken)).rejects.toThrow(/revoked/);

    const expiring: Principal = { kind: 'partner', partnerGpid: 'CMS-12345678', tokenId: 'tok_2', scopes: [], credentialExpiresAt: Date.now() + 10_000 };
    const signedExpiring = await signPrincipal(expiring, SECRET);
    expect(await verify(signedExpiring)).toEqual(expiring);
    // Past the credential's expiry by the clock, not by waiting a wall-clock time for it.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(expiring.credentialExpiresAt! + 1000);
      await expect(verify(signedExpiring)).rejects.toThrow(/expired|exp/);
    } finally {
      vi.useRealTimers();
    }
    revocations.close();
  });
});

