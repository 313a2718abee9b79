/**
 * Seeded synthetic population for the identity accuracy benchmark. Everything derives from one
 * seed (sfc32 PRNG), so a run is reproducible bit for bit.
 *
 * People live in households: relatives share a family name, often a landline and sometimes an
 * inbox; some households have twins (same DOB) or a "Jr" named after his father. Those are the
 * hard negatives a matcher must not merge. Names follow a Zipf-like frequency so common names
 * collide the way they do in real registries.
 *
 * Query variants apply realistic corruption: typos, nicknames, transposed day/month, a digit
 * typo in the DOB, email and phone variants (equivalent forms and changed values), missing
 * fields, unmarked name-order swaps, diacritics added or stripped, married names, initials — and
 * always a random input format (DOB format, phone format, name layout, case).
 *
 * Households also share a postal address (twins therefore share family name, DOB and address:
 * the classic false merge), and people carry administrative sex, an SSN (most adults) and an MRN
 * of one of a few hospitals. Those come from a second PRNG stream, so the names, dates and
 * contacts of a seed are the same as before they existed. Their corruptions: the address
 * abbreviated (USPS forms, ZIP+4, case), moved to another address, missing; identifiers missing;
 * a one-digit SSN typo (a conflicting identifier); a nickname with a typo; a space inside the
 * given name.
 *
 * The nickname list here is the generator's own (independent of the matcher's table).
 */

