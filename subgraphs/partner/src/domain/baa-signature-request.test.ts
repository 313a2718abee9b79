import { describe, expect, it } from 'vitest';
import { validateBaaSignatureRequest } from './baa-signature-request.js';

describe('validateBaaSignatureRequest', () => {
  const signer = { signer_name: ' Dana  Whitfield ', signer_title: 'CIO', signer_email: 'Dana@Example.org' };

  it('defaults to the BAA in force and normalizes the signer', () => {
    expect(validateBaaSignatureRequest({ ...signer, client_ip: '2001:db8::1' })).toEqual({
      ok: true,
      value: { document_id: 'cms_hipaa_baa_v2026_03', signer_name: 'Dana Whitfield', signer_title: 'CIO', signer_email: 'dana@example.org', client_ip: '2001:db8::1' },
    });
    expect(validateBaaSignatureRequest({ ...signer, document_id: 'cms_hipaa_baa_v2026_03.txt' }).ok).toBe(true);
  });

  it('refuses other documents, missing signers and bad addresses field by field', () => {
    const result = validateBaaSignatureRequest({ document_id: 'cms_mnda_v2026_03', signer_email: 'x', client_ip: 'localhost' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.field)).toEqual(['document_id', 'signer_name', 'signer_title', 'signer_email', 'client_ip']);
    const unknown = validateBaaSignatureRequest({ ...signer, document_id: 'cms_hipaa_baa_v2025_01' });
    expect(unknown.ok).toBe(false);
  });
});
