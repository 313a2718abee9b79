import { capabilityRoute, validationError } from '@svc/platform';
import type { JsonSchema, RouteSpec } from './route.js';

/**
 * GET /api/partner/certification/checklists: the two checklist definitions (partner_ecosystem with 11
 * required items, identity with 12), public like their GraphQL twin certificationChecklists. A
 * partner's progress on them is GET /api/partner/certification.
 */

interface ChecklistData {
  id: string;
  title: string;
  description: string;
  items: { id: string; title: string; description: string; evidenceKind: string; required: boolean; observation: string | null }[];
}

const ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'description', 'evidence_kind', 'required'],
  properties: {
    id: { type: 'string', description: 'Stable item id; shared by both checklists when it names the same fact.' },
    title: { type: 'string' },
    description: { type: 'string' },
    evidence_kind: { type: 'string', enum: ['observed', 'attested'], description: 'observed: completed only by evidence the platform records; attested: checked off by the partner.' },
    required: { type: 'boolean' },
    observation: { type: ['string', 'null'], description: 'For observed items: what the platform records as evidence.' },
  },
};

export const certificationChecklistsRoute: RouteSpec = {
  id: 'certification.checklists',
  method: 'GET',
  path: '/api/partner/certification/checklists',
  ...capabilityRoute('certification.checklists'),
  summary: 'The certification checklists and their items (definitions only; GET /api/partner/certification shows a partner\'s progress)',
  auth: 'none',
  scopes: [],
  successStatus: 200,
  operation: {
    document: 'query CertificationChecklists { certificationChecklists { id title description items { id title description evidenceKind required observation } } }',
    variables: ({ query }) => {
      const given = Object.keys(query);
      if (given.length > 0) throw validationError(given.map((field) => ({ field, message: 'is not a parameter of this route (it takes none)' })));
      return {};
    },
    result: (data) => ({
      checklists: (data['certificationChecklists'] as ChecklistData[]).map((c) => ({
        id: c.id,
        title: c.title,
        description: c.description,
        items: c.items.map((i) => ({ id: i.id, title: i.title, description: i.description, evidence_kind: i.evidenceKind.toLowerCase(), required: i.required, observation: i.observation })),
      })),
    }),
  },
  responseBody: {
    type: 'object',
    required: ['checklists'],
    properties: {
      checklists: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'title', 'items'],
          properties: { id: { type: 'string', enum: ['partner_ecosystem', 'identity'] }, title: { type: 'string' }, description: { type: 'string' }, items: { type: 'array', items: ITEM_SCHEMA } },
        },
      },
    },
  },
};
