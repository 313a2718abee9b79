import {
  commitThenWake,
  connectionType,
  decodeOptionalCursor,
  defineTefcaPatientInput,
  isId,
  isOperator,
  pageSize,
  readTefcaPatient,
  runTefcaExchange,
  toPage,
  validationError,
  type SubgraphBuilder,
  type SubgraphServices,
  type TefcaCommunityOutcome,
  type TefcaDocumentContent,
} from '@svc/platform';
import type { TefcaExchangeRow } from '../entities/tefca-exchange.js';
import { findTefcaExchange, tefcaExchangePage } from '../domain/tefca-exchange-log.js';
import type { RemoteDocument, RemotePatientMatch, TefcaOutbound } from '../tefca/outbound.js';
import type { TefcaDirectory } from '../tefca/directory.js';

/** Every TEFCA exchange scope: any of them reads the directory and the caller's audit log. */
export const TEFCA_SCOPES = ['tefca.xcpd.search', 'tefca.xcpd.discover', 'tefca.xca.search', 'tefca.xca.query', 'tefca.xca.retrieve'] as const;

type NamedOutcome = TefcaCommunityOutcome & { name?: string };

interface Community {
  homeCommunityId: string;
  name: string;
  baseUrl: string | null;
  capabilities: string[];
  self: boolean;
  sandbox: boolean;
}

/**
 * The TEFCA exchange in the pipeline subgraph: the network directory (the operator's peers, or the sandbox peer),
 * the outbound fan-out (XCPD search, XCA search, retrieve from a peer) and the audit log of every
 * exchange, which the `tefca-exchanges` consumer projects from the `tefca.*` events.
 */
