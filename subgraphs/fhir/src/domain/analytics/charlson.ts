import { ICD10, ICD10CM } from './vocabulary.js';

/**
 * The Charlson Comorbidity Index from ICD-10 coded conditions.
 *
 * - Categories and their ICD-10 codes: the enhanced ICD-10 coding algorithm of Quan H, Sundararajan
 *   V, Halfon P, et al. "Coding algorithms for defining comorbidities in ICD-9-CM and ICD-10
 *   administrative data." Med Care 2005;43(11):1130-1139 (Table 1). Codes match by prefix on the
 *   code without its dot, so the algorithm's `E11.2` covers ICD-10-CM `E11.22`; ICD-10-CM codes are
 *   read with the same table (as the common implementations do).
 * - Weights: `quan-2011` (default), the updated weights of Quan H, Li B, Couris CM, et al.
 *   "Updating and validating the Charlson comorbidity index and score for risk adjustment in
 *   hospital discharge abstracts using data from 6 countries." Am J Epidemiol 2011;173(6):676-682
 *   (maximum 24); or `charlson-1987`, the original weights of Charlson ME, Pompei P, Ales KL,
 *   MacKenzie CR. J Chronic Dis 1987;40(5):373-383.
 * - Hierarchy (as both papers score it): a category is counted once however many codes it has;
 *   moderate/severe liver disease replaces mild liver disease, diabetes with chronic complication
 *   replaces diabetes without, metastatic solid tumour replaces any malignancy.
 * - Optional age adjustment (Charlson M, Szatrowski TP, Peterson J, Gold J. J Clin Epidemiol
 *   1994;47(11):1245-1251): one point per decade from 50 (50-59: 1, 60-69: 2, 70-79: 3, 80+: 4).
 */

export const CHARLSON_ALGORITHMS = ['quan-2011', 'charlson-1987'] as const;
export type CharlsonWeights = (typeof CHARLSON_ALGORITHMS)[number];

/** The version of the coding table and scoring rules; bumped whenever either changes. */
export const CHARLSON_VERSION = 'cci-icd10-quan2005/1.0.0';

interface Category {
  id: string;
  display: string;
  weights: Record<CharlsonWeights, number>;
  /** ICD-10 codes without dots: 3 characters for a category, 4 for a subcategory; `A00-A03` for a range of same-length codes. */
  codes: string[];
  /** A category that, when present, replaces this one. */
  replacedBy?: string;
}

/** Expand `I42.5-I42.9` style ranges (same length, same prefix but the last character). */
function codes(...specs: string[]): string[] {
  return specs.flatMap((spec) => {
    const [from, to] = spec.replace(/\./g, '').split('-') as [string, string | undefined];
    if (!to) return [from];
    const out: string[] = [];
    const width = from.length;
    const prefix = from.slice(0, width - (from.length === 3 ? 2 : 1));
    const start = Number(from.slice(prefix.length));
    const end = Number(to.slice(prefix.length));
    for (let n = start; n <= end; n++) out.push(prefix + String(n).padStart(width - prefix.length, '0'));
    return out;
  });
}

