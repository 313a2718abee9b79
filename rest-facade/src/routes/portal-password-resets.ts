import { capabilityRoute } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteSpec } from './route.js';
import { BodyReader } from './body-readers.js';
import { NO_STORE } from './no-store.js';
import { snakeKeys } from './snake-case.js';

/**
 * E-mail-free portal password resets: an operator issues a one-time link for a partner's portal
 * account (`createPortalPasswordReset`), the partner uses it once (`resetPortalPassword`). Both
 * answers are `Cache-Control: no-store`: the first carries the link's secret.
 */

const issue: GatewayOperation = {
  document: 'mutation CreatePortalPasswordReset($partnerGpid: ID!) { createPortalPasswordReset(partnerGpid: $partnerGpid) { id partnerGpid email token resetUrl expiresAt } }',
  variables: ({ params, body }) => {
    const reader = new BodyReader(body, { allowEmpty: true });
    reader.done();
    return { partnerGpid: params['gpid'] ?? '' };
  },
  result: (data) => snakeKeys(data['createPortalPasswordReset']),
  respond: (data) => ({ body: snakeKeys(data['createPortalPasswordReset']), headers: NO_STORE }),
};

const use: GatewayOperation = {
  document: 'mutation ResetPortalPassword($token: String!, $password: String!) { resetPortalPassword(token: $token, password: $password) { partnerGpid email sessionsEnded } }',
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const token = reader.string('token', true);
    const password = reader.string('password', true);
    reader.done();
    return { token, password };
  },
  result: (data) => snakeKeys(data['resetPortalPassword']),
  respond: (data) => ({ body: snakeKeys(data['resetPortalPassword']), headers: NO_STORE }),
};

const ISSUED: JsonSchema = {
  type: 'object',
  required: ['id', 'partner_gpid', 'email', 'token', 'reset_url', 'expires_at'],
  properties: {
    id: { type: 'string', pattern: '^pwr_[0-9a-z]{26}$' },
    partner_gpid: { type: 'string', pattern: '^CMS-[0-9]{8}$' },
    email: { type: 'string', description: "The portal account's sign-in address." },
    token: { type: 'string', description: 'svc_pwr_…: the secret of the link, shown once (only its SHA-256 is stored).' },
    reset_url: { type: 'string', description: "The portal page that uses it, with the secret in the URL's fragment. Hand it to the partner yourself: the platform sends no e-mail." },
    expires_at: { type: 'string', format: 'date-time', description: 'One hour from now. A newer link for the same account replaces this one.' },
  },
};

export const portalPasswordResetRoutes: RouteSpec[] = [
  {
    id: 'portal.password-resets.create',
    method: 'POST',
    path: '/cms/partners/{gpid}/portal-password-resets',
    ...capabilityRoute('portal.password-resets.create'),
    summary: "Issue a one-time password reset link for a partner's portal account (operators)",
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 201,
    operation: issue,
    pathParameters: { gpid: { schema: { type: 'string', pattern: '^CMS-[0-9]{8}$' }, description: 'The partner whose portal account gets the link.' } },
    requestBody: { type: 'object', description: 'Empty (or omitted).', properties: {} },
    responseBody: ISSUED,
  },
  {
    id: 'portal.password-resets.use',
    method: 'POST',
    path: '/cms/portal-password-reset',
    ...capabilityRoute('portal.password-resets.use'),
    summary: 'Set a new portal password with a one-time reset link; ends every open portal session of the partner',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    operation: use,
    requestBody: {
      type: 'object',
      required: ['token', 'password'],
      properties: {
        token: { type: 'string', description: "The link's secret (svc_pwr_…). Unknown, used, replaced and expired links answer the same 422 naming token." },
        password: { type: 'string', minLength: 12, maxLength: 128, description: 'The new password, held to the portal password policy (422 naming password).' },
      },
    },
    responseBody: {
      type: 'object',
      required: ['partner_gpid', 'email', 'sessions_ended'],
      properties: { partner_gpid: { type: 'string' }, email: { type: 'string' }, sessions_ended: { type: 'integer', description: 'Open portal sessions signed out.' } },
    },
  },
];
