import { describe, expect, it } from 'vitest';
import { verifySources } from './stage6-verification.js';

describe('stage 6: dual verification', () => {
  it.each(['SHADOW', 'PROVISIONAL', 'SPLIT'] as const)('%s becomes ACTIVE on a second, different source', (status) => {
    expect(verifySources({ status, sources: ['pulse'] }, 'provider')).toEqual({
      status: 'ACTIVE',
      sources: ['pulse', 'provider'],
      newSource: true,
      activated: true,
    });
  });

  it('does not verify on a repeat from the same source', () => {
    expect(verifySources({ status: 'SHADOW', sources: ['pulse'] }, 'pulse')).toEqual({
      status: 'SHADOW',
      sources: ['pulse'],
      newSource: false,
      activated: false,
    });
  });

  it('does not verify a record created just now from one source', () => {
    expect(verifySources({ status: 'SHADOW', sources: [] }, 'tefca')).toMatchObject({ status: 'SHADOW', sources: ['tefca'], activated: false });
  });

  it('leaves CONFLICT for review and ACTIVE as it is', () => {
    expect(verifySources({ status: 'CONFLICT', sources: ['pulse'] }, 'lake')).toMatchObject({ status: 'CONFLICT', activated: false });
    expect(verifySources({ status: 'ACTIVE', sources: ['pulse', 'lake'] }, 'cms')).toMatchObject({
      status: 'ACTIVE',
      sources: ['pulse', 'lake', 'cms'],
      activated: false,
    });
  });
});