export const CHARLSON_CATEGORIES: readonly Category[] = [
  { id: 'myocardial_infarction', display: 'Myocardial infarction', weights: { 'quan-2011': 0, 'charlson-1987': 1 }, codes: codes('I21', 'I22', 'I25.2') },
  {
    id: 'congestive_heart_failure',
    display: 'Congestive heart failure',
    weights: { 'quan-2011': 2, 'charlson-1987': 1 },
    codes: codes('I09.9', 'I11.0', 'I13.0', 'I13.2', 'I25.5', 'I42.0', 'I42.5-I42.9', 'I43', 'I50', 'P29.0'),
  },
  {
    id: 'peripheral_vascular_disease',
    display: 'Peripheral vascular disease',
    weights: { 'quan-2011': 0, 'charlson-1987': 1 },
    codes: codes('I70', 'I71', 'I73.1', 'I73.8', 'I73.9', 'I77.1', 'I79.0', 'I79.2', 'K55.1', 'K55.8', 'K55.9', 'Z95.8', 'Z95.9'),
  },
  { id: 'cerebrovascular_disease', display: 'Cerebrovascular disease', weights: { 'quan-2011': 0, 'charlson-1987': 1 }, codes: codes('G45', 'G46', 'H34.0', 'I60-I69') },
  { id: 'dementia', display: 'Dementia', weights: { 'quan-2011': 2, 'charlson-1987': 1 }, codes: codes('F00-F03', 'F05.1', 'G30', 'G31.1') },
  {
    id: 'chronic_pulmonary_disease',
    display: 'Chronic pulmonary disease',
    weights: { 'quan-2011': 1, 'charlson-1987': 1 },
    codes: codes('I27.8', 'I27.9', 'J40-J47', 'J60-J67', 'J68.4', 'J70.1', 'J70.3'),
  },
  { id: 'rheumatic_disease', display: 'Rheumatic disease', weights: { 'quan-2011': 1, 'charlson-1987': 1 }, codes: codes('M05', 'M06', 'M31.5', 'M32-M34', 'M35.1', 'M35.3', 'M36.0') },
  { id: 'peptic_ulcer_disease', display: 'Peptic ulcer disease', weights: { 'quan-2011': 0, 'charlson-1987': 1 }, codes: codes('K25-K28') },
  {
    id: 'mild_liver_disease',
    display: 'Mild liver disease',
    weights: { 'quan-2011': 2, 'charlson-1987': 1 },
    codes: codes('B18', 'K70.0-K70.3', 'K70.9', 'K71.3-K71.5', 'K71.7', 'K73', 'K74', 'K76.0', 'K76.2-K76.4', 'K76.8', 'K76.9', 'Z94.4'),
    replacedBy: 'moderate_severe_liver_disease',
  },
  {
    id: 'diabetes_without_chronic_complication',
    display: 'Diabetes without chronic complication',
    weights: { 'quan-2011': 0, 'charlson-1987': 1 },
    codes: ['E10', 'E11', 'E12', 'E13', 'E14'].flatMap((c) => ['0', '1', '6', '8', '9'].map((d) => c + d)),
    replacedBy: 'diabetes_with_chronic_complication',
  },
  {
    id: 'diabetes_with_chronic_complication',
    display: 'Diabetes with chronic complication',
    weights: { 'quan-2011': 1, 'charlson-1987': 2 },
    codes: ['E10', 'E11', 'E12', 'E13', 'E14'].flatMap((c) => ['2', '3', '4', '5', '7'].map((d) => c + d)),
  },
  {
    id: 'hemiplegia_or_paraplegia',
    display: 'Hemiplegia or paraplegia',
    weights: { 'quan-2011': 2, 'charlson-1987': 2 },
    codes: codes('G04.1', 'G11.4', 'G80.1', 'G80.2', 'G81', 'G82', 'G83.0-G83.4', 'G83.9'),
  },
  {
    id: 'renal_disease',
    display: 'Renal disease',
    weights: { 'quan-2011': 1, 'charlson-1987': 2 },
    codes: codes('I12.0', 'I13.1', 'N03.2-N03.7', 'N05.2-N05.7', 'N18', 'N19', 'N25.0', 'Z49.0-Z49.2', 'Z94.0', 'Z99.2'),
  },
  {
    id: 'any_malignancy',
    display: 'Any malignancy, including lymphoma and leukaemia, except malignant neoplasm of skin',
    weights: { 'quan-2011': 2, 'charlson-1987': 2 },
    codes: codes('C00-C26', 'C30-C34', 'C37-C41', 'C43', 'C45-C58', 'C60-C76', 'C81-C85', 'C88', 'C90-C97'),
    replacedBy: 'metastatic_solid_tumor',
  },
  {
    id: 'moderate_severe_liver_disease',
    display: 'Moderate or severe liver disease',
    weights: { 'quan-2011': 4, 'charlson-1987': 3 },
    codes: codes('I85.0', 'I85.9', 'I86.4', 'I98.2', 'K70.4', 'K71.1', 'K72.1', 'K72.9', 'K76.5', 'K76.6', 'K76.7'),
  },
  { id: 'metastatic_solid_tumor', display: 'Metastatic solid tumour', weights: { 'quan-2011': 6, 'charlson-1987': 6 }, codes: codes('C77-C80') },
  { id: 'aids_hiv', display: 'AIDS/HIV', weights: { 'quan-2011': 4, 'charlson-1987': 6 }, codes: codes('B20-B22', 'B24') },
];

