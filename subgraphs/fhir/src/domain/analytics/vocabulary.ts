/**
 * The clinical words a question may use, mapped to code sets. Conditions are matched by SNOMED CT
 * concept (exact codes: the store has no terminology server to expand descendants, so the common
 * clinical-finding codes of each value set are listed) and by ICD-10 / ICD-10-CM category (prefix
 * match, so `E11` covers `E11.9` and `E11.65`). Observations are matched by LOINC code and averaged in
 * their UCUM unit. Every entry names the published value set it follows.
 */

export const SNOMED = 'http://snomed.info/sct';
export const ICD10CM = 'http://hl7.org/fhir/sid/icd-10-cm';
export const ICD10 = 'http://hl7.org/fhir/sid/icd-10';
export const LOINC = 'http://loinc.org';
export const UCUM = 'http://unitsofmeasure.org';

/** One code of a code set: an exact code, or every code starting with it (ICD-10 categories). */
export interface CodeMatch {
  system: string;
  code: string;
  match: 'exact' | 'prefix';
}

export interface ConditionConcept {
  concept: string;
  display: string;
  /** Phrases a question may use, lower case; the longest match wins. */
  phrases: readonly string[];
  codes: readonly CodeMatch[];
  source: string;
}

const snomed = (...codes: string[]): CodeMatch[] => codes.map((code) => ({ system: SNOMED, code, match: 'exact' }));
/** An ICD-10 category in both the WHO edition and the US clinical modification. */
const icd10 = (...categories: string[]): CodeMatch[] => categories.flatMap((code) => [ICD10CM, ICD10].map((system) => ({ system, code, match: 'prefix' as const })));

const VSAC = (name: string, oid: string) => `VSAC value set "${name}" (OID ${oid}), eCQM value sets of the National Library of Medicine`;

export const CONDITIONS: readonly ConditionConcept[] = [
  {
    concept: 'type-2-diabetes',
    display: 'Type 2 diabetes mellitus',
    phrases: ['type 2 diabetes', 'type ii diabetes', 'diabetes type 2', 'diabetes mellitus type 2', 't2dm', 'type 2 diabetic'],
    codes: [...snomed('44054006'), ...icd10('E11')],
    source: 'SNOMED CT 44054006 |Diabetes mellitus type 2|; ICD-10 category E11',
  },
  {
    concept: 'type-1-diabetes',
    display: 'Type 1 diabetes mellitus',
    phrases: ['type 1 diabetes', 'type i diabetes', 'diabetes type 1', 'diabetes mellitus type 1', 't1dm', 'type 1 diabetic'],
    codes: [...snomed('46635009'), ...icd10('E10')],
    source: 'SNOMED CT 46635009 |Diabetes mellitus type 1|; ICD-10 category E10',
  },
  {
    concept: 'diabetes',
    display: 'Diabetes mellitus',
    phrases: ['diabetes mellitus', 'diabetes', 'diabetic'],
    codes: [...snomed('73211009', '44054006', '46635009', '190330002', '11687002', '8801005'), ...icd10('E08', 'E09', 'E10', 'E11', 'E13', 'E14')],
    source: `${VSAC('Diabetes', '2.16.840.1.113883.3.464.1003.103.12.1001')}: ICD-10 E08-E14 (E14 in the WHO edition) and the SNOMED CT diabetes mellitus concepts`,
  },
  {
    concept: 'hypertension',
    display: 'Hypertension',
    phrases: ['hypertension', 'high blood pressure', 'hypertensive', 'htn'],
    codes: [...snomed('38341003', '59621000', '1201005'), ...icd10('I10', 'I11', 'I12', 'I13', 'I15', 'I16')],
    source: `${VSAC('Essential Hypertension', '2.16.840.1.113883.3.464.1003.104.12.1011')} widened to ICD-10 I10-I16 (hypertensive diseases)`,
  },
  {
    concept: 'asthma',
    display: 'Asthma',
    phrases: ['asthma', 'asthmatic'],
    codes: [...snomed('195967001', '233678006', '370218001', '426979002'), ...icd10('J45', 'J46')],
    source: `${VSAC('Asthma', '2.16.840.1.113883.3.526.3.362')}: ICD-10 J45 (J46 in the WHO edition)`,
  },
  {
    concept: 'copd',
    display: 'Chronic obstructive pulmonary disease',
    phrases: ['chronic obstructive pulmonary disease', 'copd', 'emphysema', 'chronic bronchitis'],
    codes: [...snomed('13645005', '87433001', '63480004'), ...icd10('J41', 'J42', 'J43', 'J44')],
    source: `${VSAC('Chronic Obstructive Pulmonary Disease', '2.16.840.1.113883.3.464.1003.102.12.1015')}: ICD-10 J41-J44`,
  },
  {
    concept: 'heart-failure',
    display: 'Heart failure',
    phrases: ['congestive heart failure', 'heart failure', 'chf'],
    codes: [...snomed('84114007', '42343007', '85232009'), ...icd10('I50')],
    source: `${VSAC('Heart Failure', '2.16.840.1.113883.3.526.3.376')}: ICD-10 I50`,
  },
  {
    concept: 'chronic-kidney-disease',
    display: 'Chronic kidney disease',
    phrases: ['chronic kidney disease', 'ckd', 'chronic renal failure', 'chronic renal disease'],
    codes: [...snomed('709044004', '431855005', '431856006', '433144002', '431857002', '433146000'), ...icd10('N18')],
    source: 'KDIGO / VSAC "Chronic Kidney Disease, All Stages (1-5)" (OID 2.16.840.1.113883.3.526.3.1002): ICD-10 N18',
  },
  {
    concept: 'atrial-fibrillation',
    display: 'Atrial fibrillation',
    phrases: ['atrial fibrillation', 'afib', 'a-fib'],
    codes: [...snomed('49436004', '282825002', '426749004'), ...icd10('I48')],
    source: `${VSAC('Atrial Fibrillation/Flutter', '2.16.840.1.113883.3.117.1.7.1.202')}: ICD-10 I48`,
  },
  {
    concept: 'coronary-artery-disease',
    display: 'Coronary artery disease',
    phrases: ['coronary artery disease', 'coronary heart disease', 'ischemic heart disease', 'ischaemic heart disease', 'cad'],
    codes: [...snomed('53741008', '414545008'), ...icd10('I20', 'I21', 'I22', 'I23', 'I24', 'I25')],
    source: 'ICD-10 I20-I25 (ischaemic heart diseases, WHO ICD-10 chapter IX block); SNOMED CT 53741008 |Coronary arteriosclerosis|',
  },
  {
    concept: 'stroke',
    display: 'Stroke',
    phrases: ['stroke', 'cerebrovascular accident', 'cva'],
    codes: [...snomed('230690007', '422504002', '230706003'), ...icd10('I60', 'I61', 'I63', 'I64')],
    source: `${VSAC('Ischemic Stroke', '2.16.840.1.113883.3.117.1.7.1.247')} widened to haemorrhagic stroke: ICD-10 I60, I61, I63, I64`,
  },
  {
    concept: 'obesity',
    display: 'Obesity',
    phrases: ['obesity', 'obese'],
    codes: [...snomed('414916001', '238136002'), ...icd10('E66')],
    source: 'ICD-10 category E66 (obesity); SNOMED CT 414916001 |Obesity|',
  },
  {
    concept: 'depression',
    display: 'Depression',
    phrases: ['major depressive disorder', 'depression', 'depressive disorder', 'depressed'],
    codes: [...snomed('35489007', '370143000', '36923009'), ...icd10('F32', 'F33')],
    source: `${VSAC('Major Depression', '2.16.840.1.113883.3.526.3.1491')}: ICD-10 F32, F33`,
  },
  {
    concept: 'hyperlipidemia',
    display: 'Hyperlipidaemia',
    phrases: ['hyperlipidemia', 'hyperlipidaemia', 'high cholesterol', 'hypercholesterolemia', 'dyslipidemia'],
    codes: [...snomed('55822004', '13644009', '370992007'), ...icd10('E78')],
    source: 'ICD-10 category E78 (disorders of lipoprotein metabolism); SNOMED CT 55822004 |Hyperlipidemia|',
  },
];