export function defineTefca(builder: SubgraphBuilder, services: SubgraphServices, outbound: TefcaOutbound, directory: TefcaDirectory) {
  const settings = services.runtime.config.tefca;
  const outcomes = (list: readonly NamedOutcome[]): TefcaCommunityOutcome[] => list.map(({ name: _name, ...o }) => o);

  const CommunityType = builder.objectRef<Community>('TefcaCommunity').implement({
    description: 'A community of the TEFCA network directory.',
    fields: (t) => ({
      homeCommunityId: t.exposeString('homeCommunityId', { description: 'urn:oid:…' }),
      name: t.exposeString('name'),
      baseUrl: t.exposeString('baseUrl', { nullable: true, description: 'Where its exchange endpoints live (null for this community).' }),
      capabilities: t.exposeStringList('capabilities', { description: 'xcpd (patient discovery), xca (document query and retrieve).' }),
      self: t.exposeBoolean('self', { description: 'True for this community.' }),
      sandbox: t.exposeBoolean('sandbox', {
        description: 'True for the built-in sandbox peer community: it answers from synthetic sample data (no real person) and is listed only in a sandbox whose operator configured no peers, never in production.',
      }),
    }),
  });

  const Outcome = builder.objectRef<NamedOutcome>('TefcaCommunityOutcome').implement({
    description: "One community's part in an exchange.",
    fields: (t) => ({
      homeCommunityId: t.string({ resolve: (o) => o.home_community_id }),
      name: t.string({ nullable: true, resolve: (o) => o.name ?? null }),
      status: t.string({ description: 'ok, error or timeout.', resolve: (o) => o.status }),
      durationMs: t.int({ resolve: (o) => o.duration_ms }),
      resultCount: t.int({ resolve: (o) => o.result_count }),
      error: t.string({ nullable: true, description: 'Why it failed (connection refused, no answer within N ms, HTTP 403 INSUFFICIENT_SCOPE, …).', resolve: (o) => o.error }),
    }),
  });

  const Match = builder.objectRef<RemotePatientMatch>('TefcaRemotePatientMatch').implement({
    description: 'A patient a peer community knows, under its own id.',
    fields: (t) => ({
      homeCommunityId: t.exposeString('homeCommunityId'),
      communityName: t.exposeString('communityName'),
      patientId: t.exposeString('patientId', { description: 'The patient id at that community (use it in a document query there).' }),
      matchQuality: t.exposeFloat('matchQuality', { description: 'Confidence in [0, 1], as the community reported it.' }),
      matchGrade: t.exposeString('matchGrade', { nullable: true }),
    }),
  });

  const PatientSearch = builder.objectRef<{ exchangeId: string; purposeOfUse: string; outcome: string; matches: RemotePatientMatch[]; communities: NamedOutcome[] }>('TefcaPatientSearch').implement({
    description: 'The merged answers of an outbound patient discovery.',
    fields: (t) => ({
      exchangeId: t.exposeID('exchangeId'),
      purposeOfUse: t.exposeString('purposeOfUse'),
      outcome: t.exposeString('outcome', { description: 'success (every community answered), partial, failure (none did).' }),
      matches: t.field({ type: [Match], description: 'Best first.', resolve: (s) => s.matches }),
      communities: t.field({ type: [Outcome], description: 'Every community asked, with its status.', resolve: (s) => s.communities }),
    }),
  });

  const RemoteDocumentType = builder.objectRef<RemoteDocument>('TefcaRemoteDocument').implement({
    description: "A document of a peer community's repository.",
    fields: (t) => ({
      homeCommunityId: t.exposeString('homeCommunityId'),
      communityName: t.exposeString('communityName'),
      repositoryId: t.exposeString('repositoryId'),
      documentId: t.exposeString('documentId'),
      patientId: t.exposeString('patientId'),
      title: t.exposeString('title', { nullable: true }),
      typeCode: t.exposeString('typeCode', { nullable: true }),
      typeSystem: t.exposeString('typeSystem', { nullable: true }),
      typeDisplay: t.exposeString('typeDisplay', { nullable: true }),
      contentType: t.exposeString('contentType', { nullable: true }),
      created: t.exposeString('created', { nullable: true }),
      size: t.exposeInt('size', { nullable: true }),
      hash: t.exposeString('hash', { nullable: true }),
    }),
  });

  const DocumentSearch = builder.objectRef<{ exchangeId: string; purposeOfUse: string; outcome: string; documents: RemoteDocument[]; communities: NamedOutcome[] }>('TefcaDocumentSearch').implement({
    description: 'The merged answers of an outbound document query.',
    fields: (t) => ({
      exchangeId: t.exposeID('exchangeId'),
      purposeOfUse: t.exposeString('purposeOfUse'),
      outcome: t.exposeString('outcome'),
      documents: t.field({ type: [RemoteDocumentType], resolve: (s) => s.documents }),
      communities: t.field({ type: [Outcome], resolve: (s) => s.communities }),
    }),
  });

  const RemoteContentType = builder.objectRef<TefcaDocumentContent & { exchangeId: string; purposeOfUse: string }>('TefcaRemoteDocumentContent').implement({
    description: 'A document retrieved from a peer community (ITI-39).',
    fields: (t) => ({
      exchangeId: t.exposeID('exchangeId'),
      purposeOfUse: t.exposeString('purposeOfUse'),
      homeCommunityId: t.exposeString('homeCommunityId'),
      repositoryId: t.exposeString('repositoryId'),
      documentId: t.exposeString('documentId'),
      contentType: t.exposeString('contentType'),
      data: t.exposeString('data', { description: 'base64' }),
      size: t.exposeInt('size'),
    }),
  });

  const Exchange = builder.objectRef<TefcaExchangeRow>('TefcaExchange').implement({
    description: 'One TEFCA exchange of the audit log (immutable).',
    fields: (t) => ({
      exchangeId: t.exposeID('id', { description: 'xch_…' }),
      eventType: t.exposeString('eventType', { description: 'The tefca.* event that recorded it.' }),
      partnerGpid: t.exposeID('partnerGpid', { nullable: true, description: 'The partner whose credential made (outbound) or received (inbound) it.' }),
      credentialId: t.exposeString('credentialId', { nullable: true, description: 'tok_… or cli_…: which credential.' }),
      kind: t.exposeString('kind', { description: 'xcpd, xca.query or xca.retrieve.' }),
      direction: t.exposeString('direction', { description: 'inbound or outbound.' }),
      purposeOfUse: t.exposeString('purposeOfUse', { nullable: true, description: 'Null when a missing or unknown purpose was refused.' }),
      requestingCommunityId: t.exposeString('requestingCommunityId', { nullable: true }),
      respondingCommunityIds: t.exposeStringList('respondingCommunityIds'),
      communities: t.field({ type: [Outcome], description: 'Outbound: every peer asked, with its status and timing.', resolve: (e) => e.communities }),
      outcome: t.exposeString('outcome', { description: 'success, partial or failure.' }),
      resultCount: t.exposeInt('resultCount'),
      errorCode: t.exposeString('errorCode', { nullable: true }),
      requestId: t.exposeString('requestId'),
      startedAt: t.expose('startedAt', { type: 'DateTime' }),
      durationMs: t.exposeInt('durationMs'),
    }),
  });
  const ExchangeConnection = connectionType(builder, 'TefcaExchange', Exchange);

  const CommunityRef = builder.inputType('TefcaCommunityPatientInput', {
    description: 'A patient at a community, as a patient discovery answered it.',
    fields: (t) => ({ homeCommunityId: t.string({ required: true }), patientId: t.string({ required: true }) }),
  });
  const PatientInput = defineTefcaPatientInput(builder);
  const readTimeout = (value: number | null | undefined): number | null => {
    if (value === null || value === undefined) return null;
    if (!Number.isInteger(value) || value < 100 || value > settings.timeoutMs) throw validationError([{ field: 'timeout_ms', message: `must be an integer from 100 to ${settings.timeoutMs}` }]);
    return value;
  };

  builder.queryFields((t) => ({
    tefcaCommunities: t.field({
      type: [CommunityType],
      description:
        "The TEFCA network directory: this community first, then its peers as the operator configured them. A sandbox without configured peers lists the built-in sandbox peer community instead (`sandbox: true`). Credentials are never shown.",
      authScopes: { anyScope: [...TEFCA_SCOPES] },
      resolve: async () => [
        { homeCommunityId: settings.homeCommunityId, name: settings.homeCommunityName, baseUrl: null, capabilities: ['xcpd', 'xca'], self: true, sandbox: false },
        ...(await directory.peers()).map((p) => ({ homeCommunityId: p.homeCommunityId, name: p.name, baseUrl: p.baseUrl, capabilities: [...p.capabilities], self: false, sandbox: p.sandbox === true })),
      ],
    }),
    tefcaExchanges: t.field({
      type: ExchangeConnection,
      description: "The TEFCA exchange audit log, newest first: your partner's exchanges, inbound and outbound (operators: every partner's, or one partner's). Immutable. Recorded from the exchange's event, so an exchange appears within moments of its answer.",
      args: { first: t.arg.int(), after: t.arg.string(), direction: t.arg.string({ description: 'inbound or outbound.' }), partnerGpid: t.arg.id({ description: 'Operators only.' }) },
      authScopes: { anyScope: [...TEFCA_SCOPES] },
      resolve: async (_root, args, ctx) => {
        if (args.direction !== null && args.direction !== undefined && args.direction !== 'inbound' && args.direction !== 'outbound') {
          throw validationError([{ field: 'direction', message: 'must be inbound or outbound' }]);
        }
        const size = pageSize(args.first);
        const partnerGpid = isOperator(ctx.principal) ? (args.partnerGpid ? String(args.partnerGpid) : null) : (ctx.principal.partnerGpid ?? '-');
        const rows = await tefcaExchangePage(ctx.em, { partnerGpid, direction: args.direction ?? null, size, beforeId: decodeOptionalCursor(args.after, { isKey: (key) => isId('xch', key) }) });
        return toPage(rows, size, (r) => r.id);
      },
    }),
    tefcaExchange: t.field({
      type: Exchange,
      nullable: true,
      description: 'One exchange of the audit log (null when unknown or not yours).',
      args: { exchangeId: t.arg.id({ required: true }) },
      authScopes: { anyScope: [...TEFCA_SCOPES] },
      resolve: (_root, args, ctx) => (isId('xch', String(args.exchangeId)) ? findTefcaExchange(ctx.em, String(args.exchangeId), isOperator(ctx.principal) ? null : (ctx.principal.partnerGpid ?? '-')) : null),
    }),
  }));

  builder.mutationFields((t) => ({
    tefcaSearchPatients: t.field({
      type: PatientSearch,
      description:
        'Outbound TEFCA patient discovery (XCPD, ITI-55): ask the peer communities, in parallel and within the time limit, whether they know the patient; the purpose of use is forwarded. A slow or failing peer is named in communities. Needs tefca.xcpd.search. Audited (tefca.xcpd.query.completed / .failed).',
      args: {
        purposeOfUse: t.arg.string({ description: 'Required: a TEFCA exchange purpose code.' }),
        patient: t.arg({ type: PatientInput, required: true }),
        communities: t.arg.stringList({ description: 'Only these peers (home community ids); default every peer offering xcpd.' }),
        timeoutMs: t.arg.int({ description: `Answer within this many ms (100 to SVC_TEFCA_TIMEOUT_MS).` }),
      },
      authScopes: { scope: 'tefca.xcpd.search' },
      resolve: (_root, args, ctx) =>
        runTefcaExchange({
          kind: 'xcpd',
          direction: 'outbound',
          principal: ctx.principal,
          requestId: ctx.requestId,
          purposeOfUse: args.purposeOfUse,
          requestingCommunityId: settings.homeCommunityId,
          stage: commitThenWake(ctx.em, services.publishCommitted),
          work: async (purpose) => {
            const patient = readTefcaPatient(args.patient as Record<string, unknown>);
            const r = await outbound.searchPatients({ purpose, patient, communities: args.communities ?? null, timeoutMs: readTimeout(args.timeoutMs), requestId: ctx.requestId });
            const matches = [...r.results].sort((a, b) => b.matchQuality - a.matchQuality);
            return {
              answer: { outcome: r.outcome, matches, communities: r.communities },
              resultCount: matches.length,
              outcome: r.outcome,
              respondingCommunityIds: r.communities.filter((c) => c.status === 'ok').map((c) => c.home_community_id),
              communities: outcomes(r.communities),
            };
          },
        }),
    }),
    tefcaSearchDocuments: t.field({
      type: DocumentSearch,
      description:
        'Outbound TEFCA document query (XCA, ITI-38): the documents of patients at peer communities (ids from a patient discovery), asked in parallel within the time limit. Needs tefca.xca.search. Audited (tefca.xca.query.completed / .failed).',
      args: {
        purposeOfUse: t.arg.string({ description: 'Required: a TEFCA exchange purpose code.' }),
        patients: t.arg({ type: [CommunityRef], required: true }),
        typeCodes: t.arg.stringList(),
        timeoutMs: t.arg.int(),
      },
      authScopes: { scope: 'tefca.xca.search' },
      resolve: (_root, args, ctx) =>
        runTefcaExchange({
          kind: 'xca.query',
          direction: 'outbound',
          principal: ctx.principal,
          requestId: ctx.requestId,
          purposeOfUse: args.purposeOfUse,
          requestingCommunityId: settings.homeCommunityId,
          stage: commitThenWake(ctx.em, services.publishCommitted),
          work: async (purpose) => {
            const r = await outbound.searchDocuments({ purpose, patients: args.patients, typeCodes: args.typeCodes ?? null, timeoutMs: readTimeout(args.timeoutMs), requestId: ctx.requestId });
            return {
              answer: { outcome: r.outcome, documents: r.results, communities: r.communities },
              resultCount: r.results.length,
              outcome: r.outcome,
              respondingCommunityIds: [...new Set(r.communities.filter((c) => c.status === 'ok').map((c) => c.home_community_id))],
              communities: outcomes(r.communities),
            };
          },
        }),
    }),
    tefcaRetrieveRemoteDocument: t.field({
      type: RemoteContentType,
      description:
        "Outbound TEFCA document retrieve (XCA, ITI-39) from a peer community. A peer that does not answer in time is UPSTREAM_UNAVAILABLE naming it; a document it lacks, NOT_FOUND. (This community's own documents: Mutation.tefcaRetrieveDocument.) Needs tefca.xca.retrieve. Audited.",
      args: {
        purposeOfUse: t.arg.string({ description: 'Required: a TEFCA exchange purpose code.' }),
        homeCommunityId: t.arg.string({ required: true }),
        repositoryId: t.arg.string({ required: true }),
        documentId: t.arg.string({ required: true }),
        timeoutMs: t.arg.int(),
      },
      authScopes: { scope: 'tefca.xca.retrieve' },
      resolve: (_root, args, ctx) =>
        runTefcaExchange({
          kind: 'xca.retrieve',
          direction: 'outbound',
          principal: ctx.principal,
          requestId: ctx.requestId,
          purposeOfUse: args.purposeOfUse,
          requestingCommunityId: settings.homeCommunityId,
          stage: commitThenWake(ctx.em, services.publishCommitted),
          work: async (purpose) => {
            const r = await outbound.retrieve({ purpose, homeCommunityId: args.homeCommunityId, repositoryId: args.repositoryId, documentId: args.documentId, timeoutMs: readTimeout(args.timeoutMs), requestId: ctx.requestId });
            return { answer: r.content, resultCount: 1, outcome: 'success', respondingCommunityIds: [args.homeCommunityId], communities: [r.community] };
          },
        }),
    }),
  }));
}
