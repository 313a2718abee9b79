import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { DomainError, isFacadePrincipal, type SubgraphServices, type SubgraphBuilder as Builder } from '@svc/platform';
import type { PortalAccount } from '../entities/portal-account.js';
import { createPortalAccount } from '../domain/portal-accounts.js';
import { loginToPortal } from '../domain/portal-login.js';
import { endPortalSession, PORTAL_SESSION_LIFETIME_SECONDS } from '../domain/portal-sessions.js';
import { publishRevocation } from './publish.js';

interface SessionAnswer {
  accessToken: string;
  expiresAt: Date;
  partnerGpid: string;
  sessionId: string;
}

/** Portal accounts, sign-in and sign-out. */
export function definePortalAccount(builder: Builder, services: SubgraphServices) {
  const ref = builder.objectRef<PortalAccount>('PortalAccount').implement({
    description: "A partner's portal sign-in. The password is stored only as an argon2id hash and never shown.",
    fields: (t) => ({
      email: t.exposeString('email', { description: 'The sign-in address, lower-case.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      lastLoginAt: t.expose('lastLoginAt', { type: 'DateTime', nullable: true }),
    }),
  });

  const Session = builder.objectRef<SessionAnswer>('PortalSession').implement({
    description: `A portal session: a bearer secret valid for ${PORTAL_SESSION_LIFETIME_SECONDS / 3600} hours, carrying the partner's self-service scopes.`,
    fields: (t) => ({
      accessToken: t.exposeString('accessToken', { description: 'svc_ses_…: send it as "Authorization: Bearer <accessToken>". Shown once.' }),
      tokenType: t.string({ resolve: () => 'Bearer' }),
      expiresIn: t.int({ description: 'Seconds from now.', resolve: (s) => Math.max(0, Math.round((s.expiresAt.getTime() - Date.now()) / 1000)) }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
      partnerGpid: t.exposeID('partnerGpid'),
      sessionId: t.exposeID('sessionId', { description: 'ses_…: name it to sign this session out from elsewhere.' }),
    }),
  });

  const SessionEnd = builder.objectRef<{ sessionId: string; revokedAt: Date }>('PortalSessionEnd').implement({
    description: 'A signed-out portal session.',
    fields: (t) => ({
      sessionId: t.exposeID('sessionId'),
      revokedAt: t.expose('revokedAt', { type: 'DateTime' }),
    }),
  });

  builder.mutationFields((t) => ({
    createPortalAccount: t.field({
      type: ref,
      description: "Create a partner's portal account (operators; onboarding approval does the same). The password must meet the portal password policy.",
      args: {
        partnerGpid: t.arg.id({ required: true }),
        email: t.arg.string({ required: true }),
        password: t.arg.string({ required: true }),
      },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        try {
          return await ctx.em.transactional(async (tx) => {
            const account = await createPortalAccount(tx, { partnerGpid: String(args.partnerGpid), email: args.email, password: args.password });
            await tx.flush();
            return account;
          });
        } catch (err) {
          // Two operators creating the same account at once: the unique keys decide.
          if (err instanceof UniqueConstraintViolationException) throw new DomainError('CONFLICT', 'This partner or e-mail address already has a portal account.');
          throw err;
        }
      },
    }),
    portalLogin: t.field({
      type: Session,
      description:
        'Sign in to the partner portal. Unknown e-mail and wrong password answer alike (UNAUTHENTICATED); 5 failures for one e-mail within 15 minutes lock it for 15 minutes (ACCOUNT_LOCKED, with retry_after).',
      args: {
        email: t.arg.string({ required: true }),
        password: t.arg.string({ required: true }),
        clientAddress: t.arg.string({
          description:
            'The client address the REST facade saw, so failures are also counted per address. Honoured only from the REST facade (POST /cms/partner-login); from anyone else the address the gateway observed is counted instead.',
        }),
      },
      resolve: async (_root, args, ctx) => {
        // Anyone could name any address here; only the facade's report, or the address the gateway
        // observed on /graphql (carried in the signed principal), is evidence of one.
        const clientAddress = isFacadePrincipal(ctx.principal) ? (args.clientAddress ?? null) : (ctx.principal.clientAddress ?? null);
        const { session, secret } = await loginToPortal(ctx.em, { email: args.email, password: args.password, clientAddress }, new Date());
        return { accessToken: secret, expiresAt: session.expiresAt, partnerGpid: session.partnerGpid, sessionId: session.id };
      },
    }),
    logout: t.field({
      type: SessionEnd,
      description: "Sign a portal session out at once, everywhere: the caller's own session, or (by id) another of its partner's.",
      args: { sessionId: t.arg.id({ description: 'ses_…; default: the session making this request.' }) },
      authScopes: { authenticated: true },
      resolve: async (_root, { sessionId }, ctx) => {
        const ended = await ctx.em.transactional((tx) => endPortalSession(tx, ctx.principal, sessionId === null || sessionId === undefined ? null : String(sessionId), new Date()));
        await publishRevocation(services, ctx, ended.eventId);
        return { sessionId: ended.session.id, revokedAt: ended.session.revokedAt! };
      },
    }),
  }));

  return ref;
}

export type PortalAccountRef = ReturnType<typeof definePortalAccount>;