/** sfc32: small, fast, good-quality 32-bit PRNG. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0; this.b >>>= 0; this.c >>>= 0; this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  int(min: number, maxInclusive: number): number {
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }

  /** Pick with a Zipf-like bias toward the start of the list (exponent s). */
  zipf<T>(list: readonly T[], s = 0.9): T {
    const weights = zipfTable(list.length, s);
    const r = this.next() * weights[weights.length - 1]!;
    let lo = 0;
    let hi = weights.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (weights[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return list[lo]!;
  }
}

const zipfCache = new Map<string, number[]>();
function zipfTable(n: number, s: number): number[] {
  const key = `${n}:${s}`;
  let table = zipfCache.get(key);
  if (!table) {
    table = [];
    let sum = 0;
    for (let i = 1; i <= n; i++) table.push((sum += 1 / i ** s));
    zipfCache.set(key, table);
  }
  return table;
}

const MALE = `james robert john michael david william richard joseph thomas christopher charles daniel matthew anthony
mark donald steven andrew paul joshua kenneth kevin brian george timothy ronald jason edward jeffrey ryan jacob gary
nicholas eric jonathan stephen larry justin scott brandon benjamin samuel gregory alexander patrick frank raymond jack
dennis jerry tyler aaron jose adam nathan henry zachary douglas peter kyle noah ethan jeremy walter christian keith roger
terry austin sean gerald carl harold dylan arthur lawrence jordan jesse bryan billy bruce gabriel joe logan alan juan
albert willie elijah wayne randy vincent mason roy ralph bobby russell bradley philip eugene liam oliver lucas`.split(/\s+/);

const FEMALE = `mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy betty sandra margaret
ashley kimberly emily donna michelle carol amanda melissa deborah stephanie dorothy rebecca sharon laura cynthia amy
kathleen angela shirley brenda emma anna pamela nicole samantha katherine christine helen debra rachel carolyn janet
maria catherine heather diane olivia julie joyce victoria ruth virginia lauren kelly christina joan evelyn judith andrea
hannah megan cheryl jacqueline martha madison teresa gloria sara janice ann kathryn abigail sophia frances jean alice
judy isabella julia grace amber denise danielle marilyn beverly charlotte natalie theresa diana brittany doris kayla
alexis lori marie sophie ava mia zoe chloe penelope eleanor`.split(/\s+/);

const FAMILY = `Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson
Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker
Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter
Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris Morales Murphy Cook Rogers
Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood
James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers Long Ross Foster Jimenez Powell Jenkins
Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson
Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar
Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry Chen
Freeman Webb Tucker Guzman Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz
Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels
Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Vazquez Hansen
Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews Alvarado Ray
Delgado Berry Perkins Hoffman Johnston Matthews Pena Richards Contreras Willis Carpenter Lawrence Sandoval Guerrero
García Hernández Müller Nguyễn Peña Núñez Ødegaard Östlund Łukasiewicz O'Brien D'Angelo O'Connor Van der Berg
de la Cruz Le Blanc MacArthur Schäfer Dubois Lefèvre Kowalski Nowak Björklund Sørensen Jäger Fernández Muñoz Gómez
Ramírez Pérez Sánchez Rodríguez González Martínez López Díaz Álvarez Jiménez Rossi Russo Ferrari Esposito Bianchi
Romano Colombo Yamamoto Tanaka Suzuki Watanabe Kowalczyk Wiśniewski Dąbrowski Novák Dvořák Černý Horváth Szabó Tóth
Nagy Kovács Papadopoulos Ivanov Petrov Smirnov Cohen Levy Friedman Shapiro Goldberg Katz Singh Sharma Kumar Gupta
Ali Khan Ahmed Hussain Rahman Okafor Adeyemi Mensah Owusu Mwangi`.split(/\s+/).filter(Boolean);

const SYLLABLES_START = ['Bar', 'Kel', 'Mor', 'Dal', 'Fen', 'Gar', 'Hal', 'Lind', 'Mar', 'Nor', 'Pen', 'Ral', 'Sel',
  'Tor', 'Wen', 'Ash', 'Brig', 'Cal', 'Dun', 'Eld', 'Far', 'Gol', 'Har', 'Ing', 'Kin', 'Lom', 'Mel', 'Ost', 'Pry', 'Quin',
  'Rud', 'Stan', 'Thal', 'Ulm', 'Var', 'Wes', 'Yor', 'Zel', 'Ab', 'Ber', 'Cor', 'Del', 'Em', 'Fal', 'Gil', 'Hol'];
const SYLLABLES_END = ['ton', 'son', 'ley', 'wood', 'man', 'berg', 'field', 'ford', 'well', 'by', 'ham', 'stein', 'er',
  'ing', 'ski', 'ova', 'ez', 'ini', 'aki', 'sen', 'holm', 'dale', 'more', 'worth', 'ridge', 'cott', 'ard', 'ell', 'ick'];

/**
 * Family names: 65% from the common list with a mild Zipf bias, 35% from a long synthetic tail
 * (about 60,000 combinations), so the share of the commonest name (~1%) and the chance that two
 * strangers share a family name stay close to a US population.
 */
function familyName(rng: Rng): string {
  if (rng.chance(0.65)) return rng.zipf(FAMILY, 0.45);
  const middle = rng.chance(0.3) ? rng.pick(['a', 'e', 'i', 'o', 'u', 'en', 'ar']) : '';
  return rng.pick(SYLLABLES_START) + middle + rng.pick(SYLLABLES_END);
}

/** Given names with a mild bias: the commonest covers about 2% of each sex. */
function givenName(rng: Rng, sex: Sex): string {
  return capital(rng.zipf(sex === 'M' ? MALE : FEMALE, 0.4));
}

/** Diacritics mistakes: clear → accented (a registration clerk adds or drops the accents). */
const ACCENTS: Readonly<Record<string, string>> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', n: 'ñ', c: 'ç' };

/** The generator's own nickname knowledge (what people actually write). */
const NICK: Readonly<Record<string, readonly string[]>> = {
  james: ['jim', 'jimmy', 'jamie'], robert: ['bob', 'bobby', 'rob'], john: ['jack', 'johnny'], michael: ['mike', 'mikey'],
  david: ['dave', 'davey'], william: ['bill', 'will', 'billy'], richard: ['rick', 'dick', 'rich'], joseph: ['joe', 'joey'],
  thomas: ['tom', 'tommy'], christopher: ['chris'], charles: ['charlie', 'chuck'], daniel: ['dan', 'danny'],
  matthew: ['matt'], anthony: ['tony'], donald: ['don'], steven: ['steve'], andrew: ['andy', 'drew'], joshua: ['josh'],
  kenneth: ['ken', 'kenny'], timothy: ['tim'], ronald: ['ron'], edward: ['ed', 'eddie', 'ted'], jeffrey: ['jeff'],
  nicholas: ['nick'], jonathan: ['jon'], stephen: ['steve'], samuel: ['sam'], gregory: ['greg'], alexander: ['alex'],
  patrick: ['pat'], raymond: ['ray'], gerald: ['jerry'], benjamin: ['ben'], zachary: ['zach'], douglas: ['doug'],
  peter: ['pete'], walter: ['walt'], lawrence: ['larry'], albert: ['al'], vincent: ['vince'], philip: ['phil'],
  eugene: ['gene'], bradley: ['brad'], russell: ['russ'], jacob: ['jake'], nathan: ['nate'], henry: ['hank'],
  elizabeth: ['liz', 'beth', 'betty', 'lizzie'], margaret: ['peggy', 'maggie', 'meg'], patricia: ['pat', 'patty', 'trish'],
  jennifer: ['jen', 'jenny'], barbara: ['barb'], susan: ['sue', 'susie'], jessica: ['jess'], sandra: ['sandy'],
  kimberly: ['kim'], deborah: ['deb', 'debbie'], rebecca: ['becky'], cynthia: ['cindy'], kathleen: ['kathy'],
  katherine: ['kate', 'katie', 'kathy'], catherine: ['cathy', 'kate'], pamela: ['pam'], samantha: ['sam'],
  christine: ['chris', 'tina'], victoria: ['vicky', 'tori'], judith: ['judy'], jacqueline: ['jackie'],
  abigail: ['abby'], isabella: ['bella', 'izzy'], dorothy: ['dot', 'dottie'], amanda: ['mandy'], melissa: ['missy'],
  stephanie: ['steph'], theresa: ['tess'], teresa: ['terry'], frances: ['fran'], alexis: ['lexi'], eleanor: ['ellie'],
  penelope: ['penny'], virginia: ['ginny'], angela: ['angie'], michelle: ['shelly'], danielle: ['dani'], natalie: ['nat'],
};

export type Sex = 'F' | 'M';

export interface Person {
  id: number;
  household: number;
  sex: Sex;
  given: string;
  middle: string | null;
  family: string;
  dob: { year: number; month: number; day: number };
  email: string | null;
  phone: string | null;
  /** Why this person is a hard negative for others, if any. */
  tag: 'twin' | 'junior' | 'senior' | null;
  /** The household's address (null: homeless or unknown). */
  address: PostalAddress | null;
  /** Nine digits, or null (children, and some adults, have none on file). */
  ssn: string | null;
  /** The medical record number at one hospital, or null. */
  mrn: { value: string; assigner: string } | null;
}

export interface PostalAddress {
  number: number;
  /** Street name without its suffix ("Maple"). */
  street: string;
  /** Long form ("Street"). */
  suffix: string;
  /** Apartment number, or null. */
  unit: string | null;
  city: string;
  state: string;
  zip: string;
}

export type Corruption =
  | 'typo_given'
  | 'typo_family'
  | 'nickname'
  | 'dob_swap'
  | 'dob_typo'
  | 'email_variant'
  | 'email_changed'
  | 'phone_changed'
  | 'missing_email'
  | 'missing_phone'
  | 'missing_dob'
  | 'name_order_swap'
  | 'diacritics'
  | 'married_name'
  | 'initial_only'
  | 'address_abbreviated'
  | 'address_moved'
  | 'missing_address'
  | 'missing_identifiers'
  | 'identifier_typo'
  | 'nickname_typo'
  | 'given_space';

export const CORRUPTIONS: readonly Corruption[] = [
  'typo_given', 'typo_family', 'nickname', 'dob_swap', 'dob_typo', 'email_variant', 'email_changed', 'phone_changed',
  'missing_email', 'missing_phone', 'missing_dob', 'name_order_swap', 'diacritics', 'married_name', 'initial_only',
  'address_abbreviated', 'address_moved', 'missing_address', 'missing_identifiers', 'identifier_typo', 'nickname_typo', 'given_space',
];

const CORRUPTION_WEIGHTS: Readonly<Record<Corruption, number>> = {
  typo_given: 10, typo_family: 10, nickname: 10, dob_swap: 6, dob_typo: 6, email_variant: 6, email_changed: 6,
  phone_changed: 6, missing_email: 8, missing_phone: 8, missing_dob: 3, name_order_swap: 5, diacritics: 5,
  married_name: 3, initial_only: 2, address_abbreviated: 6, address_moved: 3, missing_address: 6, missing_identifiers: 8,
  identifier_typo: 1, nickname_typo: 3, given_space: 2,
};

/** One demographics payload as a caller would send it. */
export interface DemographicsPayload {
  name?: string | { given?: string; middle?: string; family?: string };
  dob?: string;
  email?: string;
  phone?: string;
  sex?: 'male' | 'female';
  address?: { lines: string[]; city?: string; state?: string; postal_code?: string };
  identifiers?: Array<{ system: 'ssn' | 'mrn'; value: string; assigner?: string }>;
}

export interface Variant {
  personId: number;
  corruptions: Corruption[];
  payload: DemographicsPayload;
}

const AREA_CODES = [201, 202, 206, 212, 213, 214, 215, 303, 305, 312, 313, 404, 407, 412, 415, 503, 504, 512, 602,
  612, 615, 617, 702, 704, 713, 718, 720, 813, 817, 832, 901, 913, 916, 919, 949, 971];
const EMAIL_DOMAINS = ['gmail.com', 'gmail.com', 'gmail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'icloud.com',
  'aol.com', 'comcast.net', 'att.net', 'protonmail.com', 'mail.com'];

/** Numbers and mailboxes handed out so far: one owner each, unless shared on purpose. */
const usedPhones = new Set<string>();
const usedEmails = new Set<string>();

function newPhone(rng: Rng): string {
  // NXX-NXXX with N = 2..9, avoiding 555 and N11 exchanges.
  for (;;) {
    let exchange: number;
    do exchange = rng.int(200, 999); while (exchange === 555 || exchange % 100 === 11);
    const phone = `+1${rng.pick(AREA_CODES)}${exchange}${String(rng.int(0, 9999)).padStart(4, '0')}`;
    if (!usedPhones.has(phone)) {
      usedPhones.add(phone);
      return phone;
    }
  }
}

function ascii(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').replace(/ø/g, 'o').replace(/Ø/g, 'O').replace(/ł/g, 'l').replace(/Ł/g, 'L');
}

function newEmail(rng: Rng, given: string, family: string, year: number): string {
  const g = ascii(given).toLowerCase().replace(/[^a-z]/g, '');
  const f = ascii(family).toLowerCase().replace(/[^a-z]/g, '');
  for (;;) {
    const n = rng.int(1, 999);
    const local = rng.pick([
      `${g}.${f}`, `${g}${f}`, `${g[0]}${f}`, `${g}.${f}${n}`, `${g}${f}${year % 100}`, `${f}.${g}`, `${g}_${f}${n}`,
      `${g}${n}`, `${f}${g[0]}${n}`,
    ]);
    const email = `${local}@${rng.pick(EMAIL_DOMAINS)}`;
    // Gmail ignores dots: "j.smith" and "jsmith" are one mailbox.
    const mailbox = email.endsWith('@gmail.com') ? email.replace(/\.(?=[^@]*@)/g, '') : email;
    if (!usedEmails.has(mailbox)) {
      usedEmails.add(mailbox);
      return email;
    }
  }
}

function newSharedEmail(rng: Rng, family: string): string {
  const f = ascii(family).toLowerCase().replace(/[^a-z]/g, '');
  for (;;) {
    const email = `${f}family${rng.int(1, 999)}@${rng.pick(EMAIL_DOMAINS)}`;
    if (!usedEmails.has(email)) {
      usedEmails.add(email);
      return email;
    }
  }
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function randomDob(rng: Rng, minAge: number, maxAge: number, refYear = 2025) {
  const year = rng.int(refYear - maxAge, refYear - minAge);
  const month = rng.int(1, 12);
  return { year, month, day: rng.int(1, daysIn(year, month)) };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const STREETS = `Maple Oak Pine Cedar Elm Washington Lake Hill Park Main Church Walnut Spring Ridge Highland Sunset
Lincoln Jefferson Madison Franklin Chestnut Willow Meadow River Forest Mill Center Jackson Adams Cherry Valley Birch
Laurel Dogwood Hickory Magnolia Sycamore Aspen Poplar Spruce Juniper Orchard Prospect Union Liberty Grove`.split(/\s+/);
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['Street', 'St'], ['Avenue', 'Ave'], ['Road', 'Rd'], ['Drive', 'Dr'], ['Lane', 'Ln'], ['Boulevard', 'Blvd'], ['Court', 'Ct'],
  ['Place', 'Pl'], ['Terrace', 'Ter'], ['Parkway', 'Pkwy'],
];
const CITIES: ReadonlyArray<readonly [string, string, string]> = [
  ['Springfield', 'IL', '627'], ['Portland', 'OR', '972'], ['Austin', 'TX', '787'], ['Columbus', 'OH', '432'],
  ['Madison', 'WI', '537'], ['Denver', 'CO', '802'], ['Raleigh', 'NC', '276'], ['Tucson', 'AZ', '857'],
  ['Boston', 'MA', '021'], ['Richmond', 'VA', '232'], ['Omaha', 'NE', '681'], ['Boise', 'ID', '837'],
];
const HOSPITALS = ['Mercy General', 'St. Luke Medical Center', 'County Hospital', 'Riverside Health'];
const usedSsns = new Set<string>();

function newAddress(rng: Rng): PostalAddress {
  const [city, state, zip3] = rng.pick(CITIES);
  return {
    number: rng.int(1, 9999),
    street: rng.pick(STREETS),
    suffix: rng.pick(SUFFIXES)[0],
    unit: rng.chance(0.3) ? `${rng.int(1, 30)}${rng.pick(['', '', 'A', 'B'])}` : null,
    city,
    state,
    zip: `${zip3}${String(rng.int(1, 99)).padStart(2, '0')}`,
  };
}

/** An issuable SSN (area 001–665 or 667–899, group and serial never zero), unique. */
function newSsn(rng: Rng): string {
  for (;;) {
    let area: number;
    do area = rng.int(1, 899); while (area === 666);
    const ssn = `${String(area).padStart(3, '0')}${String(rng.int(1, 99)).padStart(2, '0')}${String(rng.int(1, 9999)).padStart(4, '0')}`;
    if (!usedSsns.has(ssn)) {
      usedSsns.add(ssn);
      return ssn;
    }
  }
}

function renderAddress(rng: Rng, a: PostalAddress, abbreviated: boolean): NonNullable<DemographicsPayload['address']> {
  const suffix = abbreviated ? SUFFIXES.find(([long]) => long === a.suffix)![1] : a.suffix;
  const unit = a.unit ? (abbreviated ? rng.pick([`Apt ${a.unit}`, `#${a.unit}`, `Unit ${a.unit}`]) : `Apartment ${a.unit}`) : null;
  const street = `${a.number} ${a.street} ${suffix}`;
  const lines = unit ? (rng.chance(0.5) ? [street, unit] : [`${street} ${unit}`]) : [street];
  const zip = abbreviated && rng.chance(0.5) ? `${a.zip}-${String(rng.int(1, 9999)).padStart(4, '0')}` : a.zip;
  const upper = abbreviated && rng.chance(0.4);
  const out: NonNullable<DemographicsPayload['address']> = { lines: upper ? lines.map((l) => l.toUpperCase()) : lines, postal_code: zip };
  if (rng.chance(0.7)) {
    out.city = upper ? a.city.toUpperCase() : a.city;
    out.state = a.state;
  }
  return out;
}

/** Generates `count` people in households. */
export function generatePopulation(count: number, seed: number): Person[] {
  const rng = new Rng(seed);
  // Addresses and identifiers from their own stream: names, dates and contacts stay those of the seed.
  const extra = new Rng(seed ^ 0x0add7e55);
  usedSsns.clear();
  usedPhones.clear();
  usedEmails.clear();
  const people: Person[] = [];
  let household = 0;
  while (people.length < count) {
    household++;
    const family = familyName(rng);
    const landline = rng.chance(0.55) ? newPhone(rng) : null;
    const sharedEmail = rng.chance(0.12) ? newSharedEmail(rng, family) : null;
    const adults = rng.chance(0.3) ? 1 : 2;
    const children = rng.chance(0.45) ? rng.int(1, 3) : 0;
    const members: Person[] = [];
    // Relatives do not share a given name (except a Jr, below) and nobody's middle name is their given name.
    const uniqueGiven = (sex: Sex) => {
      let name: string;
      do name = givenName(rng, sex); while (members.some((m) => m.given === name));
      return name;
    };
    const otherName = (sex: Sex, not: string) => {
      let name: string;
      do name = givenName(rng, sex); while (name === not);
      return name;
    };
    const add = (p: Omit<Person, 'id' | 'household' | 'address' | 'ssn' | 'mrn'>) => {
      const person: Person = { ...p, id: people.length + members.length, household, address: null, ssn: null, mrn: null };
      members.push(person);
      return person;
    };
    const makeContact = (given: string, fam: string, dob: Person['dob'], adult: boolean) => {
      const ownPhone = adult ? rng.chance(0.75) : dob.year <= 2012 && rng.chance(0.4);
      const phone = ownPhone ? newPhone(rng) : landline ?? (adult ? newPhone(rng) : null);
      const ownEmail = adult ? rng.chance(0.85) : dob.year <= 2010 && rng.chance(0.5);
      const email = ownEmail ? newEmail(rng, given, fam, dob.year) : sharedEmail;
      return { phone, email };
    };
    let father: Person | null = null;
    for (let i = 0; i < adults; i++) {
      const sex: Sex = adults === 2 ? (i === 0 ? 'M' : 'F') : rng.chance(0.5) ? 'M' : 'F';
      const given = uniqueGiven(sex);
      const dob = randomDob(rng, 24, 90);
      const middle = rng.chance(0.4) ? otherName(sex, given) : null;
      const p = add({ sex, given, middle, family, dob, ...makeContact(given, family, dob, true), tag: null });
      if (sex === 'M') father = p;
    }
    const parentYear = Math.max(...members.map((m) => m.dob.year));
    const twinsAt = children >= 2 && rng.chance(0.12) ? 0 : -1;
    const juniorAt = father && children >= 1 && rng.chance(0.12) ? children - 1 : -1;
    let previous: Person | null = null;
    for (let i = 0; i < children; i++) {
      const sex: Sex = rng.chance(0.5) ? 'M' : 'F';
      let dob = randomDob(rng, 0, 25);
      if (dob.year < parentYear + 18) dob = { ...dob, year: Math.min(2024, parentYear + 18 + rng.int(0, 12)) };
      if (dob.day > daysIn(dob.year, dob.month)) dob.day = daysIn(dob.year, dob.month);
      let given = uniqueGiven(sex);
      let tag: Person['tag'] = null;
      if (i === twinsAt + 1 && twinsAt >= 0 && previous) {
        dob = { ...previous.dob };
        tag = 'twin';
        previous.tag = 'twin';
      }
      let middle = rng.chance(0.4) ? otherName(sex, given) : null;
      if (i === juniorAt && father && tag === null) {
        given = father.given;
        middle = father.middle;
        tag = 'junior';
        father.tag = 'senior';
        const p = add({ sex: 'M', given, middle, family, dob, ...makeContact(given, family, dob, dob.year <= 2006), tag });
        previous = p;
        continue;
      }
      previous = add({ sex, given, middle, family, dob, ...makeContact(given, family, dob, dob.year <= 2006), tag });
    }
    const address = extra.chance(0.92) ? newAddress(extra) : null;
    for (const m of members) {
      const adult = m.dob.year <= 2006;
      m.address = address;
      m.ssn = extra.chance(adult ? 0.8 : 0.3) ? newSsn(extra) : null;
      m.mrn = extra.chance(0.5) ? { value: String(extra.int(100000, 9999999)), assigner: extra.pick(HOSPITALS) } : null;
    }
    for (const m of members) if (people.length < count) people.push(m);
  }
  return people;
}

// ---------------------------------------------------------------------------------------------
// Formatting and corruption.

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const pad = (n: number) => String(n).padStart(2, '0');

function formatDob(rng: Rng, d: Person['dob']): string {
  const mon = MONTH_NAMES[d.month - 1]!;
  switch (rng.int(0, 8)) {
    case 0: return `${d.year}-${pad(d.month)}-${pad(d.day)}`;
    case 1: return `${d.year}${pad(d.month)}${pad(d.day)}`;
    case 2: return `${pad(d.month)}/${pad(d.day)}/${d.year}`;
    case 3: return `${d.month}/${d.day}/${d.year}`;
    case 4: return `${pad(d.day)}.${pad(d.month)}.${d.year}`;
    case 5: return `${mon} ${d.day}, ${d.year}`;
    case 6: return `${d.day} ${mon.slice(0, 3)} ${d.year}`;
    case 7: return `${pad(d.day)}-${mon.slice(0, 3).toUpperCase()}-${d.year}`;
    default: return `${d.year}-${pad(d.month)}-${pad(d.day)}T00:00:00Z`;
  }
}

function formatPhone(rng: Rng, e164: string): string {
  const n = e164.slice(2);
  const [a, b, c] = [n.slice(0, 3), n.slice(3, 6), n.slice(6)];
  return rng.pick([`(${a}) ${b}-${c}`, `${a}-${b}-${c}`, `${a}.${b}.${c}`, `+1 ${a} ${b} ${c}`, `1-${a}-${b}-${c}`, `${a}${b}${c}`, e164]);
}

function equivalentEmail(rng: Rng, email: string): string {
  const [local, domain] = email.split('@') as [string, string];
  if (domain === 'gmail.com') {
    const variants = [
      `${local.replace('.', '')}@gmail.com`,
      `${local}+${rng.pick(['health', 'clinic', 'news', 'x'])}@gmail.com`,
      `${local}@googlemail.com`,
      `${local.length > 3 ? local.slice(0, 2) + '.' + local.slice(2) : local}@gmail.com`,
    ];
    return rng.pick(variants);
  }
  if (['outlook.com', 'hotmail.com', 'icloud.com', 'protonmail.com'].includes(domain) && rng.chance(0.5)) {
    return `${local}+med@${domain}`;
  }
  return email.toUpperCase();
}

const KEYBOARD = 'qwertyuiopasdfghjklzxcvbnm';

function typo(rng: Rng, word: string): string {
  if (word.length < 3) return word;
  const i = rng.int(1, word.length - 1); // keep the first letter most of the time, as people do
  const letter = rng.pick(KEYBOARD.split(''));
  switch (rng.int(0, 3)) {
    case 0: return word.slice(0, i) + letter + word.slice(i + 1);
    case 1: return word.slice(0, i) + letter + word.slice(i);
    case 2: return word.slice(0, i) + word.slice(i + 1);
    default: return i < word.length - 1 ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2) : word.slice(0, i - 1) + word[i] + word[i - 1];
  }
}

function accentuate(rng: Rng, word: string): string {
  if (ascii(word) !== word) return ascii(word);
  const positions = [...word].map((ch, i) => (ACCENTS[ch] ? i : -1)).filter((i) => i > 0);
  if (positions.length === 0) return word.toUpperCase();
  const i = rng.pick(positions);
  return word.slice(0, i) + ACCENTS[word[i]!]! + word.slice(i + 1);
}

function pickCorruptions(rng: Rng, count: number): Corruption[] {
  const total = CORRUPTIONS.reduce((s, c) => s + CORRUPTION_WEIGHTS[c], 0);
  const chosen = new Set<Corruption>();
  let guard = 0;
  while (chosen.size < count && guard++ < 50) {
    let r = rng.next() * total;
    for (const c of CORRUPTIONS) {
      r -= CORRUPTION_WEIGHTS[c];
      if (r < 0) {
        chosen.add(c);
        break;
      }
    }
  }
  return [...chosen];
}

/** A clean registration: the true values in a random input format. */
export function cleanPayload(rng: Rng, p: Person): DemographicsPayload {
  return render(rng, { ...p, addressAbbreviated: false }, []);
}

interface Mutable {
  given: string;
  middle: string | null;
  family: string;
  dob: Person['dob'] | null;
  email: string | null;
  phone: string | null;
  sex: Sex;
  address: PostalAddress | null;
  addressAbbreviated: boolean;
  ssn: string | null;
  mrn: Person['mrn'];
}

function render(rng: Rng, m: Mutable, corruptions: readonly Corruption[]): DemographicsPayload {
  const payload: DemographicsPayload = {};
  const swapOrder = corruptions.includes('name_order_swap');
  const layout = swapOrder ? 3 : rng.int(0, 3);
  const upper = rng.chance(0.15);
  const cs = (s: string) => (upper ? s.toUpperCase() : s);
  const middle = m.middle && rng.chance(0.5) ? m.middle : null;
  if (layout === 0) payload.name = cs([m.given, middle, m.family].filter(Boolean).join(' '));
  else if (layout === 1) payload.name = cs(`${m.family}, ${[m.given, middle].filter(Boolean).join(' ')}`);
  else if (layout === 2) payload.name = { given: cs(m.given), ...(middle ? { middle: cs(middle) } : {}), family: cs(m.family) };
  else payload.name = swapOrder ? cs(`${m.family} ${m.given}`) : cs(`${m.given} ${m.family}`);
  if (m.dob) payload.dob = formatDob(rng, m.dob);
  if (m.email) payload.email = m.email;
  if (m.phone) payload.phone = formatPhone(rng, m.phone);
  if (rng.chance(0.7)) payload.sex = m.sex === 'F' ? 'female' : 'male';
  if (m.address) payload.address = renderAddress(rng, m.address, m.addressAbbreviated);
  const identifiers: NonNullable<DemographicsPayload['identifiers']> = [];
  if (m.ssn) identifiers.push({ system: 'ssn', value: rng.chance(0.5) ? `${m.ssn.slice(0, 3)}-${m.ssn.slice(3, 5)}-${m.ssn.slice(5)}` : m.ssn });
  if (m.mrn) identifiers.push({ system: 'mrn', value: m.mrn.value, assigner: m.mrn.assigner });
  if (identifiers.length > 0) payload.identifiers = identifiers;
  return payload;
}

/** A query variant of `p` with `count` corruptions (fewer when some do not apply). */
export function corruptedVariant(rng: Rng, p: Person, count: number): Variant {
  const m: Mutable = {
    given: p.given, middle: p.middle, family: p.family, dob: { ...p.dob }, email: p.email, phone: p.phone,
    sex: p.sex, address: p.address, addressAbbreviated: false, ssn: p.ssn, mrn: p.mrn,
  };
  const applied: Corruption[] = [];
  for (const c of pickCorruptions(rng, count)) {
    switch (c) {
      case 'typo_given': m.given = typo(rng, m.given); break;
      case 'typo_family': m.family = typo(rng, m.family); break;
      case 'nickname': {
        const nicks = NICK[m.given.toLowerCase()];
        if (!nicks) continue;
        m.given = capital(rng.pick(nicks));
        break;
      }
      case 'dob_swap': {
        if (!m.dob || m.dob.day > 12 || m.dob.day === m.dob.month) continue;
        m.dob = { year: m.dob.year, month: m.dob.day, day: m.dob.month };
        break;
      }
      case 'dob_typo': {
        if (!m.dob) continue;
        const d = { ...m.dob };
        if (rng.chance(0.5)) {
          const day = rng.chance(0.5) ? (d.day % 10) + 10 * rng.int(0, 2) : Math.floor(d.day / 10) * 10 + rng.int(0, 9);
          if (day < 1 || day > daysIn(d.year, d.month) || day === d.day) continue;
          d.day = day;
        } else {
          const year = d.year - (d.year % 10) + rng.int(0, 9);
          if (year === d.year || year > 2024 || d.day > daysIn(year, d.month)) continue;
          d.year = year;
        }
        m.dob = d;
        break;
      }
      case 'email_variant': if (!m.email) continue; m.email = equivalentEmail(rng, m.email); break;
      case 'email_changed': m.email = newEmail(rng, m.given, m.family, p.dob.year + 1); break;
      case 'phone_changed': m.phone = newPhone(rng); break;
      case 'missing_email': if (!m.email) continue; m.email = null; break;
      case 'missing_phone': if (!m.phone) continue; m.phone = null; break;
      case 'missing_dob': m.dob = null; break;
      case 'name_order_swap': break; // applied at render time
      case 'diacritics': m.family = accentuate(rng, m.family); break;
      case 'married_name': {
        if (p.sex !== 'F') continue;
        const other = familyName(rng);
        if (other === p.family) continue;
        m.family = rng.chance(0.25) ? `${p.family}-${other}` : other;
        break;
      }
      case 'initial_only': m.given = `${m.given[0]}.`; break;
      case 'address_abbreviated': if (!m.address) continue; m.addressAbbreviated = true; break;
      case 'address_moved': m.address = newAddress(rng); break;
      case 'missing_address': if (!m.address) continue; m.address = null; break;
      case 'missing_identifiers': if (!m.ssn && !m.mrn) continue; m.ssn = null; m.mrn = null; break;
      case 'identifier_typo': {
        if (!m.ssn) continue;
        const i = rng.int(3, 8);
        const digit = String((Number(m.ssn[i]) + rng.int(1, 9)) % 10);
        const typoed = m.ssn.slice(0, i) + digit + m.ssn.slice(i + 1);
        if (typoed.slice(5) === '0000' || typoed.slice(3, 5) === '00') continue;
        m.ssn = typoed;
        break;
      }
      case 'nickname_typo': {
        const nicks = NICK[m.given.toLowerCase()];
        if (!nicks) continue;
        const nick = rng.pick(nicks);
        m.given = capital(nick.length >= 3 ? typo(rng, nick) : nick);
        break;
      }
      case 'given_space': {
        if (m.given.length < 5) continue;
        const i = rng.int(2, m.given.length - 2);
        m.given = `${m.given.slice(0, i)} ${m.given.slice(i)}`;
        break;
      }
    }
    applied.push(c);
  }
  return { personId: p.id, corruptions: applied, payload: render(rng, m, applied) };
}

/** Number of corruptions of a query: 0 (15%), 1 (45%), 2 (30%), 3 (10%). */
export function corruptionCount(rng: Rng): number {
  const r = rng.next();
  return r < 0.15 ? 0 : r < 0.6 ? 1 : r < 0.9 ? 2 : 3;
}
