import type { TrainedModel, TrainingLabel } from './domain/index.js';
import { trainScoringModel } from './domain/index.js';
import { trainingObservations } from './entities/resolve-observations.js';
import { listMatchLabels } from './entities/review-queue.js';
import { nextScoringModelVersion, trainingRecords } from './entities/scoring-models.js';
import type { Sql } from './entities/sql.js';

/** Most registry records (the first in GPID order) and inbound records (the newest) one training reads: bounds its time and memory. */
export const MAX_TRAINING_RECORDS = 200_000;
/** Review decisions a training reads as labels (the oldest first). */
const MAX_STORED_LABELS = 100_000;

/** A checked training request (scoring-model-request.ts). */
export interface TrainingCall {
  seed: number;
  labels: TrainingLabel[];
}

/** A model trained on the registry, and the version it is meant to be stored as. */
export interface RegistryTraining extends TrainedModel {
  version: number;
}

/** Where a training runs: the identity subgraph's training thread, or in place (index.ts). */
export type Trainer = (call: TrainingCall) => Promise<RegistryTraining>;

/**
 * Read what a training learns from (the registry's records, the resolves' inbound records, the
 * request's labels and every operator decision of the review queue) and train on it (EM, see
 * domain/stage4-training.ts). Reads and seconds of CPU for a large registry: the subgraph runs it
 * on its training thread, with a connection of its own, and only the model crosses back.
 */
export async function trainOnRegistry(sql: Sql, call: TrainingCall): Promise<RegistryTraining> {
  const labels = [...call.labels, ...(await listMatchLabels(sql, { limit: MAX_STORED_LABELS }))];
  const records = await trainingRecords(sql, MAX_TRAINING_RECORDS);
  const observations = await trainingObservations(sql, MAX_TRAINING_RECORDS);
  const version = await nextScoringModelVersion(sql);
  const trained = await trainScoringModel(records, { seed: call.seed, version, labels, observations });
  return { version, ...trained };
}