export interface ObservationConcept {
  concept: string;
  display: string;
  phrases: readonly string[];
  loinc: readonly string[];
  /** UCUM code the values are averaged in; values recorded in other units are left out and counted. */
  unit: string;
  source: string;
}

const VITALS = 'FHIR R4 vital signs profile (http://hl7.org/fhir/R4/observation-vitalsigns.html)';

export const OBSERVATIONS: readonly ObservationConcept[] = [
  { concept: 'heart-rate', display: 'Heart rate', phrases: ['heart rate', 'pulse rate', 'pulse', 'hr'], loinc: ['8867-4'], unit: '/min', source: `LOINC 8867-4, ${VITALS}` },
  { concept: 'respiratory-rate', display: 'Respiratory rate', phrases: ['respiratory rate', 'breathing rate'], loinc: ['9279-1'], unit: '/min', source: `LOINC 9279-1, ${VITALS}` },
  { concept: 'oxygen-saturation', display: 'Oxygen saturation', phrases: ['oxygen saturation', 'spo2', 'o2 saturation', 'blood oxygen'], loinc: ['2708-6', '59408-5'], unit: '%', source: `LOINC 2708-6 and 59408-5, ${VITALS}` },
  { concept: 'body-temperature', display: 'Body temperature', phrases: ['body temperature', 'temperature'], loinc: ['8310-5'], unit: 'Cel', source: `LOINC 8310-5, ${VITALS}` },
  { concept: 'body-weight', display: 'Body weight', phrases: ['body weight', 'weight'], loinc: ['29463-7'], unit: 'kg', source: `LOINC 29463-7, ${VITALS}` },
  { concept: 'body-height', display: 'Body height', phrases: ['body height', 'height'], loinc: ['8302-2'], unit: 'cm', source: `LOINC 8302-2, ${VITALS}` },
  { concept: 'bmi', display: 'Body mass index', phrases: ['body mass index', 'bmi'], loinc: ['39156-5'], unit: 'kg/m2', source: `LOINC 39156-5, ${VITALS}` },
  { concept: 'hba1c', display: 'Hemoglobin A1c', phrases: ['hemoglobin a1c', 'haemoglobin a1c', 'hba1c', 'a1c'], loinc: ['4548-4'], unit: '%', source: 'LOINC 4548-4 |Hemoglobin A1c/Hemoglobin.total in Blood|' },
  { concept: 'glucose', display: 'Blood glucose', phrases: ['blood glucose', 'blood sugar', 'glucose'], loinc: ['2339-0', '2345-7'], unit: 'mg/dL', source: 'LOINC 2339-0 (blood) and 2345-7 (serum or plasma) glucose' },
  { concept: 'total-cholesterol', display: 'Total cholesterol', phrases: ['total cholesterol', 'cholesterol'], loinc: ['2093-3'], unit: 'mg/dL', source: 'LOINC 2093-3 |Cholesterol [Mass/volume] in Serum or Plasma|' },
  { concept: 'steps', display: 'Step count', phrases: ['step count', 'steps'], loinc: ['55423-8', '41950-7'], unit: '{steps}', source: 'LOINC 55423-8 |Number of steps in unspecified time Pedometer| and 41950-7 |Number of steps in 24 hour Measured|' },
];
