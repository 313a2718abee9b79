import { actsFor, connectionType, decodeOptionalCursor, isPartnerGpid, DomainError, loaderFor, makeEvent, pageSize, recordEvent, toPage, type SubgraphContext, type SubgraphServices, type SubgraphBuilder as Builder } from '@svc/platform';
import { partners } from '../entities/partners.js';
import type { Partner } from '../entities/partner.js';
import type { ApiTokenType } from './api-token.js';

/** The Partner entity (key: gpid), its queries and the operator's registration mutation. */
export function definePartner(builder: Builder, services: SubgraphServices, tokenType: ApiTokenType) {
  const PartnerType = builder.objectRef<Partner>('Partner');
  const load = (ctx: SubgraphContext, gpid: string) => loaderFor<string, Partner | null>(ctx, 'partner', (gpids) => partners.byGpids(ctx.knex, gpids)).load(gpid);

  PartnerType.implement({
    description: 'A partner organization onboarded to the platform.',
    fields: (t) => ({
      gpid: t.exposeID('gpid', { description: 'CMS GPID: CMS- followed by 8 digits.' }),
      legalName: t.exposeString('legalName'),
      organizationType: t.exposeString('organizationType'),
      status: t.exposeString('status', { description: 'active or suspended.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      apiTokens: t.field({
        type: [tokenType.ref],
        description: 'Active API tokens of this partner (never their secrets).',
        authScopes: { scope: 'cms.tokens.manage' },
        resolve: (partner, _args, ctx) => {
          if (!actsFor(ctx.principal, partner.gpid)) throw new DomainError('FORBIDDEN', 'Tokens of another partner are not visible.');
          return tokenType.activeFor(ctx, partner.gpid);
        },
      }),
    }),
  });

  builder.asEntity(PartnerType, {
    key: builder.selection<{ gpid: string }>('gpid'),
    resolveReference: (ref, ctx) => load(ctx, ref.gpid),
  });

  const PartnerConnection = connectionType(builder, 'Partner', PartnerType);

  builder.queryFields((t) => ({
    partner: t.field({
      type: PartnerType,
      nullable: true,
      description: 'A partner by CMS GPID: your own, or any partner for operators. Another partner answers null, exactly like a GPID nobody has.',
      args: { gpid: t.arg.id({ required: true }) },
      authScopes: { authenticated: true },
      resolve: async (_root, { gpid }, ctx) => {
        if (!actsFor(ctx.principal, String(gpid))) return null;
        return load(ctx, String(gpid));
      },
    }),
    partners: t.field({
      type: PartnerConnection,
      description: 'All partners in GPID order (operators only).',
      args: { first: t.arg.int(), after: t.arg.string() },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const rows = await partners.page(ctx.knex, size, decodeOptionalCursor(args.after, { isKey: isPartnerGpid }));
        return toPage(rows, size, (p) => p.gpid);
      },
    }),
  }));

  const RegisterPartnerInput = builder.inputType('RegisterPartnerInput', {
    fields: (t) => ({
      legalName: t.string({ required: true }),
      organizationType: t.string({ required: true }),
    }),
  });

  builder.mutationFields((t) => ({
    registerPartner: t.field({
      type: PartnerType,
      description: 'Register a partner directly (operators only); partners normally arrive through onboarding.',
      args: { input: t.arg({ type: RegisterPartnerInput, required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, { input }, ctx) => {
        const legalName = input.legalName.trim();
        if (legalName.length < 2 || legalName.length > 200) {
          throw new DomainError('VALIDATION_ERROR', 'The partner is invalid.', { fieldErrors: [{ field: 'legalName', message: 'must be 2 to 200 characters' }] });
        }
        const partner = await ctx.em.transactional(async (tx) => {
          const created = await partners.create(tx, { legalName, organizationType: input.organizationType });
          recordEvent(tx, makeEvent('partner.registered', created.gpid, { event: 'partner.registered', partner_gpid: created.gpid, legal_name: legalName }));
          return created;
        });
        services.publishCommitted();
        return partner;
      },
    }),
  }));

  return PartnerType;
}
