import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { DomainError, makeEvent, newId, recordEvent } from '@svc/platform';
import { baaSignatures } from '../entities/baa-signatures.js';
import type { BaaSignature } from '../entities/baa-signature.js';
import { certificationRecords } from '../entities/certification-records.js';
import { partners } from '../entities/partners.js';
import { validateBaaSignatureRequest } from './baa-signature-request.js';
import { loadLegalDocument } from './legal-documents.js';
import { unwrapValidation } from './validation-result.js';

/** Who signs: the partner and the credential the request was made with. */
export interface BaaSigner {
  partnerGpid: string;
  principalKind: string;
  credentialId: string | null;
}

function alreadySigned(existing: BaaSignature): DomainError {
  return new DomainError('CONFLICT', `${existing.documentId} was already signed on ${existing.signedAt.toISOString()}; a signature cannot be changed or repeated.`, {
    details: { signature_id: existing.id, document_id: existing.documentId },
  });
}

/**
 * E-sign the BAA in force for a partner. Records who signed (name, title, e-mail, credential),
 * when, from which address, and the SHA-256 of the exact text signed; records the certification
 * evidence for `baa_signed`; emits `partner.baa.signed`. A signature is immutable: signing the same
 * document again is a `CONFLICT`.
 * @throws DomainError `VALIDATION_ERROR`, `NOT_FOUND` (partner), `CONFLICT` (already signed).
 */
export async function signBaa(em: EntityManager, signer: BaaSigner, input: Readonly<Record<string, unknown>>, now = new Date()): Promise<BaaSignature> {
  const request = unwrapValidation(validateBaaSignatureRequest(input), 'The signature request is invalid.');
  const document = await loadLegalDocument(request.document_id);
  try {
    return await em.transactional(async (tx) => {
      if (!(await partners.byGpid(tx, signer.partnerGpid))) throw new DomainError('NOT_FOUND', `Partner ${signer.partnerGpid} does not exist.`);
      const existing = await baaSignatures.find(tx, signer.partnerGpid, document.id);
      if (existing) throw alreadySigned(existing);
      const signature = baaSignatures.record(tx, {
        id: newId('sig', now.getTime()),
        partnerGpid: signer.partnerGpid,
        documentId: document.id,
        documentVersion: document.version,
        documentSha256: document.sha256,
        signerName: request.signer_name,
        signerTitle: request.signer_title,
        signerEmail: request.signer_email,
        clientIp: request.client_ip,
        principalKind: signer.principalKind,
        credentialId: signer.credentialId,
        signedAt: now,
      });
      certificationRecords.addEvidence(tx, {
        partnerGpid: signer.partnerGpid,
        itemId: 'baa_signed',
        source: signature.id,
        detail: `${document.id} signed by ${request.signer_name} (${request.signer_title}), SHA-256 ${document.sha256}.`,
        observedAt: now,
      });
      recordEvent(
        tx,
        makeEvent(
          'partner.baa.signed',
          signer.partnerGpid,
          {
            event: 'partner.baa.signed',
            partner_gpid: signer.partnerGpid,
            signature_id: signature.id,
            document_id: document.id,
            document_version: document.version,
            document_sha256: document.sha256,
            signer_name: request.signer_name,
            signer_title: request.signer_title,
            signed_at: now.toISOString(),
          },
          now,
        ),
      );
      return signature;
    });
  } catch (err) {
    // Two signatures raced: the unique index kept the first one.
    if (err instanceof UniqueConstraintViolationException) {
      const existing = await baaSignatures.find(em.fork(), signer.partnerGpid, document.id);
      if (existing) throw alreadySigned(existing);
    }
    throw err;
  }
}
