import { loaderFor, type SubgraphBuilder } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import { IDENTITY_STATUSES, IdentityRecordEntity, type IdentityRecord } from '../entities/identity-record.js';

async function byGpids(em: EntityManager, gpids: readonly string[]): Promise<(IdentityRecord | null)[]> {
  const rows = await em.find(IdentityRecordEntity, { gpid: { $in: [...gpids] } });
  const map = new Map(rows.map((r) => [r.gpid, r]));
  return gpids.map((g) => map.get(g) ?? null);
}

/** The Identity entity (key: gpid): a golden record of the GPID registry. */
export function defineIdentity(builder: SubgraphBuilder) {
  const Status = builder.enumType('IdentityStatus', {
    values: Object.fromEntries(IDENTITY_STATUSES.map((s) => [s, { value: s }])) as Record<string, { value: (typeof IDENTITY_STATUSES)[number] }>,
  });
  const IdentityType = builder.objectRef<IdentityRecord>('Identity').implement({
    description: 'A golden-record identity. Its demographics are held only as keyed fingerprints.',
    fields: (t) => ({
      gpid: t.exposeID('gpid', { description: 'SVC- + 8 hex for patients; {PRD}-{TYPE}-{N} for other entities.' }),
      entityType: t.exposeString('entityType'),
      status: t.field({ type: Status, resolve: (r) => r.status }),
      survivorGpid: t.exposeID('survivorGpid', { nullable: true, description: 'Where a MERGED record now lives.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    }),
  });
  const load = (ctx: object & { em: EntityManager }, gpid: string) => loaderFor<string, IdentityRecord | null>(ctx, 'identity', (keys) => byGpids(ctx.em, keys)).load(gpid);
  builder.asEntity(IdentityType, {
    key: builder.selection<{ gpid: string }>('gpid'),
    resolveReference: (ref, ctx) => load(ctx, ref.gpid),
  });
  builder.queryFields((t) => ({
    identity: t.field({
      type: IdentityType,
      nullable: true,
      args: { gpid: t.arg.id({ required: true }) },
      authScopes: { anyScope: ['identity.read', 'cms.admin'] },
      resolve: (_root, { gpid }, ctx) => load(ctx, String(gpid)),
    }),
  }));
}
