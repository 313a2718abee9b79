import type { SubgraphBuilder as Builder, SubgraphServices } from '@svc/platform';

/** `viewer`: who the current credential is. Useful for portals and for a partner's first call. */
export function defineViewer(builder: Builder, services: SubgraphServices) {
  const Viewer = builder
    .objectRef<{ kind: string; partnerGpid: string | null; tokenId: string | null; clientId: string | null; scopes: readonly string[] }>('Viewer')
    .implement({
      description: 'The principal behind the current request.',
      fields: (t) => ({
        kind: t.exposeString('kind', { description: 'partner, service, portal or anonymous.' }),
        partnerGpid: t.exposeID('partnerGpid', { nullable: true }),
        tokenId: t.exposeID('tokenId', { nullable: true }),
        clientId: t.exposeID('clientId', { nullable: true }),
        scopes: t.exposeStringList('scopes'),
        environment: t.string({
          description: 'sandbox or production: the environment of this service. Sample data (the sandbox peer community, sample patients) exists only in a sandbox.',
          resolve: () => services.runtime.config.environment,
        }),
      }),
    });
  builder.queryFields((t) => ({
    viewer: t.field({
      type: Viewer,
      resolve: (_root, _args, { principal }) => ({
        kind: principal.kind,
        partnerGpid: principal.partnerGpid,
        tokenId: principal.tokenId ?? null,
        clientId: principal.clientId ?? null,
        scopes: principal.scopes,
      }),
    }),
  }));
}
