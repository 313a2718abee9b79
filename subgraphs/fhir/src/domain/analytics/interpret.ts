import * as chrono from 'chrono-node';
import { DomainError } from '@svc/platform';
import { CONDITIONS, OBSERVATIONS, type ConditionConcept, type ObservationConcept } from './vocabulary.js';
import { EXAMPLE_QUESTIONS, type ConceptRef, type Interpretation, type Reading, type StructuredQuery } from './structured-query.js';

/**
 * Reads a partner's question into a StructuredQuery with a fixed rule set, offline and
 * deterministically (the same question on the same day always gives the same query). Each rule
 * recognises one kind of phrase (grouping, period, age, gender, condition, measurement, measure)
 * and consumes it; chrono-node reads explicit dates the period rules leave. Whatever is left must
 * be filler words: any other word means the question was not fully understood, and the answer is
 * an error that says what was read, what was not, and which questions work, never a guess.
 */

export const MAX_QUESTION_LENGTH = 500;

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12 };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_RE = `(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`;

/** Words that carry no meaning of their own in the questions partners ask. */
const FILLER = new Set(
  (
    'how many much what whats is are was were be been being the a an of with who whom whose have has had having in on at for our my all any there do does did ' +
    'show me give tell total number count patients patient people persons individuals members population cohort and or by to from among amongst ' +
    'that which this these those diagnosed diagnosis recorded documented registered known living currently please per value values level levels reading readings ' +
    'measured measurement measurements result results year years old aged age ages it its their them they see but also'
  ).split(' '),
);

interface Span {
  start: number;
  end: number;
}

class Reader {
  /** The question in lower case with punctuation blanked; consumed spans are blanked as they are read. */
  text: string;
  readings: { at: number; reading: Reading }[] = [];
  problems: string[] = [];

