/**
 * The wearable reading types: how each becomes a FHIR R4 Observation.
 *
 * Sources of the codes and units:
 * - FHIR R4 vital signs profile (http://hl7.org/fhir/R4/observation-vitalsigns.html): the LOINC
 *   codes and UCUM units of heart rate (8867-4, `/min`), oxygen saturation (2708-6, with 59408-5
 *   "by pulse oximetry", which the profile's SpO2 example carries beside it), respiratory rate
 *   (9279-1, `/min`), body temperature (8310-5, `Cel`), body weight (29463-7, `kg`) and the blood
 *   pressure panel (85354-9, components 8480-6 systolic and 8462-4 diastolic in `mm[Hg]`), and the
 *   category `vital-signs`.
 * - LOINC (https://loinc.org): 40443-4 "Heart rate --resting", 80404-7 "R-R interval.standard
 *   deviation (Heart rate variability)", 55423-8 "Number of steps in unspecified time Pedometer",
 *   93832-4 "Sleep duration".
 * - Observation category code system (http://terminology.hl7.org/CodeSystem/observation-category):
 *   `vital-signs`, and `activity` for steps and sleep ("observations that measure or record any
 *   bodily activity that enhances or maintains physical fitness and overall health").
 * - UCUM (https://ucum.org): `{steps}` is a count with an annotation, `h` the hour, `ms` the millisecond.
 *
 * Plausible ranges are the limits of what a living person can show, widened past clinical extremes,
 * so that only a device fault, a unit mix-up (98.6 sent as Cel) or a typo is refused: heart rate
 * 20–300/min (athletes' resting rates in the 30s, ventricular rates near 300), SpO2 50–100 %,
 * respiratory rate 2–80/min, body temperature 24–45 °C (survived hypothermia and hyperthermia
 * cases lie at the edges), weight 0.2–650 kg (premature newborns to the heaviest recorded people),
 * systolic 40–300 and diastolic 20–200 mm[Hg] with systolic above diastolic, HRV (SDNN) 1–500 ms,
 * steps at most 300 a minute over the period (a sprint cadence), sleep at most the period's length.
 */

export const LOINC = 'http://loinc.org';
export const UCUM = 'http://unitsofmeasure.org';
export const OBSERVATION_CATEGORY = 'http://terminology.hl7.org/CodeSystem/observation-category';

export type ReadingCategory = 'vital-signs' | 'activity';

export interface Coding {
  system: string;
  code: string;
  display: string;
}

export interface QuantityRule {
  /** The UCUM code the value is stored in. */
  ucum: string;
  /** The human-readable unit written in Quantity.unit. */
  unitDisplay: string;
  min: number;
  max: number;
  /** Decimal places kept after a unit conversion. */
  decimals: number;
}

export interface ReadingType {
  /** The `type` a partner sends. */
  type: string;
  /** Observation.code: the first coding is the reading's own LOINC code. */
  codings: readonly Coding[];
  category: ReadingCategory;
  /** `quantity`: one value; `blood-pressure`: { systolic, diastolic } as components. */
  shape: 'quantity' | 'blood-pressure';
  quantity: QuantityRule;
  /** A count or duration must say over which period it was measured. */
  needsPeriod: boolean;
  /** Only whole numbers (a step count). */
  integer: boolean;
}

const loinc = (code: string, display: string): Coding => ({ system: LOINC, code, display });

const PER_MINUTE = (min: number, max: number, unitDisplay: string): QuantityRule => ({ ucum: '/min', unitDisplay, min, max, decimals: 1 });

/** Blood pressure components (vital signs profile: 8480-6 and 8462-4 in mm[Hg]). */
export const BP_COMPONENTS = {
  systolic: { coding: loinc('8480-6', 'Systolic blood pressure'), min: 40, max: 300 },
  diastolic: { coding: loinc('8462-4', 'Diastolic blood pressure'), min: 20, max: 200 },
} as const;

export const READING_TYPES: readonly ReadingType[] = [
  { type: 'heart_rate', codings: [loinc('8867-4', 'Heart rate')], category: 'vital-signs', shape: 'quantity', quantity: PER_MINUTE(20, 300, 'beats/minute'), needsPeriod: false, integer: false },
  { type: 'resting_heart_rate', codings: [loinc('40443-4', 'Heart rate --resting')], category: 'vital-signs', shape: 'quantity', quantity: PER_MINUTE(20, 250, 'beats/minute'), needsPeriod: false, integer: false },
  { type: 'heart_rate_variability', codings: [loinc('80404-7', 'R-R interval.standard deviation (Heart rate variability)')], category: 'vital-signs', shape: 'quantity', quantity: { ucum: 'ms', unitDisplay: 'ms', min: 1, max: 500, decimals: 1 }, needsPeriod: false, integer: false },
  {
    type: 'spo2',
    codings: [loinc('2708-6', 'Oxygen saturation in Arterial blood'), loinc('59408-5', 'Oxygen saturation in Arterial blood by Pulse oximetry')],
    category: 'vital-signs',
    shape: 'quantity',
    quantity: { ucum: '%', unitDisplay: '%', min: 50, max: 100, decimals: 1 },
    needsPeriod: false,
    integer: false,
  },
  { type: 'respiratory_rate', codings: [loinc('9279-1', 'Respiratory rate')], category: 'vital-signs', shape: 'quantity', quantity: PER_MINUTE(2, 80, 'breaths/minute'), needsPeriod: false, integer: false },
  { type: 'body_temperature', codings: [loinc('8310-5', 'Body temperature')], category: 'vital-signs', shape: 'quantity', quantity: { ucum: 'Cel', unitDisplay: '°C', min: 24, max: 45, decimals: 2 }, needsPeriod: false, integer: false },
  { type: 'body_weight', codings: [loinc('29463-7', 'Body weight')], category: 'vital-signs', shape: 'quantity', quantity: { ucum: 'kg', unitDisplay: 'kg', min: 0.2, max: 650, decimals: 3 }, needsPeriod: false, integer: false },
  {
    type: 'blood_pressure',
    codings: [loinc('85354-9', 'Blood pressure panel with all children optional')],
    category: 'vital-signs',
    shape: 'blood-pressure',
    quantity: { ucum: 'mm[Hg]', unitDisplay: 'mmHg', min: 20, max: 300, decimals: 0 },
    needsPeriod: false,
    integer: false,
  },
  { type: 'steps', codings: [loinc('55423-8', 'Number of steps in unspecified time Pedometer')], category: 'activity', shape: 'quantity', quantity: { ucum: '{steps}', unitDisplay: 'steps', min: 0, max: 200_000, decimals: 0 }, needsPeriod: true, integer: true },
  { type: 'sleep_duration', codings: [loinc('93832-4', 'Sleep duration')], category: 'activity', shape: 'quantity', quantity: { ucum: 'h', unitDisplay: 'h', min: 0, max: 24, decimals: 2 }, needsPeriod: true, integer: false },
];

/** Most steps a minute, over the reading's period. */
export const MAX_STEPS_PER_MINUTE = 300;

const BY_TYPE = new Map(READING_TYPES.map((t) => [t.type, t]));

export function readingType(type: string): ReadingType | undefined {
  return BY_TYPE.get(type);
}

export const READING_TYPE_NAMES: readonly string[] = READING_TYPES.map((t) => t.type);

export const CATEGORY_DISPLAY: Record<ReadingCategory, string> = { 'vital-signs': 'Vital Signs', activity: 'Activity' };
