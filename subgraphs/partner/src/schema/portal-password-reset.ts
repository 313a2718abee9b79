import type { SubgraphBuilder as Builder, SubgraphServices } from '@svc/platform';
import { completePasswordReset, issuePasswordReset, PASSWORD_RESET_LIFETIME_MINUTES } from '../domain/portal-password-resets.js';
import { publishRevocations } from './publish.js';

interface IssuedAnswer {
  id: string;
  partnerGpid: string;
  email: string;
  token: string;
  resetUrl: string;
  expiresAt: Date;
}

/** Operator-issued one-time portal password resets (domain/portal-password-resets.ts). */
export function definePortalPasswordReset(builder: Builder, services: SubgraphServices) {
  const Issued = builder.objectRef<IssuedAnswer>('PortalPasswordReset').implement({
    description: `A one-time link that lets a partner set a new portal password, valid for ${PASSWORD_RESET_LIFETIME_MINUTES} minutes and once. The platform sends no e-mail: hand the link to the partner yourself.`,
    fields: (t) => ({
      id: t.exposeID('id', { description: 'pwr_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      email: t.exposeString('email', { description: "The portal account's sign-in address." }),
      token: t.exposeString('token', { description: 'svc_pwr_…: the secret of the link. Shown once; only its SHA-256 is stored.' }),
      resetUrl: t.exposeString('resetUrl', { description: "The portal page that uses it; the secret travels in the URL's fragment, which browsers never send to a server." }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    }),
  });

  const Completed = builder.objectRef<{ partnerGpid: string; email: string; sessionsEnded: number }>('PortalPasswordResetResult').implement({
    description: 'A used reset link: the new password is set, every open portal session of the partner has ended.',
    fields: (t) => ({
      partnerGpid: t.exposeID('partnerGpid'),
      email: t.exposeString('email', { description: 'Sign in with this address and the new password.' }),
      sessionsEnded: t.exposeInt('sessionsEnded', { description: 'How many open portal sessions were signed out.' }),
    }),
  });

  builder.mutationFields((t) => ({
    createPortalPasswordReset: t.field({
      type: Issued,
      description: `Operators: issue a one-time password reset link for a partner's portal account (valid ${PASSWORD_RESET_LIFETIME_MINUTES} minutes; a newer link replaces an unused older one). NOT_FOUND when the partner has no portal account.`,
      args: { partnerGpid: t.arg.id({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const issued = await issuePasswordReset(ctx.em, { partnerGpid: String(args.partnerGpid), issuedBy: ctx.principal.tokenId ?? ctx.principal.clientId ?? null }, new Date());
        return {
          id: issued.reset.id,
          partnerGpid: issued.reset.partnerGpid,
          email: issued.email,
          token: issued.secret,
          resetUrl: `${services.runtime.config.publicUrl}/portal/reset-password#token=${issued.secret}`,
          expiresAt: issued.reset.expiresAt,
        };
      },
    }),
    resetPortalPassword: t.field({
      type: Completed,
      description:
        'Use a password reset link (no credential needed: the link is one). The password must meet the portal password policy (errors name `password`). An unknown, used, replaced or expired link answers VALIDATION_ERROR naming `token`, the same for each. Ends every open portal session of the partner.',
      args: { token: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
      resolve: async (_root, args, ctx) => {
        const done = await completePasswordReset(ctx.em, { token: args.token, password: args.password }, new Date());
        await publishRevocations(services, ctx, done.revocationEventIds);
        return { partnerGpid: done.partnerGpid, email: done.email, sessionsEnded: done.sessionsEnded };
      },
    }),
  }));
}
