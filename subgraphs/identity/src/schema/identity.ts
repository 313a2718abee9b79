import { loaderFor, type SubgraphBuilder, type SubgraphContext } from '@svc/platform';
import { ENTITY_TYPES, IDENTITY_STATUS_DESCRIPTIONS, IDENTITY_STATUSES, MATCH_TYPES, type IdentityRecord, type IdentityStatus, type MatchType } from '../domain/index.js';
import type { LineageEvent } from '../entities/lineage.js';
import type { MatchHistoryEntry, MatchHistorySummary } from '../entities/match-history.js';
import type { PartnerLink } from '../entities/partner-links.js';
import type { SourceConfirmation } from '../entities/sources.js';
import type { IdentityService } from '../identity-service.js';
import { identityViewer } from '../identity-viewer.js';

/** Who may read identity records (and so every nested `Identity`). */
export const READ_SCOPES = { anyScope: ['identity.read', 'cms.admin'] } as const;
const MAX_HISTORY = 50;

interface LineageView {
  kind: 'MERGED_INTO' | 'MERGED_FROM' | 'SPLIT_FROM' | 'SPLIT_INTO';
  gpid: string;
  event: LineageEvent;
}

/** The lineage events of `gpid`, each seen from its side. */
function lineageFor(gpid: string, events: readonly LineageEvent[]): LineageView[] {
  return events.map((event) => {
    const mine = event.gpid === gpid;
    if (event.kind === 'merge') return { kind: mine ? 'MERGED_INTO' : 'MERGED_FROM', gpid: mine ? event.survivorGpid : event.gpid, event };
    return { kind: mine ? 'SPLIT_FROM' : 'SPLIT_INTO', gpid: mine ? event.survivorGpid : event.gpid, event };
  });
}

/** The partner whose links restrict this request's reads; undefined for an operator (reads all). */
function restrictedTo(ctx: SubgraphContext): string | undefined {
  const viewer = identityViewer(ctx.principal);
  return viewer.unrestricted ? undefined : (viewer.partnerGpid ?? '-');
}

/**
 * Per-request loaders of the Identity entity and its parts. `record` is the one way to an Identity
 * (queries, entity references, nested fields): a GPID the caller has no link to loads as null,
 * exactly like a missing one.
 */
export function identityLoaders(service: IdentityService) {
  /** The caller's link to each GPID; null for an operator (no restriction). */
  const link = (ctx: SubgraphContext) =>
    loaderFor<string, PartnerLink | null>(ctx, 'identity.link', async (gpids) => {
      const partnerGpid = restrictedTo(ctx);
      if (partnerGpid === undefined) return gpids.map(() => null);
      const found = await service.partnerLinks(partnerGpid, gpids);
      return gpids.map((g) => found.get(g) ?? { linked: false, sources: [] });
    });
  return {
    link,
    /** Which of `gpids` the caller may see, in order. */
    visible: async (ctx: SubgraphContext, gpids: readonly string[]): Promise<string[]> => {
      const links = await link(ctx).loadMany(gpids);
      return gpids.filter((_g, i) => {
        const l = links[i];
        return l === null || (l !== undefined && !(l instanceof Error) && l.linked);
      });
    },
    record: (ctx: SubgraphContext) =>
      loaderFor<string, IdentityRecord | null>(ctx, 'identity.record', async (gpids) => {
        const [found, links] = await Promise.all([service.records(gpids), link(ctx).loadMany(gpids)]);
        return gpids.map((g, i) => {
          const l = links[i];
          if (l instanceof Error) return l;
          return l === null || l?.linked ? (found.get(g) ?? null) : null;
        });
      }),
    sources: (ctx: SubgraphContext) =>
      loaderFor<string, SourceConfirmation[]>(ctx, 'identity.sources', async (gpids) => {
        const found = await service.sources(gpids);
        return gpids.map((g) => found.get(g) ?? []);
      }),
    lineage: (ctx: SubgraphContext) =>
      loaderFor<string, LineageEvent[]>(ctx, 'identity.lineage', async (gpids) => {
        const found = await service.lineage(gpids);
        return gpids.map((g) => found.get(g) ?? []);
      }),
    history: (ctx: SubgraphContext) =>
      loaderFor<string, MatchHistorySummary>(ctx, 'identity.history', async (gpids) => {
        const found = await service.historySummaries(gpids, restrictedTo(ctx));
        return gpids.map((g) => found.get(g) ?? { total: 0, firstAt: null, lastAt: null });
      }),
  };
}
export type IdentityLoaders = ReturnType<typeof identityLoaders>;

/** The shared enums of the identity schema. */
export function defineIdentityEnums(builder: SubgraphBuilder) {
  const Status = builder.enumType('IdentityStatus', {
    description: 'Lifecycle status of a GPID record.',
    values: Object.fromEntries(IDENTITY_STATUSES.map((s) => [s, { value: s, description: IDENTITY_STATUS_DESCRIPTIONS[s] }])) as Record<string, { value: IdentityStatus; description: string }>,
  });
  const Match = builder.enumType('MatchType', {
    description: 'DETERMINISTIC: exact name, DOB and email or phone. PARTIAL: confidence at or above 0.5. NONE: below.',
    values: Object.fromEntries(MATCH_TYPES.map((m) => [m, { value: m }])) as Record<string, { value: MatchType }>,
  });
  return { Status, Match };
}
export type IdentityEnums = ReturnType<typeof defineIdentityEnums>;

