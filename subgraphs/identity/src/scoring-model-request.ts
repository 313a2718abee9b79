/**
 * The operator's training request as REST and GraphQL send it, validated field by field: a seed
 * (default 1) and optional labelled pairs of GPIDs.
 */
import { isPatientGpid, isSystemGpid, validationError, type FieldError } from '@svc/platform';
import type { TrainingLabel } from './domain/index.js';

export interface TrainingRequest {
  seed?: number | null;
  labels?: ReadonlyArray<{ leftRecordId?: unknown; rightRecordId?: unknown; same?: unknown }> | null;
}

/** Most labels one request may carry. */
export const MAX_TRAINING_LABELS = 10_000;

const isGpid = (value: unknown): value is string => typeof value === 'string' && (isPatientGpid(value) || isSystemGpid(value));

export function readTrainingRequest(input: TrainingRequest): { seed: number; labels: TrainingLabel[] } {
  const errors: FieldError[] = [];
  const seed = input.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 2_147_483_647) errors.push({ field: 'seed', message: 'must be an integer from 0 to 2147483647' });
  const labels: TrainingLabel[] = [];
  const list = input.labels ?? [];
  if (list.length > MAX_TRAINING_LABELS) errors.push({ field: 'labels', message: `must hold at most ${MAX_TRAINING_LABELS} pairs` });
  else {
    list.forEach((label, i) => {
      if (!isGpid(label.leftRecordId)) errors.push({ field: `labels.${i}.left_record_id`, message: 'must be a GPID' });
      if (!isGpid(label.rightRecordId)) errors.push({ field: `labels.${i}.right_record_id`, message: 'must be a GPID' });
      if (typeof label.same !== 'boolean') errors.push({ field: `labels.${i}.same`, message: 'must be true (same person) or false' });
      if (isGpid(label.leftRecordId) && isGpid(label.rightRecordId) && typeof label.same === 'boolean') {
        labels.push({ leftRecordId: label.leftRecordId, rightRecordId: label.rightRecordId, same: label.same });
      }
    });
  }
  if (errors.length > 0) throw validationError(errors);
  return { seed, labels };
}
