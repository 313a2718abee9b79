import type { CodeMatch } from './vocabulary.js';

/**
 * The reviewable form of an analytics question: what `/analytics/v1/query/nl` answers and stores,
 * and what `/analytics/v1/query/execute` runs. Field names are snake_case as the REST bodies are;
 * every code set is written out in full, so the query a partner reviewed is exactly the query that
 * runs, whatever later versions of the vocabulary say.
 */
export interface StructuredQuery {
  /** Grammar of this document; bumped when a field changes meaning. */
  version: 1;
  /**
   * - `patient_count`: distinct patients in the cohort;
   * - `condition_count`: Condition resources of the named conditions (diagnoses) of cohort patients;
   * - `observation_average`: arithmetic mean of the Observation values of cohort patients.
   */
  measure: 'patient_count' | 'condition_count' | 'observation_average';
  observation: ObservationRef | null;
  cohort: Cohort;
  /** Inclusive UTC calendar dates; `start` null: no lower bound. Relative periods are resolved when the question is read. */
  period: { start: string | null; end: string } | null;
  /** Which date the period (and the grouping) reads. */
  period_applies_to: 'condition_onset' | 'observation_date' | null;
  group_by: 'month' | 'year' | null;
}

export interface Cohort {
  gender: 'female' | 'male' | null;
  /** Completed years of age on the day the query is executed (bounds inclusive). */
  age: { min: number | null; max: number | null } | null;
  /** Patients with a Condition in these code sets (all of them, or any one). */
  conditions: { match: 'all' | 'any'; concepts: ConceptRef[] } | null;
  /** Patients with none of these conditions, at any time. */
  excluded_conditions: ConceptRef[];
}

export interface ConceptRef {
  concept: string;
  display: string;
  codes: CodeMatch[];
  source: string;
}

export interface ObservationRef {
  concept: string;
  display: string;
  loinc: string[];
  unit: string;
  source: string;
}

/** One piece of the question and how it was read. */
export interface Reading {
  text: string;
  meaning: string;
}

export interface Interpretation {
  query: StructuredQuery;
  readings: Reading[];
  /** The query in one English sentence. */
  summary: string;
}

/** Questions the grammar reads, offered when it cannot read one. */
export const EXAMPLE_QUESTIONS: readonly string[] = [
  'How many female patients over 65 with diabetes?',
  'Average heart rate of patients with hypertension in the last 30 days',
  'Monthly count of new asthma diagnoses in 2025',
  'How many patients aged 40 to 60 have hypertension and type 2 diabetes?',
  'Average BMI of men with COPD since March 2025',
  'Number of patients with heart failure but without chronic kidney disease',
];
