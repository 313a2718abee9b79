import type { EntityManager } from '@mikro-orm/core';
import { BaaSignatureEntity, type BaaSignature } from './baa-signature.js';

/**
 * BAA signature queries. Append-only on purpose: there is a way to record a signature and ways to
 * read them, and nothing that changes or removes one.
 */
export const baaSignatures = {
  /** A partner's signatures, oldest first. */
  forPartner(em: EntityManager, partnerGpid: string): Promise<BaaSignature[]> {
    return em.find(BaaSignatureEntity, { partnerGpid }, { orderBy: { signedAt: 'asc', id: 'asc' } });
  },

  /** The partner's signature of one document version, if any. */
  find(em: EntityManager, partnerGpid: string, documentId: string): Promise<BaaSignature | null> {
    return em.findOne(BaaSignatureEntity, { partnerGpid, documentId });
  },

  /** Stage a new signature in the unit of work (a unique index refuses a second one of the same document). */
  record(em: EntityManager, signature: BaaSignature): BaaSignature {
    return em.create(BaaSignatureEntity, signature);
  },
};
