import { commitThenWake, runTefcaExchange, type SubgraphBuilder, type SubgraphServices, type TefcaDocumentContent } from '@svc/platform';
import { MAX_DOCUMENTS, queryDocuments, retrieveDocument, type TefcaDocumentEntry } from '../domain/tefca-documents.js';

/**
 * Inbound TEFCA document query and retrieve (XCA ITI-38 / ITI-39 as JSON): what POST
 * /tefca/xca/query and POST /tefca/xca/retrieve (for our own home community) run. Both need their
 * tefca.xca.* scope and a TEFCA purpose of use, and are audited from this subgraph's outbox.
 */
export function defineTefcaDocuments(builder: SubgraphBuilder, services: SubgraphServices) {
  const tefca = services.runtime.config.tefca;

  const Entry = builder.objectRef<TefcaDocumentEntry>('TefcaDocumentEntry').implement({
    description: "A document of this community's repository (the XCA DocumentEntry metadata we carry).",
    fields: (t) => ({
      homeCommunityId: t.exposeString('homeCommunityId'),
      repositoryId: t.exposeString('repositoryId', { description: 'The repository unique id to retrieve it from.' }),
      documentId: t.exposeID('documentId', { description: 'The document unique id (the DocumentReference id).' }),
      patientId: t.exposeID('patientId', { description: 'The patient id at this community (GPID).' }),
      title: t.exposeString('title', { nullable: true }),
      typeCode: t.exposeString('typeCode', { nullable: true, description: 'DocumentReference.type, first coding (e.g. a LOINC code).' }),
      typeSystem: t.exposeString('typeSystem', { nullable: true }),
      typeDisplay: t.exposeString('typeDisplay', { nullable: true }),
      contentType: t.exposeString('contentType', { nullable: true }),
      created: t.exposeString('created', { nullable: true }),
      size: t.exposeInt('size', { nullable: true }),
      hash: t.exposeString('hash', { nullable: true }),
      status: t.exposeString('status', { nullable: true }),
    }),
  });
  const Query = builder.objectRef<{ exchangeId: string; purposeOfUse: string; homeCommunityId: string; documents: TefcaDocumentEntry[] }>('TefcaInboundDocumentQuery').implement({
    description: "This community's answer to a document query.",
    fields: (t) => ({
      exchangeId: t.exposeID('exchangeId', { description: 'xch_…: the audit log entry of this exchange.' }),
      purposeOfUse: t.exposeString('purposeOfUse'),
      homeCommunityId: t.exposeString('homeCommunityId'),
      documents: t.field({ type: [Entry], description: `Newest first, at most ${MAX_DOCUMENTS}.`, resolve: (q) => q.documents }),
    }),
  });
  const Content = builder.objectRef<TefcaDocumentContent & { exchangeId: string; purposeOfUse: string }>('TefcaDocumentContent').implement({
    description: 'A retrieved document (ITI-39).',
    fields: (t) => ({
      exchangeId: t.exposeID('exchangeId'),
      purposeOfUse: t.exposeString('purposeOfUse'),
      homeCommunityId: t.exposeString('homeCommunityId'),
      repositoryId: t.exposeString('repositoryId'),
      documentId: t.exposeID('documentId'),
      contentType: t.exposeString('contentType'),
      data: t.exposeString('data', { description: 'The document, base64.' }),
      size: t.exposeInt('size', { description: 'Bytes.' }),
    }),
  });

  builder.mutationFields((t) => ({
    tefcaQueryDocuments: t.field({
      type: Query,
      description:
        "Inbound TEFCA document query (XCA, ITI-38): this community's documents (DocumentReference) of a patient named by the id a patient discovery answered. Needs tefca.xca.query and a TEFCA purpose of use. Audited (tefca.xca.query.received, or tefca.exchange.refused).",
      args: {
        purposeOfUse: t.arg.string({ description: 'Required: a TEFCA exchange purpose code.' }),
        requestingCommunityId: t.arg.string({ description: 'The home community id of the requesting community.' }),
        patientId: t.arg.string({ description: 'Required: the patient id at this community (GPID).' }),
        typeCodes: t.arg.stringList({ description: 'Only documents whose type code is one of these.' }),
      },
      authScopes: { scope: 'tefca.xca.query' },
      resolve: (_root, args, ctx) =>
        runTefcaExchange({
          kind: 'xca.query',
          direction: 'inbound',
          principal: ctx.principal,
          requestId: ctx.requestId,
          purposeOfUse: args.purposeOfUse,
          requestingCommunityId: args.requestingCommunityId,
          stage: commitThenWake(ctx.em, services.publishCommitted),
          work: async () => {
            const documents = await queryDocuments(ctx.em, tefca.homeCommunityId, args.patientId ?? '', args.typeCodes ?? []);
            return { answer: { homeCommunityId: tefca.homeCommunityId, documents }, resultCount: documents.length, outcome: 'success', respondingCommunityIds: [tefca.homeCommunityId] };
          },
        }),
    }),
    tefcaRetrieveDocument: t.field({
      type: Content,
      description:
        "Inbound TEFCA document retrieve (XCA, ITI-39) from this community's repository: the content of a document a query listed. Needs tefca.xca.retrieve and a TEFCA purpose of use. Audited (tefca.xca.retrieve.completed / .failed).",
      args: {
        purposeOfUse: t.arg.string({ description: 'Required: a TEFCA exchange purpose code.' }),
        requestingCommunityId: t.arg.string(),
        homeCommunityId: t.arg.string({ required: true, description: 'This community (the retrieve of another community is Mutation.tefcaRetrieveRemoteDocument).' }),
        repositoryId: t.arg.string({ required: true }),
        documentId: t.arg.string({ required: true }),
      },
      authScopes: { scope: 'tefca.xca.retrieve' },
      resolve: (_root, args, ctx) =>
        runTefcaExchange({
          kind: 'xca.retrieve',
          direction: 'inbound',
          principal: ctx.principal,
          requestId: ctx.requestId,
          purposeOfUse: args.purposeOfUse,
          requestingCommunityId: args.requestingCommunityId,
          stage: commitThenWake(ctx.em, services.publishCommitted),
          work: async () => {
            const content = await retrieveDocument(ctx.em, tefca.homeCommunityId, args.homeCommunityId, args.repositoryId, args.documentId);
            return { answer: content, resultCount: 1, outcome: 'success', respondingCommunityIds: [tefca.homeCommunityId] };
          },
        }),
    }),
  }));
}
