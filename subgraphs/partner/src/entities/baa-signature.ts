import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/**
 * An e-signature of a Business Associate Agreement: who signed which exact text (its SHA-256),
 * when, from where and with which credential. Immutable: the repository offers no update or delete.
 */
export interface BaaSignature {
  /** sig_… */
  id: string;
  partnerGpid: string;
  /** Legal catalog id of the signed document (`cms_hipaa_baa_v2026_03`). */
  documentId: string;
  documentVersion: string;
  /** Lower-case hex SHA-256 of the exact text signed. */
  documentSha256: string;
  signerName: string;
  signerTitle: string;
  /** Canonical (lower-case) address. */
  signerEmail: string;
  /** The signer's network address as the edge saw it; null when it was not passed on. */
  clientIp: string | null;
  /** Kind of the credential that signed (partner token or portal session). */
  principalKind: string;
  /** The token, OAuth client or session behind the signature. */
  credentialId: string | null;
  signedAt: Date;
}

export const BaaSignatureEntity = new EntitySchema<BaaSignature>({
  name: 'BaaSignature',
  tableName: 'partner_baa_signatures',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    documentId: { type: 'string' },
    documentVersion: { type: 'string' },
    documentSha256: { type: 'string' },
    signerName: { type: 'string' },
    signerTitle: { type: 'string' },
    signerEmail: { type: 'string' },
    clientIp: { type: 'string', nullable: true },
    principalKind: { type: 'string' },
    credentialId: { type: 'string', nullable: true },
    signedAt: { type: DateTimeType },
  },
});
