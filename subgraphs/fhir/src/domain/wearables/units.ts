import ucum from '@lhncbc/ucum-lhc';

/**
 * Units of wearable readings: UCUM codes, the spellings devices commonly send, and conversion to the
 * unit a reading type is stored in. Conversion is done by @lhncbc/ucum-lhc, the National Library of
 * Medicine's UCUM implementation (the one behind its UCUM validator and fhirpath.js), so every
 * conversion UCUM defines works ([degF] → Cel, [lb_av] → kg, kPa → mm[Hg], min → h), and units of
 * another dimension are refused.
 */

const utils = ucum.UcumLhcUtils.getInstance();

/**
 * Spellings that are not UCUM codes (or are UCUM codes of something else: `C` is the coulomb, `F`
 * the farad), read before UCUM so a device's `°F` or `bpm` means what it means on the device.
 * Keys are lowercase; matching ignores case and surrounding spaces.
 */
const ALIASES: Readonly<Record<string, string>> = {
  bpm: '/min',
  'beats/min': '/min',
  'beats/minute': '/min',
  'beats per minute': '/min',
  'breaths/min': '/min',
  'breaths/minute': '/min',
  'breaths per minute': '/min',
  '/minute': '/min',
  '1/min': '/min',
  '{beats}/min': '/min',
  '{breaths}/min': '/min',
  '°c': 'Cel',
  c: 'Cel',
  degc: 'Cel',
  'deg c': 'Cel',
  celsius: 'Cel',
  cel: 'Cel',
  '°f': '[degF]',
  f: '[degF]',
  degf: '[degF]',
  'deg f': '[degF]',
  fahrenheit: '[degF]',
  lb: '[lb_av]',
  lbs: '[lb_av]',
  pound: '[lb_av]',
  pounds: '[lb_av]',
  kgs: 'kg',
  kilograms: 'kg',
  mmhg: 'mm[Hg]',
  'mm hg': 'mm[Hg]',
  steps: '{steps}',
  step: '{steps}',
  count: '{steps}',
  hours: 'h',
  hour: 'h',
  hr: 'h',
  hrs: 'h',
  minutes: 'min',
  mins: 'min',
  seconds: 's',
  sec: 's',
  percent: '%',
  milliseconds: 'ms',
};

export type UnitConversion = { ok: true; value: number; from: string } | { ok: false; message: string };

/** The UCUM code a unit as sent stands for, or null when it is neither an alias nor valid UCUM. */
export function ucumCodeOf(unit: string): string | null {
  const trimmed = unit.trim();
  const alias = ALIASES[trimmed.toLowerCase()];
  if (alias) return alias;
  const checked = utils.validateUnitString(trimmed);
  return checked.status === 'valid' && checked.ucumCode ? checked.ucumCode : null;
}

/** `value unit` in `target` (a UCUM code), rounded to `decimals`; a failure says why in words. */
export function convertTo(value: number, unit: string, target: string, decimals: number): UnitConversion {
  const from = ucumCodeOf(unit);
  if (from === null) return { ok: false, message: `"${unit.slice(0, 40)}" is not a UCUM unit nor a known spelling of one` };
  if (from === target) return { ok: true, value, from };
  const converted = utils.convertUnitTo(from, value, target);
  if (converted.status !== 'succeeded' || converted.toVal === null || !Number.isFinite(converted.toVal)) {
    return { ok: false, message: `${from} cannot be converted to ${target} (expected a unit of the same kind as ${target})` };
  }
  const factor = 10 ** decimals;
  return { ok: true, value: Math.round(converted.toVal * factor) / factor, from };
}
