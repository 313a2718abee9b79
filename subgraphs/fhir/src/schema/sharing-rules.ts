import type { SubgraphBuilder } from '@svc/platform';
import { grantSharing, listSharing, revokeSharing } from '../domain/sharing-rules.js';
import type { SharingRule } from '../entities/sharing-rule-store.js';

/**
 * Operator-managed FHIR sharing rules, GraphQL only: the spec's FHIR route table has no route for
 * them, so there is no REST route.
 */
export function defineSharingRules(builder: SubgraphBuilder) {
  const Rule = builder.objectRef<SharingRule>('FhirSharingRule').implement({
    description: "Partner `granteeGpid` may read (never write) partner `ownerGpid`'s FHIR resources of `resourceTypes` (null: every type).",
    fields: (t) => ({
      id: t.exposeID('id'),
      ownerGpid: t.exposeString('ownerGpid', { description: 'The partner whose resources are shared.' }),
      granteeGpid: t.exposeString('granteeGpid', { description: 'The partner that may read them.' }),
      resourceTypes: t.exposeStringList('resourceTypes', { nullable: true, description: 'The shared resource types; null shares every type.' }),
      createdAt: t.exposeString('createdAt'),
    }),
  });

  builder.queryFields((t) => ({
    fhirSharingRules: t.field({
      type: [Rule],
      description: 'The FHIR sharing rules between partners (operators only).',
      authScopes: { authenticated: true },
      args: { ownerGpid: t.arg.string(), granteeGpid: t.arg.string() },
      resolve: (_r, a, ctx) => listSharing(ctx.em, ctx.principal, { ownerGpid: a.ownerGpid ?? null, granteeGpid: a.granteeGpid ?? null }),
    }),
  }));

  builder.mutationFields((t) => ({
    fhirSharingRuleGrant: t.field({
      type: Rule,
      description: "Let partner granteeGpid read partner ownerGpid's resources of resourceTypes (null: every type); replaces the pair's rule. Operators only.",
      authScopes: { authenticated: true },
      args: { ownerGpid: t.arg.string({ required: true }), granteeGpid: t.arg.string({ required: true }), resourceTypes: t.arg.stringList() },
      resolve: (_r, a, ctx) => grantSharing(ctx.em, ctx.principal, { ownerGpid: a.ownerGpid, granteeGpid: a.granteeGpid, resourceTypes: a.resourceTypes ?? null }),
    }),
    fhirSharingRuleRevoke: t.field({
      type: 'Boolean',
      description: 'Remove a sharing rule (operators only).',
      authScopes: { authenticated: true },
      args: { id: t.arg.id({ required: true }) },
      resolve: async (_r, a, ctx) => {
        await revokeSharing(ctx.em, ctx.principal, String(a.id));
        return true;
      },
    }),
  }));
}