/** The Identity entity (key: gpid): a golden record of the GPID registry, and Query.identity. */
export function defineIdentity(builder: SubgraphBuilder, service: IdentityService, loaders: IdentityLoaders, enums: IdentityEnums) {
  const SourceConfirmationType = builder.objectRef<SourceConfirmation>('IdentitySourceConfirmation').implement({
    description: 'A source origin (X-Svc-Source) that confirmed this identity: by resolving to it, or in a reviewed merge or split.',
    fields: (t) => ({
      source: t.exposeString('source', { description: 'pulse, provider, lake, cms, beacon, prime, catalyst or tefca.' }),
      firstConfirmedAt: t.expose('firstConfirmedAt', { type: 'DateTime' }),
      lastConfirmedAt: t.expose('lastConfirmedAt', { type: 'DateTime' }),
      confirmations: t.exposeInt('confirmations'),
    }),
  });

  const LineageKind = builder.enumType('IdentityLineageKind', {
    description: 'How another GPID relates to this one.',
    values: {
      MERGED_INTO: { description: 'This GPID was merged into the other (its survivor).' },
      MERGED_FROM: { description: 'The other GPID was merged into this one.' },
      SPLIT_FROM: { description: 'This GPID was split from the other (its former survivor).' },
      SPLIT_INTO: { description: 'The other GPID was split from this one.' },
    } as const,
  });
  const LineageEntry = builder.objectRef<LineageView>('IdentityLineageEntry').implement({
    description: 'One merge or split this identity took part in.',
    fields: (t) => ({
      kind: t.field({ type: LineageKind, resolve: (l) => l.kind }),
      gpid: t.exposeID('gpid', { description: 'The other GPID.' }),
      requestId: t.id({ description: 'The approved mrg_… or spl_… request.', resolve: (l) => l.event.requestId }),
      reason: t.string({ resolve: (l) => l.event.reason }),
      at: t.field({ type: 'DateTime', resolve: (l) => l.event.at }),
    }),
  });

  const HistoryEntry = builder.objectRef<MatchHistoryEntry>('IdentityMatchHistoryEntry').implement({
    description: 'One resolve that returned or created this GPID (Match, being query only, leaves none).',
    fields: (t) => ({
      at: t.expose('at', { type: 'DateTime' }),
      decision: t.exposeString('decision', { description: 'EXISTING, NEW_SHADOW, NEW_PROVISIONAL or NEW_CONFLICT.' }),
      matchType: t.field({ type: enums.Match, resolve: (h) => h.matchType }),
      confidence: t.exposeFloat('confidence'),
      status: t.field({ type: enums.Status, description: 'Status after the resolve.', resolve: (h) => h.status }),
      source: t.exposeString('source'),
      subjectGpid: t.id({
        nullable: true,
        description: 'The existing GPID the demographics matched (null when the caller has no link to it).',
        resolve: async (h, _a, ctx) => (h.subjectGpid !== null && (await loaders.visible(ctx, [h.subjectGpid])).length > 0 ? h.subjectGpid : null),
      }),
      partnerGpid: t.exposeID('partnerGpid', { nullable: true, description: 'Who resolved (operators only).', authScopes: { scope: 'cms.admin' } }),
    }),
  });
  const History = builder.objectRef<{ gpid: string; summary: MatchHistorySummary; last: number; partnerGpid: string | undefined }>('IdentityMatchHistory').implement({
    description: "A summary of the resolves of this GPID (a partner: its own resolves; operators: everyone's).",
    fields: (t) => ({
      total: t.int({ resolve: (h) => h.summary.total }),
      firstAt: t.field({ type: 'DateTime', nullable: true, resolve: (h) => h.summary.firstAt }),
      lastAt: t.field({ type: 'DateTime', nullable: true, resolve: (h) => h.summary.lastAt }),
      recent: t.field({ type: [HistoryEntry], description: 'Newest first.', resolve: (h) => (h.summary.total === 0 ? [] : service.recentHistory(h.gpid, h.last, h.partnerGpid)) }),
    }),
  });

  /** The lineage of `gpid` without the entries whose other GPID the caller may not see. */
  const visibleLineage = async (ctx: SubgraphContext, gpid: string): Promise<LineageView[]> => {
    const views = lineageFor(gpid, await loaders.lineage(ctx).load(gpid));
    const visible = new Set(await loaders.visible(ctx, [...new Set(views.map((v) => v.gpid))]));
    return views.filter((v) => visible.has(v.gpid));
  };

  const IdentityType = builder.objectRef<IdentityRecord>('Identity');
  IdentityType.implement({
    description: 'A golden-record identity of the GPID registry. Its demographics are held only as keyed fingerprints and are never returned.',
    authScopes: READ_SCOPES,
    fields: (t) => ({
      gpid: t.exposeID('gpid', { description: 'SVC- + 8 hex for patients; {PRD}-{TYPE}-{N} for other entities.' }),
      entityType: t.exposeString('entityType', { description: 'One of the 22 entity types (identityEntityTypes).' }),
      status: t.field({ type: enums.Status, resolve: (r) => r.status }),
      mergedInto: t.exposeID('mergedInto', { nullable: true, description: 'MERGED only: the survivor this GPID was merged into.' }),
      survivor: t.field({
        type: IdentityType,
        nullable: true,
        description: 'MERGED only: where this identity lives now (the end of the mergedInto chain).',
        resolve: async (r, _a, ctx) => {
          const survivor = r.mergedInto ? await service.terminalSurvivor(r) : null;
          return survivor ? loaders.record(ctx).load(survivor.gpid) : null;
        },
      }),
      sources: t.field({
        type: [SourceConfirmationType],
        description:
          "Source origins that confirmed this identity (first first), with when and how often. A partner sees only its own: the origins it resolved this identity (or one merged into it) under.",
        resolve: async (r, _a, ctx) => {
          const own = await loaders.link(ctx).load(r.gpid);
          if (own) return own.sources;
          // The record's own list is the truth (a split takes origins away); the table adds the times.
          const times = new Map((await loaders.sources(ctx).load(r.gpid)).map((c) => [c.source, c]));
          return r.sources.map(
            (source) => times.get(source) ?? { gpid: r.gpid, source, firstConfirmedAt: new Date(r.createdAt), lastConfirmedAt: new Date(r.updatedAt), confirmations: 0 },
          );
        },
      }),
      relatedGpids: t.idList({
        description: 'GPIDs linked for review (possible or conflicting duplicates); a partner sees those it links to.',
        resolve: (r, _a, ctx) => loaders.visible(ctx, [...r.links]),
      }),
      lineage: t.field({
        type: [LineageEntry],
        description: 'Merges and splits this identity took part in, oldest first; a partner sees those with GPIDs it links to.',
        resolve: async (r, _a, ctx) => visibleLineage(ctx, r.gpid),
      }),
      mergedFrom: t.idList({
        description: 'GPIDs merged into this one (and not split off again).',
        resolve: async (r, _a, ctx) => {
          const current = new Set<string>();
          for (const view of await visibleLineage(ctx, r.gpid)) {
            if (view.kind === 'MERGED_FROM') current.add(view.gpid);
            if (view.kind === 'SPLIT_INTO') current.delete(view.gpid);
          }
          return [...current];
        },
      }),
      splitFrom: t.id({
        nullable: true,
        description: 'SPLIT records: the GPID this one was split from.',
        resolve: async (r, _a, ctx) => (await visibleLineage(ctx, r.gpid)).filter((v) => v.kind === 'SPLIT_FROM').at(-1)?.gpid ?? null,
      }),
      matchHistory: t.field({
        type: History,
        args: { last: t.arg.int({ defaultValue: 10, description: `Newest entries to list (at most ${MAX_HISTORY}).` }) },
        resolve: async (r, { last }, ctx) => ({
          gpid: r.gpid,
          summary: await loaders.history(ctx).load(r.gpid),
          last: Math.min(Math.max(last ?? 10, 0), MAX_HISTORY),
          partnerGpid: restrictedTo(ctx),
        }),
      }),
      version: t.exposeInt('version', { description: 'Changes with every write (optimistic concurrency).' }),
      createdAt: t.field({ type: 'DateTime', resolve: (r) => new Date(r.createdAt) }),
      updatedAt: t.field({ type: 'DateTime', resolve: (r) => new Date(r.updatedAt) }),
    }),
  });
  builder.asEntity(IdentityType, {
    key: builder.selection<{ gpid: string }>('gpid'),
    resolveReference: (ref, ctx) => loaders.record(ctx).load(ref.gpid),
  });

  const EntityTypeInfo = builder.objectRef<(typeof ENTITY_TYPES)[number]>('IdentityEntityType').implement({
    description: 'One of the 22 entity types of the registry. Patients get SVC- GPIDs; the others system GPIDs {PRD}-{TYPE}-{N}.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'The value of entityType / entity_type.' }),
      code: t.exposeString('code', { description: 'TYPE of system GPIDs.' }),
      label: t.exposeString('label'),
      fhirResourceType: t.exposeString('fhirResourceType', { nullable: true }),
      description: t.exposeString('description'),
    }),
  });

  builder.queryFields((t) => ({
    identity: t.field({
      type: IdentityType,
      nullable: true,
      description: 'One identity record by GPID. A MERGED GPID keeps answering, with its survivor.',
      args: { gpid: t.arg.id({ required: true }) },
      authScopes: READ_SCOPES,
      resolve: (_root, { gpid }, ctx) => loaders.record(ctx).load(String(gpid)),
    }),
    identityEntityTypes: t.field({
      type: [EntityTypeInfo],
      description: 'The 22 entity types, patient first and service last.',
      authScopes: { authenticated: true },
      resolve: () => [...ENTITY_TYPES],
    }),
  }));

  return IdentityType;
}
export type IdentityTypeRef = ReturnType<typeof defineIdentity>;