  constructor(readonly original: string) {
    this.text = original.toLowerCase().replace(/[’']/g, '').replace(/[?!,;:"()]/g, ' ').replace(/\.(?!\d)/g, ' ');
  }

  /** Marks a span as read, keeping offsets (blanked with a separator that no rule matches across). */
  consume(span: Span, meaning: string): void {
    this.readings.push({ at: span.start, reading: { text: this.original.slice(span.start, span.end).trim(), meaning } });
    const length = span.end - span.start;
    this.text = this.text.slice(0, span.start) + (length > 0 ? `|${' '.repeat(length - 1)}` : '') + this.text.slice(span.end);
  }

  /** Every match of a regex in the unread text, earliest first. */
  matches(re: RegExp): RegExpExecArray[] {
    const flags = re.flags.includes('g') ? re.flags : `${re.flags}g`;
    return [...this.text.matchAll(new RegExp(re.source, flags))];
  }

  /** The unread words. */
  leftovers(): string[] {
    return this.text
      .split(/[\s|]+/)
      .map((w) => w.trim())
      .filter((w) => w !== '' && !FILLER.has(w));
  }
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}
function utcDay(y: number, m: number, d: number): Date {
  return new Date(Date.UTC(y, m, d));
}
function addDays(d: Date, n: number): Date {
  return new Date(d.getTime() + n * 86_400_000);
}
function addMonths(d: Date, n: number): Date {
  return utcDay(d.getUTCFullYear(), d.getUTCMonth() + n, d.getUTCDate());
}
function escape(phrase: string): string {
  return phrase.replace(/[.*+?^${}()|[\]\\-]/g, (c) => (c === '-' ? '[- ]?' : `\\${c}`));
}

type Period = { start: string | null; end: string };

function rollingPeriod(today: Date, n: number, unit: string): Period {
  const start = unit === 'day' ? addDays(today, -(n - 1)) : unit === 'week' ? addDays(today, -(7 * n - 1)) : unit === 'month' ? addDays(addMonths(today, -n), 1) : addDays(addMonths(today, -12 * n), 1);
  return { start: isoDate(start), end: isoDate(today) };
}

function calendarPeriod(today: Date, unit: 'month' | 'year', offset: number, toDate: boolean): Period {
  if (unit === 'year') {
    const y = today.getUTCFullYear() + offset;
    return { start: `${y}-01-01`, end: toDate ? isoDate(today) : `${y}-12-31` };
  }
  const first = utcDay(today.getUTCFullYear(), today.getUTCMonth() + offset, 1);
  return { start: isoDate(first), end: toDate ? isoDate(today) : isoDate(addDays(addMonths(first, 1), -1)) };
}

function describePeriod(p: Period): string {
  return p.start ? `${p.start} to ${p.end} (inclusive, UTC)` : `up to ${p.end} (inclusive, UTC)`;
}

/** The calendar range a chrono component stands for (a day, a month or a year). */
function componentRange(c: chrono.ParsedComponents): { start: Date; end: Date } {
  const y = c.get('year')!;
  const m = (c.get('month') ?? 1) - 1;
  if (c.isCertain('day')) {
    const d = utcDay(y, m, c.get('day')!);
    return { start: d, end: d };
  }
  if (c.isCertain('month')) return { start: utcDay(y, m, 1), end: addDays(utcDay(y, m + 1, 1), -1) };
  if (c.isCertain('year')) return { start: utcDay(y, 0, 1), end: utcDay(y, 11, 31) };
  const d = utcDay(y, m, c.get('day')!);
  return { start: d, end: d };
}

/** Requests the language deliberately does not answer, each with what to do instead. */
const UNSUPPORTED: [RegExp, string][] = [
  [/\b(list|names?|identify|which patients|who are)\b/, 'analytics answers aggregates (counts, averages, trends), not lists of patients: use FHIR search (/fhir/R4/Patient?…) for records'],
  [/\b(percentages?|percent|proportions?|ratios?|shares?|fractions?|prevalence)\b/, 'percentages and proportions are not computed: ask for the two counts (the group and the whole)'],
  [/\b(medians?|minimum|maximum|min|max|highest|lowest|sum|total of|standard deviation|percentiles?)\b/, 'the measures are counts and averages ("average …")'],
];

function readUnsupported(r: Reader): void {
  for (const [re, message] of UNSUPPORTED) {
    for (const m of r.matches(re)) {
      r.problems.push(`"${m[1]}": ${message}`);
      r.consume({ start: m.index, end: m.index + m[0].length }, 'not supported');
    }
  }
}

function readGrouping(r: Reader): StructuredQuery['group_by'] {
  let group: StructuredQuery['group_by'] = null;
  const rules: [RegExp, 'month' | 'year', string][] = [
    [/\b(monthly|per month|by month|each month|every month|month by month|month over month)\b/, 'month', 'one value per calendar month'],
    [/\b(yearly|annual|annually|per year|by year|each year|every year|year over year)\b/, 'year', 'one value per calendar year'],
    [/\b(trends?|over time)\b/, 'month', 'a trend: one value per calendar month'],
  ];
  for (const [re, unit, meaning] of rules) {
    for (const m of r.matches(re)) {
      r.consume({ start: m.index, end: m.index + m[0].length }, `group by ${unit}: ${meaning}`);
      group ??= unit;
    }
  }
  for (const m of r.matches(/\b(weekly|per week|by week|each week|daily|per day|by day|each day|quarterly|per quarter|by quarter)\b/)) {
    r.problems.push(`"${m[1]}": results are grouped by month or by year only`);
    r.consume({ start: m.index, end: m.index + m[0].length }, 'unsupported grouping');
  }
  return group;
}

function readPeriod(r: Reader, today: Date): Period | null {
  const found: Period[] = [];
  const take = (m: RegExpExecArray, p: Period, how: string) => {
    found.push(p);
    r.consume({ start: m.index, end: m.index + m[0].length }, `period ${describePeriod(p)}${how ? `: ${how}` : ''}`);
  };
  const n = (s: string | undefined) => (s === undefined ? undefined : (NUMBER_WORDS[s] ?? Number(s)));
  // "last 30 days", "past 6 months", "previous two weeks": a rolling window ending today.
  for (const m of r.matches(/\b(?:(?:in|during|for|within|over)\s+)?(?:the\s+)?(last|past|previous|prior)\s+(\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(day|week|month|year)s?\b/)) {
    take(m, rollingPeriod(today, n(m[2])!, m[3]!), `the ${m[2]} ${m[3]}(s) up to the day the question was read`);
  }
  // "past year", "the last year", "the last month": rolling one unit; bare "last year", "previous
  // month": the previous calendar one (as "last year's figures" means in English).
  for (const m of r.matches(/\b(?:(?:in|during|for|within|over)\s+)?(the\s+)?(past|last|previous)\s+(week|month|year)\b/)) {
    const unit = m[3] as 'week' | 'month' | 'year';
    const rolling = m[2] === 'past' || unit === 'week' || (m[1] !== undefined && m[2] === 'last');
    if (rolling) take(m, rollingPeriod(today, 1, unit), `the past ${unit}, up to the day the question was read`);
    else take(m, calendarPeriod(today, unit, -1, false), `the previous calendar ${unit}`);
  }
  for (const m of r.matches(/\b(?:(?:in|during|for)\s+)?this\s+(month|year)\b|\b(month|year)[- ]to[- ]date\b/)) {
    const unit = (m[1] ?? m[2]) as 'month' | 'year';
    take(m, calendarPeriod(today, unit, 0, true), `this calendar ${unit} up to the day the question was read`);
  }
  for (const m of r.matches(/\b(?:between|from)\s+((?:19|20)\d{2})\s+(?:and|to|until|through)\s+((?:19|20)\d{2})\b/)) {
    take(m, { start: `${m[1]}-01-01`, end: `${m[2]}-12-31` }, '');
  }
  for (const m of r.matches(new RegExp(`\\b(?:in|during|for|of)\\s+${MONTH_RE}\\s+((?:19|20)\\d{2})\\b`))) {
    const month = MONTHS.findIndex((name) => name.startsWith(m[1]!.slice(0, 3)));
    const first = utcDay(Number(m[2]), month, 1);
    take(m, { start: isoDate(first), end: isoDate(addDays(addMonths(first, 1), -1)) }, '');
  }
  for (const m of r.matches(/\b(?:in|during|for|of)\s+(?:the\s+year\s+)?((?:19|20)\d{2})\b/)) take(m, { start: `${m[1]}-01-01`, end: `${m[1]}-12-31` }, '');
  for (const m of r.matches(/\b(?:since|after|from)\s+((?:19|20)\d{2})\b(?!-)/)) take(m, { start: `${m[1]}-01-01`, end: isoDate(today) }, 'up to the day the question was read');
  for (const m of r.matches(/\bbefore\s+((?:19|20)\d{2})\b(?!-)/)) take(m, { start: null, end: `${Number(m[1]) - 1}-12-31` }, '');
  for (const m of r.matches(/\b(?:until|till|through)\s+((?:19|20)\d{2})\b(?!-)/)) take(m, { start: null, end: `${m[1]}-12-31` }, '');

  // Explicit dates the rules above did not read ("since March 2024", "2024-01-01 to 2024-06-30", "between January 2025 and June 2025").
  const results = chrono.parse(r.text, { instant: today, timezone: 'UTC' }, { forwardDate: false }).filter((x) => x.start.isCertain('year') || x.start.isCertain('month') || x.start.isCertain('day'));
  for (let i = 0; i < results.length; i++) {
    const res = results[i]!;
    const before = r.text.slice(0, res.index).trimEnd();
    const word = /(\w+)$/.exec(before)?.[1] ?? '';
    const startRange = componentRange(res.start);
    const spanStart = ['since', 'after', 'from', 'before', 'until', 'till', 'between', 'in', 'on', 'during'].includes(word) ? before.length - word.length : res.index;
    let spanEnd = res.index + res.text.length;
    let period: Period;
    const next = results[i + 1];
    if (res.end) {
      period = { start: isoDate(startRange.start), end: isoDate(componentRange(res.end).end) };
    } else if ((word === 'between' || word === 'from') && next && /^\s*(and|to|until|through)\s*$/.test(r.text.slice(spanEnd, next.index))) {
      period = { start: isoDate(startRange.start), end: isoDate(componentRange(next.start).end) };
      spanEnd = next.index + next.text.length;
      i++;
    } else if (word === 'since' || word === 'from') {
      period = { start: isoDate(startRange.start), end: isoDate(today) };
    } else if (word === 'after') {
      period = { start: isoDate(addDays(startRange.end, 1)), end: isoDate(today) };
    } else if (word === 'before') {
      period = { start: null, end: isoDate(addDays(startRange.start, -1)) };
    } else if (word === 'until' || word === 'till') {
      period = { start: null, end: isoDate(startRange.end) };
    } else {
      period = { start: isoDate(startRange.start), end: isoDate(startRange.end) };
    }
    found.push(period);
    r.consume({ start: Math.max(0, spanStart), end: spanEnd }, `period ${describePeriod(period)}`);
  }
  if (found.length > 1) r.problems.push('more than one period: ask about one period at a time');
  const period = found[0] ?? null;
  if (period && period.start !== null && period.start > period.end) r.problems.push(`the period starts (${period.start}) after it ends (${period.end})`);
  return period;
}

function readAge(r: Reader): StructuredQuery['cohort']['age'] {
  let min: number | null = null;
  let max: number | null = null;
  const YEARS = '(?:\\s*years?(?:\\s*old)?)?';
  const set = (m: RegExpExecArray, lo: number | null, hi: number | null, meaning: string) => {
    if (lo !== null) min = Math.max(min ?? 0, lo);
    if (hi !== null) max = Math.min(max ?? 200, hi);
    r.consume({ start: m.index, end: m.index + m[0].length }, meaning);
  };
  const num = (s: string) => Number(s);
  for (const m of r.matches(new RegExp(`\\b(?:aged?|ages|between)\\s+(\\d{1,3})\\s*(?:-|to|and)\\s*(\\d{1,3})${YEARS}|\\b(\\d{1,3})\\s*(?:-|to)\\s*(\\d{1,3})\\s*years?\\s*old\\b`))) {
    const lo = num(m[1] ?? m[3]!);
    const hi = num(m[2] ?? m[4]!);
    set(m, lo, hi, `age ${lo} to ${hi} (completed years, both included)`);
  }
  for (const m of r.matches(new RegExp(`\\b(?:aged\\s+)?(?:over|older\\s+than|above|more\\s+than)\\s+(?:the\\s+age\\s+of\\s+)?(\\d{1,3})${YEARS}`))) {
    set(m, num(m[1]!) + 1, null, `age over ${m[1]}: ${num(m[1]!) + 1} or more completed years (say "${m[1]} or older" to include ${m[1]})`);
  }
  for (const m of r.matches(new RegExp(`\\b(?:aged\\s+)?(?:under|younger\\s+than|below|less\\s+than)\\s+(?:the\\s+age\\s+of\\s+)?(\\d{1,3})${YEARS}`))) {
    set(m, null, num(m[1]!) - 1, `age under ${m[1]}: ${num(m[1]!) - 1} or fewer completed years`);
  }
  for (const m of r.matches(new RegExp(`\\b(?:aged\\s+)?(\\d{1,3})${YEARS}\\s*(?:\\+|(?:or|and)\\s+(?:older|over|above|up))`))) set(m, num(m[1]!), null, `age ${m[1]} or more (completed years)`);
  for (const m of r.matches(new RegExp(`\\b(?:aged\\s+)?(?:at\\s+least)\\s+(\\d{1,3})${YEARS}`))) set(m, num(m[1]!), null, `age ${m[1]} or more (completed years)`);
  for (const m of r.matches(new RegExp(`\\b(?:aged\\s+)?(\\d{1,3})${YEARS}\\s*(?:or|and)\\s+(?:younger|under|below)\\b`))) set(m, null, num(m[1]!), `age ${m[1]} or less (completed years)`);
  for (const m of r.matches(new RegExp(`\\b(?:aged\\s+)?(?:at\\s+most)\\s+(\\d{1,3})${YEARS}`))) set(m, null, num(m[1]!), `age ${m[1]} or less (completed years)`);
  for (const m of r.matches(/\b(older adults|seniors|elderly|geriatric)\b/)) set(m, 65, null, `"${m[1]}": age 65 or more`);
  for (const m of r.matches(/\b(children|child|kids|pediatric|paediatric|minors)\b/)) set(m, null, 17, `"${m[1]}": age 17 or less`);
  for (const m of r.matches(/\b(adults|adult)\b/)) set(m, 18, null, `"${m[1]}": age 18 or more`);
  for (const m of r.matches(/\baged?\s+(\d{1,3})\b/)) set(m, num(m[1]!), num(m[1]!), `age exactly ${m[1]} (completed years)`);
  if (min === null && max === null) return null;
  if ((min ?? 0) > 130 || (max ?? 0) > 130) r.problems.push('an age above 130 is not a plausible bound');
  if (min !== null && max !== null && min > max) r.problems.push(`the age bounds exclude everyone (${min} or more and ${max} or less)`);
  return { min, max };
}

function readGender(r: Reader): StructuredQuery['cohort']['gender'] {
  const genders = new Set<'female' | 'male'>();
  for (const m of r.matches(/\b(females?|women|woman|girls?|ladies)\b/)) {
    genders.add('female');
    r.consume({ start: m.index, end: m.index + m[0].length }, 'gender female (Patient.gender)');
  }
  for (const m of r.matches(/\b(males?|men|man|boys?|gentlemen)\b/)) {
    genders.add('male');
    r.consume({ start: m.index, end: m.index + m[0].length }, 'gender male (Patient.gender)');
  }
  if (genders.size > 1) r.problems.push('both female and male: leave gender out to count everyone, or ask once per gender');
  return genders.size === 1 ? [...genders][0]! : null;
}

type Concept = { kind: 'condition'; concept: ConditionConcept } | { kind: 'observation'; concept: ObservationConcept };
interface Found {
  at: number;
  end: number;
  found: Concept;
  negated: boolean;
}

const PHRASES: { phrase: string; found: Concept }[] = [
  ...CONDITIONS.flatMap((concept) => concept.phrases.map((phrase) => ({ phrase, found: { kind: 'condition' as const, concept } }))),
  ...OBSERVATIONS.flatMap((concept) => concept.phrases.map((phrase) => ({ phrase, found: { kind: 'observation' as const, concept } }))),
].sort((a, b) => b.phrase.length - a.phrase.length);

function readConcepts(r: Reader): Found[] {
  const found: Found[] = [];
  for (const { phrase, found: concept } of PHRASES) {
    for (const m of r.matches(new RegExp(`\\b${escape(phrase)}s?\\b`))) {
      const before = r.text.slice(0, m.index);
      const negation = /\b(without|no|not|never|excluding|except)\s+(?:(?:a|any|an)\s+)?(?:(?:history|diagnosis|record)\s+of\s+)?$/.exec(before);
      const start = negation ? m.index - negation[0].length : m.index;
      const what = concept.kind === 'condition' ? `condition ${concept.concept.display} (${concept.concept.source})` : `measurement ${concept.concept.display} (${concept.concept.source}, averaged in ${concept.concept.unit})`;
      found.push({ at: m.index, end: m.index + m[0].length, found: concept, negated: negation !== null });
      r.consume({ start, end: m.index + m[0].length }, negation ? `without ${what}` : what);
    }
  }
  return found.sort((a, b) => a.at - b.at);
}

const ref = (c: ConditionConcept): ConceptRef => ({ concept: c.concept, display: c.display, codes: [...c.codes], source: c.source });

function sentence(q: StructuredQuery): string {
  const who: string[] = [];
  if (q.cohort.gender) who.push(q.cohort.gender);
  who.push('patients');
  const age = q.cohort.age;
  if (age) who.push(age.min !== null && age.max !== null ? `aged ${age.min} to ${age.max}` : age.min !== null ? `aged ${age.min} or more` : `aged ${age.max} or less`);
  if (q.cohort.conditions && q.measure !== 'condition_count') who.push(`with ${q.cohort.conditions.concepts.map((c) => c.display.toLowerCase()).join(q.cohort.conditions.match === 'all' ? ' and ' : ' or ')}`);
  if (q.cohort.excluded_conditions.length > 0) who.push(`without ${q.cohort.excluded_conditions.map((c) => c.display.toLowerCase()).join(' or ')}`);
  const cohort = who.join(' ');
  const what =
    q.measure === 'patient_count'
      ? `Number of ${cohort}`
      : q.measure === 'condition_count'
        ? `Number of diagnoses (Conditions) of ${q.cohort.conditions!.concepts.map((c) => c.display.toLowerCase()).join(' or ')} among ${cohort}`
        : `Average ${q.observation!.display.toLowerCase()} (${q.observation!.unit}) of ${cohort}`;
  const when = q.period ? `, ${q.period_applies_to === 'observation_date' ? 'measured' : 'with onset'} ${q.period.start ? `from ${q.period.start} ` : ''}up to ${q.period.end}` : '';
  const group = q.group_by ? `, per ${q.group_by}` : '';
  return `${what}${when}${group}.`;
}

/**
 * Read `question` on the UTC day `today`. Throws a 422 (VALIDATION_ERROR on `question`) with
 * `understood`, `not_understood` and `examples` when any part of it is not read.
 */
export function interpretQuestion(question: string, today: Date): Interpretation {
  const day = utcDay(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const r = new Reader(question);
  readUnsupported(r);
  const groupBy = readGrouping(r);
  const period = readPeriod(r, day);
  const age = readAge(r);
  const gender = readGender(r);
  const concepts = readConcepts(r);

  let measure: StructuredQuery['measure'] = 'patient_count';
  const average = r.matches(/\b(average|mean|avg)\b/);
  for (const m of average) r.consume({ start: m.index, end: m.index + m[0].length }, 'measure: arithmetic mean of the measurement values');
  const diagnoses = r.matches(/\b(?:new\s+)?(?:diagnoses|diagnosis|cases|incidence|onsets?)\b/);
  for (const m of diagnoses) r.consume({ start: m.index, end: m.index + m[0].length }, 'measure: number of diagnoses (Condition resources), dated by onset');
  if (diagnoses.length > 0) for (const m of r.matches(/\b(new|newly)\b/)) r.consume({ start: m.index, end: m.index + m[0].length }, 'new: diagnoses counted by their onset date');
  for (const m of r.matches(/\b(how many|number of|count of|count|total)\b/)) r.consume({ start: m.index, end: m.index + m[0].length }, 'measure: a count');

  const observations = concepts.filter((c) => c.found.kind === 'observation');
  const conditions = concepts.filter((c) => c.found.kind === 'condition' && !c.negated);
  const excluded = concepts.filter((c) => c.found.kind === 'condition' && c.negated);
  if (observations.some((o) => o.negated)) r.problems.push('a measurement cannot be excluded');
  if (average.length > 0) {
    measure = 'observation_average';
    if (observations.length === 0) r.problems.push(`"average" needs a measurement: one of ${OBSERVATIONS.map((o) => o.display.toLowerCase()).join(', ')}`);
    if (diagnoses.length > 0) r.problems.push('an average of diagnoses is not a measure: ask for a count of diagnoses or an average measurement');
  } else if (diagnoses.length > 0) {
    measure = 'condition_count';
    if (conditions.length === 0) r.problems.push('counting diagnoses needs a condition, e.g. "new asthma diagnoses"');
  } else if (observations.length > 0) {
    r.problems.push(`"${observations[0]!.found.concept.display.toLowerCase()}" is a measurement: ask for its average ("average ${observations[0]!.found.concept.phrases[0]} of …")`);
  }
  if (observations.length > 1) r.problems.push('more than one measurement: ask about one at a time');

  // "with A and B" needs both, "with A or B" either: the word between two conditions decides.
  let match: 'all' | 'any' = 'all';
  for (let i = 1; i < conditions.length; i++) {
    const between = question.toLowerCase().slice(conditions[i - 1]!.end, conditions[i]!.at);
    if (/\bor\b/.test(between)) match = 'any';
  }
  const uniqueConditions = [...new Map(conditions.map((c) => [(c.found.concept as ConditionConcept).concept, ref(c.found.concept as ConditionConcept)])).values()];
  const excludedConditions = [...new Map(excluded.map((c) => [(c.found.concept as ConditionConcept).concept, ref(c.found.concept as ConditionConcept)])).values()];

  let appliesTo: StructuredQuery['period_applies_to'] = null;
  if (period || groupBy) {
    if (measure === 'observation_average') appliesTo = 'observation_date';
    else if (uniqueConditions.length > 0) appliesTo = 'condition_onset';
    else r.problems.push('a period or a grouping needs something dated: a condition (its onset) or an average measurement (its date)');
  }

  const leftovers = r.leftovers();
  for (const word of new Set(leftovers)) r.problems.push(`"${word}" is not a word this query language knows`);
  const understood = r.readings.sort((a, b) => a.at - b.at).map((x) => x.reading);
  if (r.problems.length > 0) {
    throw new DomainError('VALIDATION_ERROR', `The question could not be read completely: ${r.problems.join('; ')}.`, {
      fieldErrors: [{ field: 'question', message: r.problems.join('; ') }],
      details: {
        understood,
        not_understood: r.problems,
        examples: EXAMPLE_QUESTIONS,
        vocabulary: { conditions: CONDITIONS.map((c) => c.phrases[0]), measurements: OBSERVATIONS.map((o) => o.phrases[0]) },
      },
    });
  }
  const query: StructuredQuery = {
    version: 1,
    measure,
    observation: measure === 'observation_average' ? { ...pickObservation(observations[0]!.found.concept as ObservationConcept) } : null,
    cohort: { gender, age, conditions: uniqueConditions.length > 0 ? { match, concepts: uniqueConditions } : null, excluded_conditions: excludedConditions },
    period,
    period_applies_to: appliesTo,
    group_by: groupBy,
  };
  return { query, readings: understood, summary: sentence(query) };
}

function pickObservation(o: ObservationConcept): NonNullable<StructuredQuery['observation']> {
  return { concept: o.concept, display: o.display, loinc: [...o.loinc], unit: o.unit, source: o.source };
}
