import type { ObjectRef } from '@pothos/core';
import { actsFor, DomainError, type SubgraphBuilder as Builder, type SubgraphServices } from '@svc/platform';
import { baaSignatures } from '../entities/baa-signatures.js';
import type { BaaSignature } from '../entities/baa-signature.js';
import type { Partner } from '../entities/partner.js';
import { partnerApplications } from '../entities/partner-applications.js';
import { signBaa } from '../domain/baa-signing.js';
import { LEGAL_DOCUMENTS, loadLegalDocument, type LoadedLegalDocument } from '../domain/legal-documents.js';
import { partnerActor } from './certification-access.js';

type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer X> ? X : never;

/** One agreement of a partner: the document, when it was accepted, and its e-signature. */
interface PartnerAgreement {
  document: LoadedLegalDocument;
  acceptedAt: Date | null;
  signature: BaaSignature | null;
}

/**
 * BAA e-signatures (`signBaa`, immutable once recorded) and a partner's own legal documents:
 * `Partner.legalAgreements` (what it accepted when applying, and what it signed) and
 * `Partner.baaSignatures`.
 */
export function defineBaaSignature(builder: Builder, services: SubgraphServices, partnerType: ObjectRef<Types, Partner>, legalDocument: ObjectRef<Types, LoadedLegalDocument>) {
  const Signature = builder.objectRef<BaaSignature>('BaaSignature').implement({
    description: 'An e-signature of the Business Associate Agreement. Immutable: there is no way to change or remove one.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'sig_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      documentId: t.exposeID('documentId'),
      documentVersion: t.exposeString('documentVersion'),
      documentSha256: t.exposeString('documentSha256', { description: 'SHA-256 of the exact text signed.' }),
      document: t.field({ type: legalDocument, resolve: (s) => loadLegalDocument(s.documentId) }),
      signerName: t.exposeString('signerName'),
      signerTitle: t.exposeString('signerTitle'),
      signerEmail: t.exposeString('signerEmail'),
      clientIp: t.exposeString('clientIp', { nullable: true, description: 'The signer\'s network address as the edge reported it.' }),
      principalKind: t.exposeString('principalKind', { description: 'partner (API token or OAuth client) or portal (session).' }),
      credentialId: t.exposeID('credentialId', { nullable: true, description: 'The token, client or session that signed.' }),
      signedAt: t.expose('signedAt', { type: 'DateTime' }),
    }),
  });

  const Agreement = builder.objectRef<PartnerAgreement>('PartnerLegalAgreement').implement({
    description: 'A legal agreement of a partner: accepted when applying, and e-signed where that applies (the BAA).',
    fields: (t) => ({
      document: t.field({ type: legalDocument, resolve: (a) => a.document }),
      acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true, description: 'When the application that accepted it was submitted.' }),
      signature: t.field({ type: Signature, nullable: true, resolve: (a) => a.signature }),
    }),
  });

  const assertVisible = (partnerGpid: string, principal: Parameters<typeof actsFor>[0]) => {
    if (!actsFor(principal, partnerGpid)) throw new DomainError('FORBIDDEN', 'Another partner\'s legal records are not visible.');
  };

  builder.objectFields(partnerType, (t) => ({
    baaSignatures: t.field({
      type: [Signature],
      description: 'The partner\'s BAA e-signatures, oldest first.',
      authScopes: { authenticated: true },
      resolve: (partner, _args, ctx) => {
        assertVisible(partner.gpid, ctx.principal);
        return baaSignatures.forPartner(ctx.em, partner.gpid);
      },
    }),
    legalAgreements: t.field({
      type: [Agreement],
      description: 'The MNDA and BAA in force, when the partner accepted them, and the BAA e-signature.',
      authScopes: { authenticated: true },
      resolve: async (partner, _args, ctx) => {
        assertVisible(partner.gpid, ctx.principal);
        const [application, signatures] = await Promise.all([partnerApplications.byPartner(ctx.em, partner.gpid), baaSignatures.forPartner(ctx.em, partner.gpid)]);
        const agreements = LEGAL_DOCUMENTS.filter((entry) => entry.kind !== 'consent');
        return Promise.all(
          agreements.map(async (entry) => ({
            document: await loadLegalDocument(entry.id),
            acceptedAt: application?.submittedAt ?? null,
            signature: signatures.find((s) => s.documentId === entry.id) ?? null,
          })),
        );
      },
    }),
  }));

  builder.mutationFields((t) => ({
    signBaa: t.field({
      type: Signature,
      description:
        'E-sign the BAA in force for the caller\'s partner (portal session, or a partner credential with cms.partner.write). ' +
        'Records the signer, the time, the client address and the SHA-256 of the exact text. A second signature of the same document is a CONFLICT.',
      args: {
        documentId: t.arg.id({ description: 'The BAA to sign; defaults to the one in force (cms_hipaa_baa_v2026_03).' }),
        signerName: t.arg.string({ required: true }),
        signerTitle: t.arg.string({ required: true }),
        signerEmail: t.arg.string({ required: true }),
        clientIp: t.arg.string({
          description: 'The signer\'s network address as the edge saw it. The REST facade fills it in from the connection; portal backends pass the address they observed.',
        }),
      },
      authScopes: { authenticated: true },
      resolve: async (_root, args, ctx) => {
        const actor = partnerActor(ctx.principal);
        const signature = await signBaa(ctx.em, actor, {
          document_id: args.documentId ?? null,
          signer_name: args.signerName,
          signer_title: args.signerTitle,
          signer_email: args.signerEmail,
          client_ip: args.clientIp ?? null,
        });
        services.publishCommitted();
        return signature;
      },
    }),
  }));

  return Signature;
}
