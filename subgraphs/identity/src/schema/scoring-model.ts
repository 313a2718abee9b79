import type { SubgraphBuilder } from '@svc/platform';
import type { StoredScoringModel } from '../entities/scoring-models.js';
import type { IdentityService } from '../identity-service.js';

/** The versions of the scoring model: read, list, train, activate (roll back or forward); operators only. */
export function defineScoringModel(builder: SubgraphBuilder, service: IdentityService) {
  const Model = builder.objectRef<StoredScoringModel>('IdentityScoringModel').implement({
    description:
      'A version of the match scoring model (Fellegi–Sunter): m and u per comparison level, term frequencies of common values (keyed fingerprints, no clear demographics). Version 1 is the built-in hand-set model.',
    fields: (t) => ({
      version: t.exposeInt('version'),
      active: t.exposeBoolean('active', { description: 'Whether match and resolve score with this version.' }),
      seed: t.exposeInt('seed', { description: 'The seed of the training (the same records, labels and seed give the same model); 0 for version 1.' }),
      trainedBy: t.exposeString('trainedBy', { nullable: true, description: 'The operator who trained it; null for version 1.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime', nullable: true }),
      summary: t.field({ type: 'JSONObject', nullable: true, description: 'Registry records, inbound records, random pairs (u), blocked and labelled pairs, the EM rounds (one per blocking rule: pairs, iterations, convergence, share of the same person), which levels were estimated, and the prior estimated from the inbound records (null when kept).', resolve: (m) => (m.summary ? { ...m.summary } : null) }),
      parameters: t.field({ type: 'JSONObject', description: 'The model: per comparison, m and u of each level; priorLog2Odds; termFrequencies.', resolve: (m) => ({ ...m.model }) }),
    }),
  });

  const Version = builder.objectRef<Omit<StoredScoringModel, 'model'>>('IdentityScoringModelVersion').implement({
    description: 'A version of the match scoring model without its parameters (read them with identityScoringModel(version)).',
    fields: (t) => ({
      version: t.exposeInt('version'),
      active: t.exposeBoolean('active'),
      seed: t.exposeInt('seed'),
      trainedBy: t.exposeString('trainedBy', { nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime', nullable: true }),
      summary: t.field({ type: 'JSONObject', nullable: true, resolve: (m) => (m.summary ? { ...m.summary } : null) }),
    }),
  });

  const Label = builder.inputType('IdentityTrainingLabelInput', {
    description: 'A pair of records an operator decided on: the same person or not. It joins the training with that answer fixed.',
    fields: (t) => ({
      leftRecordId: t.id({ required: true, description: 'A GPID.' }),
      rightRecordId: t.id({ required: true, description: 'A GPID.' }),
      same: t.boolean({ required: true }),
    }),
  });

  builder.queryFields((t) => ({
    identityScoringModel: t.field({
      type: Model,
      nullable: true,
      description: 'Operators: a version of the match scoring model, the active one when version is omitted; null for an unknown version.',
      args: { version: t.arg.int() },
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, { version }, ctx) => service.scoringModelVersion(ctx.principal, version ?? null),
    }),
    identityScoringModels: t.field({
      type: [Version],
      description: 'Operators: every version of the match scoring model, newest first, the built-in version 1 last.',
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, _args, ctx) => service.scoringModelVersions(ctx.principal),
    }),
  }));

  builder.mutationFields((t) => ({
    trainIdentityScoringModel: t.field({
      type: Model,
      description:
        'Operators: train a new version of the match scoring model on the registry (u from random pairs, m by expectation–maximisation over blocked pairs, term frequencies), with optional labelled pairs, and make it active. Deterministic for a seed.',
      args: {
        seed: t.arg.int({ description: 'Default 1.' }),
        labels: t.arg({ type: [Label], description: 'Pairs decided by an operator (at most 10,000).' }),
      },
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, { seed, labels }, ctx) =>
        service.trainScoringModel(ctx.principal, { seed: seed ?? null, labels: labels ? labels.map((l) => ({ leftRecordId: String(l.leftRecordId), rightRecordId: String(l.rightRecordId), same: l.same })) : null }),
    }),
    activateIdentityScoringModel: t.field({
      type: Model,
      description:
        'Operators: make a stored version the active one again (roll back to an earlier model, or forward to a later one; version 1 is the built-in model). Recorded in the audit chain (identity.scoring_model.activated.v1); the active version answers unchanged and records nothing. NOT_FOUND for an unknown version.',
      args: { version: t.arg.int({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, { version }, ctx) => service.activateScoringModel(ctx.principal, version),
    }),
  }));
}