/** A condition of the patient as the score reads it. */
export interface CodedCondition {
  /** The Condition's logical id. */
  id: string;
  system: string;
  code: string;
  display: string | null;
}

export interface CharlsonComponent {
  category: string;
  display: string;
  weight: number;
  /** The codes that put the patient in the category, with the Conditions they come from. */
  evidence: { condition_id: string; system: string; code: string; display: string | null }[];
  /** Present and scored 0 because a higher category of the hierarchy replaces it. */
  replaced_by: string | null;
}

export interface CharlsonResult {
  score: number;
  comorbidity_score: number;
  age_points: number;
  age: number | null;
  weights: CharlsonWeights;
  version: string;
  components: CharlsonComponent[];
  /** Conditions coded in ICD-10 that fall in no category, and conditions without an ICD-10 code. */
  conditions_without_category: number;
  conditions_not_icd10: number;
}

/** The category of one ICD-10 code (longest matching prefix wins: a 4-character subcategory before its 3-character category). */
function categoryOf(code: string): Category | undefined {
  const bare = code.replace(/\./g, '').toUpperCase();
  for (const length of [4, 3]) {
    const prefix = bare.slice(0, length);
    if (prefix.length < length) continue;
    const found = CHARLSON_CATEGORIES.find((c) => c.codes.includes(prefix));
    if (found) return found;
  }
  return undefined;
}

/** One point per decade from 50, at most 4 (Charlson 1994). */
export function agePoints(age: number): number {
  if (age < 50) return 0;
  return Math.min(4, Math.floor((age - 40) / 10));
}

/** The Charlson index of a patient's conditions. `age` null: no age adjustment. */
export function charlsonIndex(conditions: readonly CodedCondition[], weights: CharlsonWeights, age: number | null): CharlsonResult {
  const found = new Map<string, CharlsonComponent['evidence']>();
  let notIcd10 = new Set<string>();
  let withoutCategory = new Set<string>();
  const icd10Ids = new Set(conditions.filter((c) => c.system === ICD10 || c.system === ICD10CM).map((c) => c.id));
  notIcd10 = new Set(conditions.filter((c) => !icd10Ids.has(c.id)).map((c) => c.id));
  const categorised = new Set<string>();
  for (const c of conditions) {
    if (c.system !== ICD10 && c.system !== ICD10CM) continue;
    const category = categoryOf(c.code);
    if (!category) continue;
    categorised.add(c.id);
    const evidence = found.get(category.id) ?? [];
    if (!evidence.some((e) => e.condition_id === c.id && e.code === c.code)) evidence.push({ condition_id: c.id, system: c.system, code: c.code, display: c.display });
    found.set(category.id, evidence);
  }
  withoutCategory = new Set([...icd10Ids].filter((id) => !categorised.has(id)));
  const components: CharlsonComponent[] = CHARLSON_CATEGORIES.filter((c) => found.has(c.id)).map((c) => {
    const replaced = c.replacedBy && found.has(c.replacedBy) ? c.replacedBy : null;
    return { category: c.id, display: c.display, weight: replaced ? 0 : c.weights[weights], evidence: found.get(c.id)!, replaced_by: replaced };
  });
  const comorbidity = components.reduce((sum, c) => sum + c.weight, 0);
  const points = age === null ? 0 : agePoints(age);
  return {
    score: comorbidity + points,
    comorbidity_score: comorbidity,
    age_points: points,
    age,
    weights,
    version: CHARLSON_VERSION,
    components,
    conditions_without_category: withoutCategory.size,
    conditions_not_icd10: notIcd10.size,
  };
}
