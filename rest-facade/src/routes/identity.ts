import { DomainError, isPatientGpid, isSystemGpid } from '@svc/platform';
import type { RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/** The spec's "Identity" table. */
export const identityRoutes: RouteSpec[] = [
  { id: 'identity.match', method: 'POST', path: '/api/identity/match', product: 'identity', summary: 'Match demographics; returns candidates with confidence scores and a match type', auth: 'service', scopes: ['identity.match'], rateLimit: { points: 120, per: 'minute' }, successStatus: 200, latency: ['85ms', '220ms'] },
  { id: 'identity.resolve', method: 'POST', path: '/api/identity/resolve', product: 'identity', summary: 'Resolve or create a GPID', auth: 'service', scopes: ['identity.resolve'], rateLimit: { points: 60, per: 'minute' }, successStatus: 200, latency: ['120ms', '350ms'] },
  {
    id: 'identity.get',
    method: 'GET',
    path: '/api/identity/{gpid}',
    product: 'identity',
    summary: 'Get identity record',
    auth: 'bearer',
    scopes: ['identity.read', 'cms.admin'],
    rateLimit: { points: 120, per: 'minute' },
    successStatus: 200,
    latency: ['55ms', '150ms'],
    operation: {
      document: 'query GetIdentity($gpid: ID!) { identity(gpid: $gpid) { gpid entityType status survivorGpid createdAt updatedAt } }',
      variables: ({ params }) => {
        const gpid = params['gpid'] ?? '';
        if (!isPatientGpid(gpid) && !isSystemGpid(gpid)) {
          throw new DomainError('VALIDATION_ERROR', 'The GPID is malformed.', { fieldErrors: [{ field: 'gpid', message: 'must be SVC- and 8 uppercase hex characters, or {PRD}-{TYPE}-{N}' }] });
        }
        return { gpid };
      },
      result: (data, { params }) => {
        const record = data['identity'];
        if (!record) throw new DomainError('NOT_FOUND', `No identity record has GPID ${params['gpid']}.`);
        const { status, ...rest } = record as Record<string, unknown>;
        return snakeKeys({ ...rest, identityStatus: status });
      },
    },
  },
  { id: 'identity.merge', method: 'POST', path: '/api/identity/merge', product: 'identity', summary: 'Merge GPIDs into a survivor; needs a merge reason; approval required', auth: 'bearer', scopes: ['identity.merge', 'identity.approve'], rateLimit: { points: 10, per: 'minute' }, successStatus: 200, latency: ['300ms', '800ms'] },
  { id: 'identity.split', method: 'POST', path: '/api/identity/split', product: 'identity', summary: 'Split a falsely merged GPID; needs a split reason; approval required', auth: 'bearer', scopes: ['identity.split', 'identity.approve'], rateLimit: { points: 10, per: 'minute' }, successStatus: 200, latency: ['350ms', '900ms'] },
];
