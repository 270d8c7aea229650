import { type ContractCategoryName, type GrantCategoryCode, grantCategoryName } from '../lambdas/core/categories';
import { type StateCode, US_STATE_CODES, US_STATE_NAMES } from '../lambdas/core/geo';
import { classificationOf } from '../lambdas/core/ingest/contracts/notice-fields';
import { SET_ASIDE_CODES } from '../lambdas/core/query/list-query';
import { APPLICANT_TYPES, type ApplicantType, type Contract, type Funder, type Grant } from '../lambdas/core/records';
import { syntheticAssistanceListings, syntheticPscCode, syntheticSolicitationNumber } from './synthetic-identifiers';

/**
 * A deterministic synthetic catalogue for the local stack, API tests and the benchmark.
 *
 * Every record is built from its own PRNG, seeded from (spec.seed, record kind, index), so record i
 * is the same whatever the batch size and batches can be streamed without holding the catalogue in
 * memory. Dates derive from spec.today only, so the same spec always gives byte-identical output.
 */

export interface CatalogueSpec {
  seed: number;
  /** YYYY-MM-DD; deadlines and created_at are placed relative to it. */
  today: string;
  funders: number;
  /** Total grants, including the awarded ones. */
  grants: number;
  /** Total contracts, including the awarded ones. */
  contracts: number;
  /** How many of `grants` are awarded projects; they come last. */
  awardedGrants: number;
  /** How many of `contracts` are awards; they come last. */
  awardedContracts: number;
}

// 5,000 open grants and 1,000 open contracts, plus 500 awarded records between them.
export const DEFAULT_CATALOGUE: Readonly<Omit<CatalogueSpec, 'today'>> = {
  seed: 20261121,
  funders: 300,
  grants: 5350,
  contracts: 1150,
  awardedGrants: 350,
  awardedContracts: 150,
};

/**
 * The default catalogue with `grants` grants (`npm start -- --grants N`, with or without
 * --engines). The other kinds keep their default counts while at least half the grants stay open
 * (700 grants or more); below that every kind shrinks in the default proportions, so a small
 * catalogue still has mostly open grants (`--grants 200` used to fail: 350 awarded grants).
 */
export function catalogueWithGrants(grants?: number): Omit<CatalogueSpec, 'today'> {
  if (grants === undefined) return DEFAULT_CATALOGUE;
  if (grants >= DEFAULT_CATALOGUE.awardedGrants * 2) return { ...DEFAULT_CATALOGUE, grants };
  const share = grants / DEFAULT_CATALOGUE.grants;
  const scaled = (count: number, least: number) => Math.max(least, Math.round(count * share));
  return {
    ...DEFAULT_CATALOGUE,
    grants,
    funders: scaled(DEFAULT_CATALOGUE.funders, 2),
    contracts: scaled(DEFAULT_CATALOGUE.contracts, 1),
    awardedGrants: Math.min(grants - 1, scaled(DEFAULT_CATALOGUE.awardedGrants, 0)),
    awardedContracts: scaled(DEFAULT_CATALOGUE.awardedContracts, 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Randomness

const UINT32_RANGE = 4_294_967_296;
const STREAM = { funder: 1, grant: 2, contract: 3 } as const;
type Stream = (typeof STREAM)[keyof typeof STREAM];

/** murmur3's finaliser: a bijection on 32-bit integers, so distinct inputs never collide. */
function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * sfc32 rather than mulberry32: mulberry32's 32-bit state would give some of 100,000 records
 * overlapping random sequences, while sfc32's 128-bit state keeps every record's stream apart.
 */
class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream: Stream, index: number) {
    const seedLow = seed >>> 0;
    const seedHigh = Math.floor(seed / UINT32_RANGE) >>> 0;
    this.a = mix32(seedLow ^ 0x9e3779b9);
    this.b = mix32(seedHigh ^ Math.imul(stream, 0x27d4eb2d));
    this.c = index >>> 0;
    this.d = mix32(this.a ^ mix32(index + Math.imul(stream, 0x165667b1)));
    // The first outputs of sfc32 still echo the seed words; discard them.
    for (let round = 0; round < 12; round++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.uint32() / UINT32_RANGE;
  }

  /** Uniform integer in [0, count). */
  below(count: number): number {
    return Math.floor(this.float() * count);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.below(max - min + 1);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return itemAt(items, this.below(items.length));
  }

  /** `count` distinct items, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const chosen = new Set<number>();
    const wanted = Math.min(count, items.length);
    while (chosen.size < wanted) chosen.add(this.below(items.length));
    return [...chosen].sort((x, y) => x - y).map((position) => itemAt(items, position));
  }

  /** Log-uniform in [min, max]: award sizes span orders of magnitude and cluster at the low end. */
  logUniform(min: number, max: number): number {
    return Math.exp(Math.log(min) + this.float() * (Math.log(max) - Math.log(min)));
  }

  hex(digits: number): string {
    let out = '';
    while (out.length < digits) out += hex(this.uint32(), 8);
    return out.slice(0, digits);
  }
}

class WeightedTable<T> {
  private readonly items: readonly T[];
  private readonly cumulative: number[];
  private readonly total: number;

  constructor(entries: ReadonlyArray<readonly [T, number]>) {
    if (entries.length === 0) throw new RangeError('A weighted table needs at least one entry');
    this.items = entries.map(([item]) => item);
    let running = 0;
    this.cumulative = entries.map(([, weight]) => (running += weight));
    this.total = running;
  }

  pick(rng: Random): T {
    const target = rng.float() * this.total;
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (itemAt(this.cumulative, middle) > target) high = middle;
      else low = middle + 1;
    }
    return itemAt(this.items, low);
  }
}

function itemAt<T>(items: readonly T[], position: number): T {
  if (position < 0 || position >= items.length) throw new RangeError(`No item at ${position} of ${items.length}`);
  return items[position] as T;
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0');
}

/**
 * UUID v4 shape. The first 32 bits are a bijection of the index, so ids of one kind are unique by
 * construction rather than by luck; the other bits come from the record's PRNG.
 */
function recordId(rng: Random, seed: number, stream: Stream, index: number): string {
  const head = mix32((index >>> 0) ^ mix32((seed >>> 0) ^ Math.imul(stream, 0x632be5ab)));
  const b = rng.uint32();
  const c = rng.uint32();
  const d = rng.uint32();
  const variant = 0x8000 | ((c >>> 16) & 0x3fff);
  return `${hex(head, 8)}-${hex(b >>> 16, 4)}-4${hex(b & 0xfff, 3)}-${hex(variant, 4)}-${hex(c & 0xffff, 4)}${hex(d, 8)}`;
}

// ---------------------------------------------------------------------------------------------
// Dates: whole days since the epoch, so arithmetic never touches local time zones.

const DAY_MS = 86_400_000;
const SECONDS_PER_DAY = 86_400;
const YEAR_DAYS = 365;

function epochDay(isoDay: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDay);
  const millis = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!Number.isFinite(millis) || new Date(millis).toISOString().slice(0, 10) !== isoDay) {
    throw new RangeError(`today must be a real date as YYYY-MM-DD, got "${isoDay}"`);
  }
  return millis / DAY_MS;
}

function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** A moment on `day` at a random whole second: '2025-03-14T15:09:26.000Z'. */
function isoDateTime(day: number, rng: Random): string {
  return new Date(day * DAY_MS + rng.below(SECONDS_PER_DAY) * 1000).toISOString();
}

function yearOf(day: number): number {
  return new Date(day * DAY_MS).getUTCFullYear();
}

/** US federal fiscal years start on 1 October. */
function fiscalYearOf(day: number): number {
  const date = new Date(day * DAY_MS);
  return date.getUTCFullYear() + (date.getUTCMonth() >= 9 ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------
// Text helpers

function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Lower-cases a title phrase for running text. Hyphenated parts are judged one by one, so
 * "Trauma-Informed" becomes "trauma-informed" while STEM, EPSCoR and the K of K-12 stay.
 */
function inSentence(phrase: string): string {
  const lowerPart = (part: string) => (part.length === 1 || /[A-Z]/.test(part.slice(1)) ? part : part.toLowerCase());
  return phrase
    .split(' ')
    .map((word) => word.split('-').map(lowerPart).join('-'))
    .join(' ');
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '');
}

function padded(value: number, digits: number): string {
  return String(value).padStart(digits, '0');
}

/** Rounds an amount the way funders publish ceilings: 2 significant figures, at least $500. */
function roundedAmount(value: number): number {
  const step = Math.max(500, 10 ** Math.floor(Math.log10(value) - 1));
  return Math.round(value / step) * step;
}

// ---------------------------------------------------------------------------------------------
// Geography

/** Approximate 2020 population in millions; weights single-state picks towards big states. */
const POPULATION_MILLIONS: Readonly<Record<StateCode, number>> = {
  AL: 5.0,
  AK: 0.7,
  AZ: 7.2,
  AR: 3.0,
  CA: 39.5,
  CO: 5.8,
  CT: 3.6,
  DE: 1.0,
  FL: 21.5,
  GA: 10.7,
  HI: 1.5,
  ID: 1.8,
  IL: 12.8,
  IN: 6.8,
  IA: 3.2,
  KS: 2.9,
  KY: 4.5,
  LA: 4.7,
  ME: 1.4,
  MD: 6.2,
  MA: 7.0,
  MI: 10.1,
  MN: 5.7,
  MS: 3.0,
  MO: 6.2,
  MT: 1.1,
  NE: 2.0,
  NV: 3.1,
  NH: 1.4,
  NJ: 9.3,
  NM: 2.1,
  NY: 20.2,
  NC: 10.4,
  ND: 0.8,
  OH: 11.8,
  OK: 4.0,
  OR: 4.2,
  PA: 13.0,
  RI: 1.1,
  SC: 5.1,
  SD: 0.9,
  TN: 6.9,
  TX: 29.1,
  UT: 3.3,
  VT: 0.6,
  VA: 8.6,
  WA: 7.7,
  WV: 1.8,
  WI: 5.9,
  WY: 0.6,
  DC: 0.7,
  PR: 3.3,
  VI: 0.1,
  GU: 0.2,
  AS: 0.05,
  MP: 0.05,
};

// The flat +1 keeps the smallest territories common enough to appear in every few thousand records.
const STATE_WEIGHTS = new WeightedTable(US_STATE_CODES.map((code) => [code, 1 + POPULATION_MILLIONS[code] / 4] as const));

/**
 * Cities for "Local: City, ST" geography and place-of-performance titles. None contains another
 * state's name, so geo.statesMentionedIn reads each "Local:" text back as exactly its state.
 */
const CITIES: Readonly<Record<StateCode, readonly string[]>> = {
  AL: ['Birmingham', 'Montgomery', 'Huntsville', 'Mobile'],
  AK: ['Anchorage', 'Fairbanks', 'Juneau'],
  AZ: ['Phoenix', 'Tucson', 'Flagstaff'],
  AR: ['Little Rock', 'Fayetteville'],
  CA: ['Los Angeles', 'San Diego', 'Fresno', 'Sacramento', 'Oakland'],
  CO: ['Denver', 'Pueblo', 'Grand Junction'],
  CT: ['Hartford', 'New Haven'],
  DE: ['Wilmington', 'Dover'],
  FL: ['Miami', 'Tampa', 'Jacksonville', 'Orlando'],
  GA: ['Atlanta', 'Savannah', 'Macon'],
  HI: ['Honolulu', 'Hilo'],
  ID: ['Boise', 'Pocatello'],
  IL: ['Chicago', 'Springfield', 'Peoria'],
  IN: ['Indianapolis', 'Fort Wayne', 'Gary'],
  IA: ['Des Moines', 'Cedar Rapids'],
  KS: ['Wichita', 'Topeka'],
  KY: ['Louisville', 'Lexington'],
  LA: ['New Orleans', 'Baton Rouge', 'Shreveport'],
  ME: ['Bangor', 'Augusta'],
  MD: ['Baltimore', 'Annapolis'],
  MA: ['Boston', 'Worcester'],
  MI: ['Detroit', 'Grand Rapids', 'Flint'],
  MN: ['Minneapolis', 'Duluth'],
  MS: ['Jackson', 'Gulfport'],
  MO: ['St. Louis', 'Columbia'],
  MT: ['Billings', 'Missoula'],
  NE: ['Omaha', 'Lincoln'],
  NV: ['Las Vegas', 'Reno'],
  NH: ['Manchester', 'Concord'],
  NJ: ['Newark', 'Trenton', 'Camden'],
  NM: ['Albuquerque', 'Las Cruces'],
  NY: ['Buffalo', 'Rochester', 'Syracuse', 'Albany'],
  NC: ['Charlotte', 'Raleigh', 'Asheville'],
  ND: ['Fargo', 'Bismarck'],
  OH: ['Columbus', 'Cleveland', 'Cincinnati'],
  OK: ['Tulsa', 'Oklahoma City'],
  OR: ['Portland', 'Eugene'],
  PA: ['Philadelphia', 'Pittsburgh', 'Scranton'],
  RI: ['Providence'],
  SC: ['Charleston', 'Columbia'],
  SD: ['Sioux Falls', 'Rapid City'],
  TN: ['Nashville', 'Memphis', 'Knoxville'],
  TX: ['Austin', 'Houston', 'El Paso', 'San Antonio', 'Dallas'],
  UT: ['Salt Lake City', 'Provo'],
  VT: ['Burlington', 'Montpelier'],
  VA: ['Richmond', 'Norfolk', 'Roanoke'],
  WA: ['Seattle', 'Spokane', 'Tacoma'],
  WV: ['Morgantown', 'Huntington'],
  WI: ['Milwaukee', 'Madison'],
  WY: ['Cheyenne', 'Casper'],
  DC: ['Washington'],
  PR: ['San Juan', 'Ponce', 'Mayaguez'],
  VI: ['Charlotte Amalie', 'Christiansted'],
  GU: ['Hagatna', 'Dededo'],
  AS: ['Pago Pago'],
  MP: ['Saipan'],
};

/** Multi-state grants and contracts draw their states from one region, as real programmes do. */
const REGIONS: ReadonlyArray<readonly StateCode[]> = [
  ['CT', 'ME', 'MA', 'NH', 'RI', 'VT'],
  ['DE', 'MD', 'NJ', 'NY', 'PA', 'DC'],
  ['AL', 'FL', 'GA', 'MS', 'NC', 'SC', 'TN'],
  ['KY', 'TN', 'WV', 'VA', 'OH', 'PA', 'NC'],
  ['IL', 'IN', 'IA', 'MI', 'MN', 'OH', 'WI', 'MO'],
  ['KS', 'NE', 'ND', 'SD', 'OK'],
  ['AZ', 'NM', 'TX', 'OK', 'NV'],
  ['CO', 'ID', 'MT', 'UT', 'WY', 'NV'],
  ['CA', 'OR', 'WA', 'AK', 'HI'],
  ['TX', 'LA', 'MS', 'AL', 'FL'],
  ['HI', 'GU', 'MP', 'AS'],
  ['PR', 'VI', 'FL'],
  ['AR', 'LA', 'MS', 'MO', 'TN'],
];

/** A state's name as it reads after "in": "in the U.S. Virgin Islands", "in Texas". */
function statePhrase(state: StateCode): string {
  return state === 'VI' || state === 'MP' ? `the ${US_STATE_NAMES[state]}` : US_STATE_NAMES[state];
}

const STATE_POSITION: ReadonlyMap<StateCode, number> = new Map(US_STATE_CODES.map((code, position) => [code, position]));

type PlacementScope = 'national' | 'international' | 'state' | 'local' | 'multi';

interface Placement {
  scope: PlacementScope;
  states: StateCode[];
  geography: string;
  city: string | null;
}

// A function rather than a constant so no two records share one mutable states array.
function nationalPlacement(): Placement {
  return { scope: 'national', states: [], geography: 'National', city: null };
}

function statePlacement(state: StateCode, city: string | null): Placement {
  // "Washington, DC" would read back as Washington state too, so DC keeps its full name.
  if (city === null || state === 'DC') return { scope: 'state', states: [state], geography: US_STATE_NAMES[state], city };
  return { scope: 'local', states: [state], geography: `Local: ${city}, ${state}`, city };
}

function multiStatePlacement(rng: Random): Placement {
  const region = rng.pick(REGIONS);
  const states = rng.sample(region, rng.between(2, Math.min(4, region.length)));
  states.sort((x, y) => (STATE_POSITION.get(x) ?? 0) - (STATE_POSITION.get(y) ?? 0));
  return { scope: 'multi', states, geography: `Multi-state: ${states.join(', ')}`, city: null };
}

// ---------------------------------------------------------------------------------------------
// Grant topics. Every vocabulary list of a topic mentions its keywords, so a keyword search for
// "broadband" or "police" finds that topic's records.

interface GrantTopic {
  key: string;
  /** Phrase for funder summaries. */
  focus: string;
  /** Title heads, completed by a programme word ("Grants", "Program") and maybe a population. */
  subjects: readonly string[];
  /** Grants.gov category codes, the primary first. */
  categories: readonly GrantCategoryCode[];
  populations: readonly string[];
  /** What the money pays for; completes "This program funds ...". */
  activities: readonly string[];
  sentences: readonly string[];
  /** For awarded project titles: "Improving <outcome> through <approach>". */
  outcomes: readonly string[];
  approaches: readonly string[];
  /** Typical award ceiling range in USD. */
  amount: readonly [number, number];
  applicants: readonly ApplicantType[];
}

const GRANT_TOPICS = [
  {
    key: 'broadband',
    focus: 'broadband access and digital equity',
    subjects: [
      'Rural Broadband Expansion',
      'Broadband Infrastructure Deployment',
      'Digital Equity and Broadband Adoption',
      'Middle Mile Broadband Network',
      'Community Broadband Connectivity',
    ],
    categories: ['CD', 'IIJ', 'RD'],
    populations: ['Tribal Communities', 'Rural Communities', 'Unserved Areas', 'Low-Income Households'],
    activities: [
      'the deployment of high-speed broadband infrastructure in unserved and underserved areas',
      'last-mile fiber and fixed wireless broadband service',
      'digital literacy training and affordable broadband adoption',
    ],
    sentences: [
      'Eligible projects must deliver broadband service of at least 100/20 Mbps to locations that lack reliable high-speed internet.',
      'Funds may be used for fiber construction, fixed wireless equipment and middle mile broadband network capacity.',
      'Applicants must submit a map of the proposed broadband service area and a list of unserved locations.',
      'Priority is given to broadband projects that partner with anchor institutions such as schools, libraries and health clinics.',
      'Digital navigators and device lending programs that improve internet adoption are allowable costs.',
    ],
    outcomes: ['Broadband Access', 'Rural Internet Connectivity', 'Digital Equity', 'High-Speed Internet Adoption'],
    approaches: ['Fiber-to-the-Home Deployment', 'Fixed Wireless Networks', 'Community Digital Navigators', 'Public-Private Broadband Partnerships'],
    amount: [250_000, 50_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit', 'for_profit'],
  },
  {
    key: 'mental-health',
    focus: 'mental and behavioral health services',
    subjects: [
      'Community Mental Health Workforce',
      'Behavioral Health Integration',
      'Crisis Response and Suicide Prevention',
      'School-Based Mental Health Services',
      'Mental Health Awareness Training',
    ],
    categories: ['HL', 'ISS'],
    populations: ['Youth', 'Veterans', 'Rural Communities', 'Tribal Communities', 'Adults with Serious Mental Illness'],
    activities: [
      'community-based mental health and behavioral health services',
      'the recruitment and training of mental health professionals',
      '988 crisis line capacity and mobile mental health crisis response teams',
    ],
    sentences: [
      'Funded programs expand access to evidence-based mental health treatment and suicide prevention.',
      'Applicants should describe how behavioral health services will be integrated with primary care.',
      'Grant funds may support mental health counselors, peer support specialists and clinical supervision.',
      'Projects must collect outcome data on mental health screening, referral and treatment.',
    ],
    outcomes: ['Youth Mental Health Outcomes', 'Access to Behavioral Health Care', 'Suicide Prevention', 'Crisis Response Capacity'],
    approaches: ['Telehealth', 'Peer Support Networks', 'School-Based Counseling', 'Collaborative Care Models'],
    amount: [50_000, 5_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
  },
  {
    key: 'substance-use',
    focus: 'substance use prevention and opioid recovery',
    subjects: ['Opioid Overdose Prevention', 'Substance Use Disorder Treatment', 'Recovery Support Services', 'Rural Opioid Response'],
    categories: ['HL', 'ISS'],
    populations: ['Rural Communities', 'Pregnant and Postpartum Women', 'Justice-Involved Individuals', 'Tribal Communities'],
    activities: [
      'opioid overdose prevention, naloxone distribution and recovery support',
      'medication-assisted treatment for opioid use disorder',
      'peer recovery coaching and substance use prevention education',
    ],
    sentences: [
      'Programs should expand access to medications for opioid use disorder and naloxone.',
      'Funds may support recovery housing, peer recovery specialists and harm reduction services.',
      'Applicants must coordinate substance use treatment with local emergency departments and diversion programs.',
      'Projects are expected to reduce opioid overdose deaths in the service area.',
    ],
    outcomes: ['Overdose Prevention', 'Recovery Outcomes', 'Access to Addiction Treatment'],
    approaches: ['Peer Recovery Coaching', 'Medication-Assisted Treatment', 'Emergency Department Bridge Programs'],
    amount: [100_000, 4_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal'],
  },
  {
    key: 'maternal-health',
    focus: 'maternal and child health',
    subjects: ['Maternal and Child Health', 'Healthy Start', 'Rural Maternity and Obstetrics Management', 'Infant Mortality Reduction'],
    categories: ['HL'],
    populations: ['Rural Communities', 'Low-Income Families', 'Tribal Communities', 'Pregnant Women'],
    activities: [
      'prenatal care, postpartum support and infant health services',
      'community health worker programs for expectant mothers',
      'obstetric care networks in maternity care deserts',
    ],
    sentences: [
      'Funds support prenatal and postpartum care that reduces maternal mortality and severe maternal morbidity.',
      'Projects may train doulas, midwives and community health workers to support mothers and infants.',
      'Applicants must describe how they will reach women in maternity care deserts.',
      'Home visiting services for new parents and infants are an allowable maternal health activity.',
    ],
    outcomes: ['Rural Maternal Health Outcomes', 'Infant Health', 'Postpartum Care', 'Prenatal Care Access'],
    approaches: ['Telehealth', 'Community Health Workers', 'Doula Programs', 'Home Visiting'],
    amount: [100_000, 3_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
  },
  {
    key: 'public-health',
    focus: 'public health and chronic disease prevention',
    subjects: [
      'Chronic Disease Prevention',
      'Rural Health Care Services Outreach',
      'Childhood Immunization',
      'Community Health Center Expansion',
      'Public Health Infrastructure',
    ],
    categories: ['HL', 'ACA', 'CD'],
    populations: ['Rural Communities', 'Underserved Communities', 'Seniors', 'Uninsured Adults'],
    activities: [
      'community-based chronic disease prevention and health promotion',
      'primary care services at community health centers',
      'public health laboratory and epidemiology capacity',
    ],
    sentences: [
      'Programs address diabetes, heart disease and other chronic conditions through prevention and health screening.',
      'Funds may support community health workers, health education and care coordination.',
      'Applicants should use public health surveillance data to identify health disparities in the service area.',
      'Projects must strengthen partnerships between clinics, hospitals and local health departments.',
    ],
    outcomes: ['Chronic Disease Outcomes', 'Primary Care Access', 'Vaccination Rates', 'Health Equity'],
    approaches: ['Mobile Health Clinics', 'Community Health Workers', 'Data-Driven Public Health Surveillance'],
    amount: [50_000, 5_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
  },
  {
    key: 'k12-education',
    focus: 'K-12 education and STEM learning',
    subjects: [
      'STEM Education',
      'Teacher Quality Partnership',
      'Literacy and Reading Achievement',
      'Computer Science Education',
      'Full-Service Community Schools',
    ],
    categories: ['ED'],
    populations: ['Students in High-Poverty Schools', 'Rural Schools', 'English Learners', 'Students with Disabilities'],
    activities: [
      'classroom instruction in science, technology, engineering and mathematics',
      'teacher recruitment, professional development and retention',
      'evidence-based literacy instruction for K-12 students',
    ],
    sentences: [
      'Projects should improve student achievement in mathematics, science and reading.',
      'Funds may support teacher professional development, curriculum materials and after-school learning.',
      'Applicants must partner with at least one local educational agency or school district.',
      'Priority is given to schools serving a high percentage of students from low-income families.',
    ],
    outcomes: ['Student Achievement in Mathematics', 'Early Literacy', 'Teacher Retention', 'STEM Pathways'],
    approaches: ['High-Quality Tutoring', 'Project-Based Learning', 'Teacher Residency Programs', 'Family Engagement'],
    amount: [25_000, 5_000_000],
    applicants: ['municipality', 'nonprofit', 'academic', 'tribal'],
  },
  {
    key: 'higher-education',
    focus: 'college access and higher education',
    subjects: ['College Access and Completion', 'Minority-Serving Institutions Capacity Building', 'Student Support Services', 'Postsecondary Career Pathways'],
    categories: ['ED', 'ELT'],
    populations: ['First-Generation College Students', 'Low-Income Students', 'Tribal Colleges', 'Student Veterans'],
    activities: [
      'academic advising, tutoring and mentoring for college students',
      'institutional capacity at minority-serving colleges and universities',
      'dual enrollment and transfer pathways between community colleges and universities',
    ],
    sentences: [
      'Programs are expected to increase college enrollment, persistence and graduation rates.',
      'Funds may support student success coaches, financial aid counseling and summer bridge programs for college students.',
      'Applicants must be accredited institutions of higher education or consortia of colleges.',
      'Projects should strengthen partnerships with employers to align college degrees with in-demand careers.',
    ],
    outcomes: ['College Completion', 'Student Persistence', 'Transfer Success'],
    approaches: ['Guided Pathways', 'Peer Mentoring', 'Dual Enrollment'],
    amount: [100_000, 3_000_000],
    applicants: ['academic', 'nonprofit'],
  },
  {
    key: 'early-childhood',
    focus: 'early childhood education and child care',
    subjects: ['Early Childhood Education', 'Child Care Access', 'Head Start Expansion', 'Preschool Development'],
    categories: ['ED', 'ISS'],
    populations: ['Low-Income Families', 'Infants and Toddlers', 'Working Parents', 'Rural Communities'],
    activities: [
      'high-quality child care and preschool programs',
      'early learning workforce training and compensation',
      'developmental screening for infants and toddlers',
    ],
    sentences: [
      'Funds expand the supply of affordable, high-quality child care and preschool slots.',
      'Projects may support early childhood educator credentials, coaching and wage supplements.',
      'Applicants should coordinate with Head Start and state early learning systems.',
      'Programs must use developmentally appropriate early childhood curricula and family engagement strategies.',
    ],
    outcomes: ['Kindergarten Readiness', 'Child Care Supply', 'Early Learning Quality'],
    approaches: ['Family Child Care Networks', 'Early Educator Apprenticeships', 'Universal Preschool Pilots'],
    amount: [50_000, 4_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'for_profit'],
  },
  {
    key: 'arts',
    focus: 'the arts and creative communities',
    subjects: ['Arts Education', 'Community Arts Engagement', 'Creative Placemaking', 'Artist Fellowship', 'Folk and Traditional Arts'],
    categories: ['AR'],
    populations: ['Youth', 'Rural Communities', 'Underserved Communities', 'Tribal Communities', 'Older Adults'],
    activities: [
      'arts programming, exhibitions and performances',
      'arts education in schools and community centers',
      'creative placemaking projects that integrate artists into local planning',
    ],
    sentences: [
      'Projects may include music, theater, dance, visual arts, media arts and literary arts.',
      'Funds support artist fees, public performances, exhibitions and arts education residencies.',
      'Applicants must demonstrate artistic excellence and meaningful community engagement.',
      'Arts organizations are encouraged to reach audiences with limited access to the arts.',
    ],
    outcomes: ['Arts Participation', 'Creative Economies', 'Arts Learning'],
    approaches: ['Artist Residencies', 'Public Art Installations', 'Community Theater'],
    amount: [5_000, 150_000],
    applicants: ['nonprofit', 'municipality', 'individual', 'tribal'],
  },
  {
    key: 'humanities',
    focus: 'the humanities, museums, libraries and historic preservation',
    subjects: ['Public Humanities Projects', 'Preservation and Access', 'Museums for America', 'Historic Preservation', 'Library Services and Technology'],
    categories: ['HU', 'ED'],
    populations: ['Local Communities', 'Tribal Communities', 'Rural Libraries', 'Underserved Audiences'],
    activities: [
      'public humanities programs in history, literature and philosophy',
      'the preservation and digitization of historical collections',
      'museum and library services for the public',
    ],
    sentences: [
      'Projects may digitize archives, conserve historical collections and create public exhibitions.',
      'Funds support humanities scholarship, oral history and community conversations about history and culture.',
      'Applicants must involve humanities scholars in planning and carrying out the project.',
      'Libraries and museums may use grants to expand public access to cultural heritage.',
    ],
    outcomes: ['Access to Cultural Heritage', 'Public Engagement with History', 'Archival Preservation'],
    approaches: ['Digital Archives', 'Oral History Projects', 'Traveling Exhibitions'],
    amount: [10_000, 500_000],
    applicants: ['nonprofit', 'academic', 'municipality', 'tribal', 'individual'],
  },
  {
    key: 'environment',
    focus: 'environmental conservation and habitat restoration',
    subjects: [
      'Habitat Restoration',
      'Watershed Protection',
      'Wildlife Conservation',
      'Environmental Justice Collaborative Problem-Solving',
      'Brownfields Cleanup',
      'Urban Forestry',
    ],
    categories: ['ENV', 'NR'],
    populations: ['Disadvantaged Communities', 'Rural Communities', 'Tribal Nations', 'Coastal Communities'],
    activities: [
      'habitat restoration and wildlife conservation',
      'brownfield assessment and environmental cleanup of contaminated sites',
      'watershed protection and water quality monitoring',
    ],
    sentences: [
      'Projects should protect and restore wetlands, rivers, forests and wildlife habitat.',
      'Funds may support environmental monitoring, invasive species removal and native plantings.',
      'Applicants must describe measurable environmental outcomes such as acres restored or pollution reduced.',
      'Environmental justice projects should engage residents affected by pollution in decision-making.',
    ],
    outcomes: ['Water Quality', 'Wildlife Habitat', 'Urban Tree Canopy', 'Air Quality'],
    approaches: ['Community Science', 'Green Infrastructure', 'Wetland Restoration'],
    amount: [20_000, 5_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
  },
  {
    key: 'climate',
    focus: 'climate resilience and adaptation',
    subjects: ['Climate Resilience', 'Coastal Resilience', 'Extreme Heat Preparedness', 'Climate Adaptation Planning', 'Community Climate Resilience'],
    categories: ['ENV', 'DPR', 'IIJ'],
    populations: ['Coastal Communities', 'Frontline Communities', 'Tribal Nations', 'Small Towns'],
    activities: [
      'climate adaptation and resilience planning',
      'nature-based solutions that reduce climate-driven flood and wildfire risk',
      'community preparedness for extreme heat, drought and sea level rise',
    ],
    sentences: [
      'Projects must reduce the risk of climate impacts such as flooding, wildfire, drought and extreme heat.',
      'Funds may support climate resilience planning, nature-based infrastructure and climate risk assessments.',
      'Applicants should use the best available climate science to set project priorities.',
      'Greenhouse gas reduction co-benefits are encouraged but not required.',
    ],
    outcomes: ['Coastal Resilience', 'Climate Adaptation', 'Flood Resilience', 'Heat Resilience'],
    approaches: ['Nature-Based Solutions', 'Living Shorelines', 'Community Resilience Hubs'],
    amount: [100_000, 20_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit', 'academic'],
  },
  {
    key: 'energy',
    focus: 'clean energy and energy efficiency',
    subjects: [
      'Clean Energy Deployment',
      'Energy Efficiency and Conservation',
      'Solar Energy Access',
      'Grid Resilience',
      'Weatherization Assistance',
      'Electric Vehicle Charging Infrastructure',
    ],
    categories: ['EN', 'IIJ', 'ENV'],
    populations: ['Low-Income Households', 'Rural Electric Cooperatives', 'Tribal Communities', 'Small Businesses'],
    activities: [
      'solar, wind and battery storage energy projects',
      'energy efficiency upgrades and weatherization of homes and public buildings',
      'electric grid resilience and modernization',
    ],
    sentences: [
      'Projects should reduce energy costs and greenhouse gas emissions through renewable energy and energy efficiency.',
      'Funds may support solar installations, heat pumps, battery storage and building retrofits.',
      'Applicants must estimate annual energy savings and emissions reductions.',
      'Grid resilience projects may harden power lines and add microgrids for critical facilities.',
    ],
    outcomes: ['Energy Affordability', 'Grid Reliability', 'Clean Energy Access'],
    approaches: ['Community Solar', 'Microgrids', 'Building Retrofits', 'Heat Pump Deployment'],
    amount: [100_000, 50_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit', 'for_profit', 'academic'],
  },
  {
    key: 'housing',
    focus: 'affordable housing and homelessness prevention',
    subjects: ['Affordable Housing Development', 'Homelessness Prevention', 'Fair Housing', 'Lead Hazard Reduction', 'Rural Housing Repair'],
    categories: ['HO', 'CD'],
    populations: ['Low-Income Families', 'Seniors', 'Veterans', 'People Experiencing Homelessness', 'Youth Aging Out of Foster Care'],
    activities: [
      'the construction and rehabilitation of affordable rental housing',
      'rapid rehousing and homelessness prevention services',
      'lead paint hazard control in older housing',
    ],
    sentences: [
      'Funds support affordable housing construction, rehabilitation and down payment assistance.',
      'Homelessness programs may provide rental assistance, case management and supportive housing.',
      'Applicants must show that assisted housing will remain affordable for low-income households.',
      'Home repair grants help seniors and people with disabilities stay safely in their housing.',
    ],
    outcomes: ['Housing Stability', 'Affordable Housing Supply', 'Healthy Homes'],
    approaches: ['Permanent Supportive Housing', 'Community Land Trusts', 'Home Repair Programs'],
    amount: [50_000, 10_000_000],
    applicants: ['municipality', 'nonprofit', 'tribal', 'for_profit'],
  },
  {
    key: 'agriculture',
    focus: 'agriculture and farm viability',
    subjects: [
      'Specialty Crop Competitiveness',
      'Beginning Farmer and Rancher Development',
      'Sustainable Agriculture Research and Education',
      'Farmers Market Promotion',
      'Urban Agriculture and Innovative Production',
    ],
    categories: ['AG', 'ST'],
    populations: ['Beginning Farmers', 'Socially Disadvantaged Producers', 'Small Farms', 'Veteran Farmers'],
    activities: [
      'training and technical assistance for farmers and ranchers',
      'specialty crop marketing and agricultural research',
      'soil health and sustainable agriculture practices',
    ],
    sentences: [
      'Projects should strengthen the competitiveness of specialty crops such as fruits, vegetables and nuts.',
      'Funds may support farmer training, farm business planning and access to land and credit.',
      'Applicants should describe how agricultural producers will adopt conservation practices that improve soil health.',
      'Local food marketing projects may support farmers markets, food hubs and community supported agriculture.',
    ],
    outcomes: ['Farm Viability', 'Soil Health', 'Local Food Systems'],
    approaches: ['Farmer-to-Farmer Training', 'Cover Crop Adoption', 'Regional Food Hubs'],
    amount: [25_000, 1_000_000],
    applicants: ['nonprofit', 'academic', 'for_profit', 'tribal', 'individual'],
  },
  {
    key: 'public-safety',
    focus: 'public safety and law enforcement',
    subjects: [
      'Law Enforcement Equipment',
      'Police Body-Worn Camera',
      'Community Policing Development',
      'Firefighter Equipment and Training',
      'Emergency Communications Interoperability',
      'Violent Crime Reduction',
    ],
    categories: ['LJL', 'DPR'],
    populations: ['Small and Rural Law Enforcement Agencies', 'Tribal Police Departments', 'Local Fire Departments', 'High-Crime Neighborhoods'],
    activities: [
      'police equipment, training and technology for law enforcement agencies',
      'community policing and violence intervention strategies',
      'firefighter protective equipment and emergency vehicles for public safety agencies',
    ],
    sentences: [
      'Funds may be used to purchase police equipment such as body-worn cameras, radios and protective gear.',
      'Law enforcement agencies must adopt policies on the use and retention of police camera footage.',
      'Projects should strengthen trust between police officers and the communities they serve.',
      'Fire departments and emergency medical services may request public safety equipment, training and vehicle funding.',
      'Applicants must describe how the project will reduce violent crime or improve officer safety.',
    ],
    outcomes: ['Officer Safety', 'Community Trust in Policing', 'Community Safety', 'Emergency Response Times'],
    approaches: ['Body-Worn Cameras', 'Co-Responder Programs', 'Interoperable Radio Systems', 'Focused Deterrence'],
    amount: [10_000, 3_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit'],
  },
  {
    key: 'justice',
    focus: 'justice, victim services and legal aid',
    subjects: ['Victim Services', 'Legal Assistance for Victims', 'Reentry and Recidivism Reduction', 'Juvenile Justice Diversion', 'Access to Justice'],
    categories: ['LJL', 'ISS'],
    populations: ['Survivors of Domestic Violence', 'Justice-Involved Youth', 'Returning Citizens', 'Crime Victims'],
    activities: [
      'legal aid and victim services for survivors of crime',
      'reentry services that reduce recidivism',
      'juvenile justice diversion and court improvement',
    ],
    sentences: [
      'Funds support legal representation, victim advocacy and emergency shelter for survivors of domestic violence.',
      'Reentry programs may provide job training, housing navigation and mentoring for people leaving prison.',
      'Applicants must partner with courts, prosecutors or community-based victim service providers.',
      'Projects should reduce recidivism and improve outcomes for people involved in the justice system.',
    ],
    outcomes: ['Reentry Success', 'Survivor Safety', 'Access to Legal Aid'],
    approaches: ['Holistic Defense', 'Trauma-Informed Victim Advocacy', 'Reentry Mentoring'],
    amount: [50_000, 2_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
  },
  {
    key: 'workforce',
    focus: 'workforce development and job training',
    subjects: [
      'Workforce Development',
      'Registered Apprenticeship Expansion',
      'Good Jobs Challenge',
      'Youth Employment and Training',
      'Dislocated Worker Training',
    ],
    categories: ['ELT', 'ED'],
    populations: ['Dislocated Workers', 'Young Adults', 'People with Disabilities', 'Rural Communities', 'Veterans'],
    activities: [
      'job training and registered apprenticeship programs',
      'sector partnerships that connect workers to in-demand jobs',
      'career services and supportive services for job seekers',
    ],
    sentences: [
      'Projects should train workers for in-demand occupations in health care, manufacturing, construction and information technology.',
      'Funds may support apprenticeship programs, industry-recognized credentials and career coaching.',
      'Applicants must partner with employers who commit to hiring workforce program graduates.',
      'Supportive services such as child care and transportation help participants complete job training.',
    ],
    outcomes: ['Employment and Earnings', 'Apprenticeship Completion', 'Workforce Readiness'],
    approaches: ['Sector Partnerships', 'Pre-Apprenticeship Programs', 'Employer-Led Training'],
    amount: [100_000, 10_000_000],
    applicants: ['nonprofit', 'municipality', 'academic', 'for_profit', 'tribal'],
  },
  {
    key: 'science-research',
    focus: 'scientific research and innovation',
    subjects: [
      'Fundamental Research',
      'Research Infrastructure Improvement',
      'Early Career Investigator',
      'Biomedical Research',
      'Materials Science Research',
      'Artificial Intelligence Research Institutes',
    ],
    categories: ['ST'],
    populations: ['Early Career Investigators', 'Minority-Serving Institutions', 'EPSCoR Jurisdictions', 'Graduate Students'],
    activities: [
      'fundamental scientific research in physical, biological and computational sciences',
      'shared research instrumentation and laboratory infrastructure',
      'graduate and postdoctoral research training',
    ],
    sentences: [
      'Research proposals are evaluated on intellectual merit and broader impacts.',
      'Funds support research personnel, laboratory equipment, materials and publication costs.',
      'Research teams are encouraged to include collaborators from multiple disciplines and institutions.',
      'Projects may include data sharing, open-source software and training for the next generation of scientists.',
    ],
    outcomes: [
      'Understanding of Protein Folding',
      'Quantum Sensing Capabilities',
      'Climate Model Accuracy',
      'Materials Discovery',
      'Machine Learning Reliability',
    ],
    approaches: ['Machine Learning', 'High-Throughput Experimentation', 'Cryo-Electron Microscopy', 'Open Data Infrastructure'],
    amount: [50_000, 10_000_000],
    applicants: ['academic', 'nonprofit', 'for_profit'],
  },
  {
    key: 'transportation',
    focus: 'transportation and transit',
    subjects: [
      'Roadway Safety',
      'Bus and Bus Facilities',
      'Rural Surface Transportation',
      'Bridge Investment',
      'Transit-Oriented Development Planning',
      'Airport Infrastructure',
    ],
    categories: ['T', 'IIJ'],
    populations: ['Rural Communities', 'Small Towns', 'Tribal Communities', 'Urban Neighborhoods'],
    activities: [
      'roadway safety improvements that reduce traffic fatalities',
      'transit buses, bus facilities and passenger amenities',
      'bridge repair and replacement on local transportation networks',
    ],
    sentences: [
      'Projects should improve road safety for pedestrians, cyclists and drivers.',
      'Funds may support transit bus purchases, transit facilities, bridge repair and complete streets.',
      'Applicants must demonstrate that transportation projects are included in the regional transportation plan.',
      'Zero-emission transit buses and charging infrastructure are eligible.',
    ],
    outcomes: ['Roadway Safety', 'Transit Reliability', 'Bridge Condition', 'Pedestrian Safety'],
    approaches: ['Complete Streets', 'Zero-Emission Buses', 'Safety Action Plans'],
    amount: [250_000, 50_000_000],
    applicants: ['municipality', 'tribal'],
  },
  {
    key: 'disaster-relief',
    focus: 'disaster preparedness and recovery',
    subjects: ['Hazard Mitigation', 'Disaster Recovery', 'Emergency Management Performance', 'Flood Mitigation', 'Resilient Infrastructure and Communities'],
    categories: ['DPR', 'CD'],
    populations: ['Disaster-Affected Communities', 'Small Towns', 'Tribal Nations', 'Low-Income Homeowners'],
    activities: [
      'hazard mitigation projects that reduce disaster losses',
      'long-term disaster recovery and rebuilding',
      'emergency management planning and disaster preparedness exercises',
    ],
    sentences: [
      'Funds support recovery from hurricanes, floods, wildfires and other declared disasters.',
      'Hazard mitigation projects may elevate flood-prone homes, strengthen buildings and build safe rooms.',
      'Applicants must have a FEMA-approved hazard mitigation plan.',
      'Disaster relief grants may cover debris removal, temporary housing and repairs to public facilities.',
    ],
    outcomes: ['Disaster Recovery', 'Flood Risk Reduction', 'Emergency Preparedness'],
    approaches: ['Home Elevation', 'Early Warning Systems', 'Community Emergency Response Teams'],
    amount: [50_000, 30_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit'],
  },
  {
    key: 'food-security',
    focus: 'food security and nutrition',
    subjects: ['Food Security and Nutrition', 'Community Food Projects', 'Nutrition Incentive', 'Farm to School', 'Emergency Food'],
    categories: ['FN', 'AG'],
    populations: ['Seniors', 'Low-Income Families', 'Children', 'Rural Communities', 'College Students'],
    activities: [
      'emergency food assistance and food bank capacity',
      'nutrition incentives that help families buy fruits and vegetables',
      'farm to school meals and nutrition education',
    ],
    sentences: [
      'Projects should reduce food insecurity and improve access to healthy food.',
      'Funds may support food banks, food pantries, mobile markets and meal delivery.',
      'Nutrition education and SNAP incentive programs are allowable activities.',
      'Applicants are encouraged to source food from local farmers and producers.',
    ],
    outcomes: ['Food Security', 'Healthy Food Access', 'Child Nutrition'],
    approaches: ['Mobile Food Pantries', 'Produce Prescription Programs', 'Farm to School Partnerships'],
    amount: [10_000, 2_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
  },
  {
    key: 'youth',
    focus: 'youth development and mentoring',
    subjects: ['Youth Mentoring', 'After-School and Summer Learning', 'Youth Leadership Development', 'Positive Youth Development', 'Youth Service-Learning'],
    categories: ['ISS', 'ED'],
    populations: ['At-Risk Youth', 'Foster Youth', 'Youth in Rural Areas', 'Opportunity Youth'],
    activities: [
      'mentoring, after-school and summer programs for young people',
      'youth leadership and civic engagement',
      'positive youth development services',
    ],
    sentences: [
      'Programs should connect young people with caring adult mentors.',
      'Funds may support after-school programming, summer camps and youth employment.',
      'Applicants must use positive youth development practices and screen all mentors and volunteers.',
      'Projects should improve school engagement and reduce risky behavior among youth.',
    ],
    outcomes: ['Youth Resilience', 'School Engagement', 'Youth Leadership'],
    approaches: ['Mentoring', 'Summer Youth Employment', 'Youth Sports Programs'],
    amount: [10_000, 1_500_000],
    applicants: ['nonprofit', 'municipality', 'tribal'],
  },
  {
    key: 'veterans',
    focus: 'veterans and military families',
    subjects: [
      'Veteran Suicide Prevention',
      'Supportive Services for Veteran Families',
      'Veteran Employment',
      'Homeless Veterans Reintegration',
      'Adaptive Sports for Veterans',
    ],
    categories: ['ISS', 'HL', 'ELT'],
    populations: ['Veterans', 'Military Families', 'Women Veterans', 'Rural Veterans'],
    activities: [
      'services for veterans and their families',
      'employment and housing assistance for homeless veterans',
      'adaptive sports and recreation for disabled veterans',
    ],
    sentences: [
      'Funds support case management, housing assistance and benefits navigation for veterans.',
      'Programs should coordinate with VA medical centers and veterans service organizations.',
      'Projects may provide job training and placement for veterans transitioning to civilian careers.',
      'Applicants must describe outreach to veterans in rural and underserved areas.',
    ],
    outcomes: ['Veteran Housing Stability', 'Veteran Employment', 'Veteran Wellbeing'],
    approaches: ['Peer Support', 'Case Management', 'Transition Assistance'],
    amount: [25_000, 3_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal'],
  },
  {
    key: 'small-business',
    focus: 'small business and entrepreneurship',
    subjects: [
      'Small Business Development',
      'Entrepreneurship Training',
      'Microloan Technical Assistance',
      'Small Business Innovation Research',
      'Main Street Revitalization',
    ],
    categories: ['BC', 'CD'],
    populations: ['Women Entrepreneurs', 'Minority-Owned Businesses', 'Rural Small Businesses', 'Veteran-Owned Businesses'],
    activities: [
      'training, counseling and technical assistance for small businesses',
      'access to capital for entrepreneurs and small business owners',
      'innovation research by small technology businesses',
    ],
    sentences: [
      'Programs help small businesses start, grow and access capital.',
      'Funds may support small business counseling, export assistance and entrepreneurship training.',
      'Applicants should describe how they will reach underserved entrepreneurs.',
      'Small business innovation projects must demonstrate commercial potential.',
    ],
    outcomes: ['Small Business Growth', 'Entrepreneurial Ecosystems', 'Access to Capital'],
    approaches: ['Business Incubators', 'Revolving Loan Funds', 'Technical Assistance Networks'],
    amount: [25_000, 2_000_000],
    applicants: ['nonprofit', 'for_profit', 'municipality', 'academic'],
  },
  {
    key: 'water',
    focus: 'water and wastewater infrastructure',
    subjects: [
      'Water and Waste Disposal',
      'Clean Water Infrastructure',
      'Drinking Water Infrastructure',
      'Lead Service Line Replacement',
      'Stormwater Management',
    ],
    categories: ['ENV', 'IIJ', 'CD'],
    populations: ['Rural Communities', 'Small Water Systems', 'Tribal Communities', 'Disadvantaged Communities'],
    activities: [
      'drinking water and wastewater infrastructure',
      'lead service line replacement in public water systems',
      'stormwater and green infrastructure projects',
    ],
    sentences: [
      'Funds support construction of drinking water, wastewater and stormwater systems.',
      'Projects may replace lead service lines and upgrade water treatment plants.',
      'Applicants must show that water infrastructure improvements will protect public health.',
      'Small and rural water systems may request technical assistance and planning funds.',
    ],
    outcomes: ['Safe Drinking Water', 'Wastewater Treatment', 'Stormwater Resilience'],
    approaches: ['Lead Service Line Replacement', 'Green Stormwater Infrastructure', 'Regional Water Systems'],
    amount: [100_000, 40_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit'],
  },
  {
    key: 'community-development',
    focus: 'community and economic development',
    subjects: [
      'Community Development',
      'Economic Development Assistance',
      'Rural Community Facilities',
      'Neighborhood Revitalization',
      'Opportunity Zone Investment',
    ],
    categories: ['CD', 'RD', 'OZ'],
    populations: ['Distressed Communities', 'Rural Towns', 'Coal Communities', 'Tribal Communities'],
    activities: [
      'public facilities, infrastructure and economic development in distressed communities',
      'community facilities such as clinics, libraries and fire stations',
      'neighborhood revitalization and small business districts',
    ],
    sentences: [
      'Projects should create jobs and attract private investment in economically distressed communities.',
      'Funds may support community facilities, public infrastructure and downtown revitalization.',
      'Applicants must document economic distress such as high unemployment or low per capita income.',
      'Regional economic development strategies should guide project selection.',
    ],
    outcomes: ['Regional Economic Growth', 'Downtown Vitality', 'Community Wealth Building'],
    approaches: ['Public-Private Partnerships', 'Community Development Financial Institutions', 'Industrial Park Development'],
    amount: [100_000, 20_000_000],
    applicants: ['municipality', 'nonprofit', 'tribal'],
  },
  {
    key: 'aging',
    focus: 'healthy aging and services for older adults',
    subjects: ['Aging and Disability Resource Centers', 'Senior Nutrition', 'Family Caregiver Support', 'Elder Justice', 'Falls Prevention'],
    categories: ['ISS', 'HL'],
    populations: ['Seniors', 'Family Caregivers', 'Older Adults in Rural Areas', 'Adults with Disabilities'],
    activities: ['home and community-based services for older adults and seniors', 'family caregiver support and respite care', 'elder abuse prevention'],
    sentences: [
      'Programs help older adults and seniors live independently in their homes and communities.',
      'Funds may support home-delivered meals, transportation and respite care for family caregivers.',
      'Applicants should coordinate with area agencies on aging.',
      'Falls prevention and chronic disease self-management programs for seniors are allowable.',
    ],
    outcomes: ['Healthy Aging', 'Caregiver Wellbeing', 'Independent Living'],
    approaches: ['Home-Delivered Meals', 'Respite Care', 'Evidence-Based Falls Prevention'],
    amount: [25_000, 2_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal'],
  },
  {
    key: 'family-support',
    focus: 'family support and economic mobility',
    subjects: ['Family Economic Mobility', 'Community Services', 'Home Energy Assistance', 'Fatherhood and Healthy Relationships', 'Financial Coaching'],
    categories: ['ISS'],
    populations: ['Low-Income Families', 'Single Parents', 'Working Families'],
    activities: [
      'services that help low-income families achieve economic stability',
      'home energy bill assistance for low-income households',
      'financial coaching and tax preparation assistance',
    ],
    sentences: [
      'Programs help families increase income, build savings and reduce debt.',
      'Funds may support case management, emergency assistance and utility bill payments for families.',
      'Applicants should offer free tax preparation and help families claim tax credits.',
      'Projects must measure changes in household income and economic stability.',
    ],
    outcomes: ['Economic Mobility', 'Household Financial Stability'],
    approaches: ['Two-Generation Approaches', 'Financial Coaching', 'Guaranteed Income Pilots'],
    amount: [25_000, 5_000_000],
    applicants: ['nonprofit', 'municipality', 'tribal'],
  },
  {
    key: 'data-statistics',
    focus: 'data, statistics and civic technology',
    subjects: ['Open Data and Civic Technology', 'Statistical Capacity Building', 'Health Data Modernization', 'Geospatial Data Infrastructure'],
    categories: ['IS', 'ST'],
    populations: ['State and Local Governments', 'Tribal Governments', 'Public Health Agencies'],
    activities: [
      'data infrastructure and statistical capacity in public agencies',
      'open data portals and civic technology',
      'geospatial mapping and data sharing',
    ],
    sentences: [
      'Projects should improve the quality, timeliness and accessibility of public data and statistics.',
      'Funds may support data systems modernization, data standards and analytic staff.',
      'Applicants must commit to publishing non-sensitive data in open, machine-readable formats.',
      'Geospatial data and mapping tools that support local decision-making are eligible.',
    ],
    outcomes: ['Data Quality', 'Open Government Data', 'Public Health Data Systems'],
    approaches: ['Cloud Data Platforms', 'Data Sharing Agreements', 'Geospatial Mapping'],
    amount: [50_000, 3_000_000],
    applicants: ['municipality', 'tribal', 'academic', 'nonprofit'],
  },
  {
    key: 'forestry',
    focus: 'forests, public lands and outdoor recreation',
    subjects: ['Community Wildfire Defense', 'Forest Health', 'Outdoor Recreation Access', 'Fisheries Conservation', 'State and Tribal Wildlife'],
    categories: ['NR', 'ENV', 'DPR'],
    populations: ['Rural Communities', 'Tribal Nations', 'Wildland-Urban Interface Communities', 'Underserved Youth'],
    activities: [
      'wildfire risk reduction and forest health treatments',
      'outdoor recreation access on public lands',
      'fish and wildlife habitat management on forest lands',
    ],
    sentences: [
      'Projects should reduce wildfire risk through fuels reduction and community wildfire protection planning.',
      'Funds may support trail construction, park improvements and outdoor recreation access.',
      'Applicants must coordinate natural resource projects with state forestry or wildlife agencies.',
      'Fisheries and wildlife projects should conserve species of greatest conservation need.',
    ],
    outcomes: ['Wildfire Resilience', 'Forest Health', 'Outdoor Recreation Access'],
    approaches: ['Prescribed Fire', 'Fuels Reduction', 'Trail Stewardship'],
    amount: [25_000, 10_000_000],
    applicants: ['municipality', 'tribal', 'nonprofit', 'academic'],
  },
] as const satisfies readonly GrantTopic[];

type TopicKey = (typeof GRANT_TOPICS)[number]['key'];
const ALL_TOPICS: readonly GrantTopic[] = GRANT_TOPICS;
const TOPIC_BY_KEY: ReadonlyMap<string, GrantTopic> = new Map(ALL_TOPICS.map((topic) => [topic.key, topic]));

function topicsFor(keys: readonly TopicKey[]): GrantTopic[] {
  return keys.map((key) => {
    const topic = TOPIC_BY_KEY.get(key);
    if (!topic) throw new Error(`Unknown grant topic ${key}`);
    return topic;
  });
}

/** Title word and its running-text form: "Grants" reads as "This grant program ...". */
const PROGRAM_WORDS = new WeightedTable<readonly [string, string]>([
  [['Grants', 'grant program'], 8],
  [['Program', 'program'], 8],
  [['Grant Program', 'grant program'], 5],
  [['Initiative', 'initiative'], 3],
  [['Cooperative Agreements', 'cooperative agreement program'], 2],
  [['Fund', 'fund'], 2],
  [['Awards', 'award program'], 2],
  [['Assistance', 'assistance program'], 3],
  [['Demonstration Program', 'demonstration program'], 1],
  [['Capacity Building Grants', 'capacity-building grant program'], 1],
  [['Planning Grants', 'planning grant program'], 1],
  [['Pilot Program', 'pilot program'], 1],
]);

const GRANT_CLOSING_SENTENCES = [
  'A cost share or match of 25 percent is required.',
  'No cost sharing or matching is required.',
  'Projects may last up to 36 months.',
  'Applicants may request technical assistance before submitting a full application.',
  'Letters of support from community partners are strongly encouraged.',
  'Applicants must have an active registration in SAM.gov before applying.',
] as const;

// ---------------------------------------------------------------------------------------------
// Funders

type FunderKind = 'federal' | 'state' | 'foundation' | 'corporate';

interface FederalAgency {
  department: string;
  office?: string;
  /** Sentence subject when "The <office>" reads badly. */
  short?: string;
  /** Agency code used in grant and contract source ids (SYN-G-HHS-2026-000123). */
  code: string;
  website: string;
  emailDomain: string;
  topics: readonly TopicKey[];
  /** Summary focus for agencies that mostly buy rather than grant. */
  mission?: string;
  naics?: readonly string[];
  facilities?: readonly string[];
  /** Relative share of contract solicitations. */
  contractWeight?: number;
  international?: boolean;
}

const USDA = 'U.S. Department of Agriculture';
const HHS = 'U.S. Department of Health and Human Services';
const ED = 'U.S. Department of Education';
const DOJ = 'U.S. Department of Justice';
const DOE = 'U.S. Department of Energy';
const DOT = 'U.S. Department of Transportation';
const HUD = 'U.S. Department of Housing and Urban Development';
const DOL = 'U.S. Department of Labor';
const DHS = 'U.S. Department of Homeland Security';
const DOC = 'U.S. Department of Commerce';
const DOI = 'U.S. Department of the Interior';
const VA = 'U.S. Department of Veterans Affairs';
const DOD = 'U.S. Department of Defense';

const VA_FACILITIES = ['VA Medical Center', 'VA Community Based Outpatient Clinic', 'VA Regional Office'];

/** Ordered so that a small catalogue, which takes only the first few, still covers most topics. */
const FEDERAL_AGENCIES: readonly FederalAgency[] = [
  {
    department: HHS,
    office: 'Health Resources and Services Administration',
    code: 'HHS',
    website: 'https://www.hrsa.gov',
    emailDomain: 'hrsa.gov',
    topics: ['maternal-health', 'public-health', 'mental-health', 'workforce'],
  },
  {
    department: USDA,
    office: 'Rural Development',
    short: 'USDA Rural Development',
    code: 'USDA',
    website: 'https://www.rd.usda.gov',
    emailDomain: 'usda.gov',
    topics: ['broadband', 'water', 'housing', 'community-development', 'small-business'],
  },
  {
    department: ED,
    office: 'Office of Elementary and Secondary Education',
    code: 'ED',
    website: 'https://www.ed.gov',
    emailDomain: 'ed.gov',
    topics: ['k12-education', 'early-childhood', 'youth'],
    naics: ['541611', '611710', '541511'],
  },
  {
    department: DOJ,
    office: 'Bureau of Justice Assistance',
    code: 'DOJ',
    website: 'https://bja.ojp.gov',
    emailDomain: 'usdoj.gov',
    topics: ['public-safety', 'justice', 'substance-use'],
    naics: ['561612', '541511', '611430', '332994'],
  },
  {
    department: DOE,
    office: 'Office of Energy Efficiency and Renewable Energy',
    code: 'DOE',
    website: 'https://www.energy.gov/eere',
    emailDomain: 'ee.doe.gov',
    topics: ['energy', 'climate'],
    naics: ['541715', '541330', '541690', '541512'],
  },
  {
    department: VA,
    office: 'Veterans Health Administration',
    code: 'VA',
    website: 'https://www.va.gov/health',
    emailDomain: 'va.gov',
    topics: ['veterans', 'mental-health'],
    naics: ['621111', '621511', '622110', '561720', '561730', '238220', '236220', '423450', '339112', '541512', '561612'],
    facilities: VA_FACILITIES,
    contractWeight: 8,
  },
  {
    department: 'National Science Foundation',
    code: 'NSF',
    website: 'https://www.nsf.gov',
    emailDomain: 'nsf.gov',
    topics: ['science-research', 'higher-education', 'k12-education', 'data-statistics'],
  },
  {
    department: DOD,
    office: 'U.S. Army Corps of Engineers',
    code: 'USACE',
    website: 'https://www.usace.army.mil',
    emailDomain: 'usace.army.mil',
    topics: [],
    mission: 'military construction, civil works, navigation and flood risk management',
    naics: ['541330', '236220', '237310', '237110', '562910', '541620', '238210'],
    facilities: ['District Office', 'Lock and Dam', 'Reservoir Project Office', 'Army Reserve Center'],
    contractWeight: 7,
  },
  {
    department: 'U.S. General Services Administration',
    office: 'Public Buildings Service',
    code: 'GSA',
    website: 'https://www.gsa.gov',
    emailDomain: 'gsa.gov',
    topics: [],
    mission: 'the construction, leasing and upkeep of federal buildings',
    naics: ['561720', '561612', '238220', '236220', '561210', '238210', '561730', '811310'],
    facilities: ['Federal Building', 'Federal Building and U.S. Courthouse', 'Land Port of Entry'],
    contractWeight: 6,
  },
  { department: 'National Endowment for the Arts', code: 'NEA', website: 'https://www.arts.gov', emailDomain: 'arts.gov', topics: ['arts'] },
  { department: 'National Endowment for the Humanities', code: 'NEH', website: 'https://www.neh.gov', emailDomain: 'neh.gov', topics: ['humanities'] },
  {
    department: 'U.S. Environmental Protection Agency',
    office: 'Office of Water',
    short: 'The EPA Office of Water',
    code: 'EPA',
    website: 'https://www.epa.gov',
    emailDomain: 'epa.gov',
    topics: ['water', 'environment'],
    naics: ['541620', '562910', '541380', '541611'],
  },
  {
    department: DOT,
    office: 'Federal Transit Administration',
    code: 'DOT',
    website: 'https://www.transit.dot.gov',
    emailDomain: 'dot.gov',
    topics: ['transportation'],
    naics: ['541330', '541611', '237310'],
  },
  {
    department: HUD,
    office: 'Office of Community Planning and Development',
    code: 'HUD',
    website: 'https://www.hud.gov',
    emailDomain: 'hud.gov',
    topics: ['housing', 'community-development', 'disaster-relief'],
  },
  {
    department: DOL,
    office: 'Employment and Training Administration',
    code: 'DOL',
    website: 'https://www.dol.gov/agencies/eta',
    emailDomain: 'dol.gov',
    topics: ['workforce', 'youth'],
    naics: ['611519', '541611', '541511'],
  },
  {
    department: DHS,
    office: 'Federal Emergency Management Agency',
    code: 'DHS',
    website: 'https://www.fema.gov',
    emailDomain: 'fema.dhs.gov',
    topics: ['disaster-relief', 'public-safety', 'climate'],
    naics: ['493110', '484121', '541611', '561210', '423450'],
    contractWeight: 3,
  },
  {
    department: DOC,
    office: 'Economic Development Administration',
    code: 'DOC',
    website: 'https://www.eda.gov',
    emailDomain: 'eda.gov',
    topics: ['community-development', 'small-business', 'workforce'],
  },
  {
    department: DOC,
    office: 'National Telecommunications and Information Administration',
    code: 'DOC',
    website: 'https://www.ntia.gov',
    emailDomain: 'ntia.gov',
    topics: ['broadband', 'data-statistics'],
  },
  {
    department: USDA,
    office: 'National Institute of Food and Agriculture',
    code: 'USDA',
    website: 'https://www.nifa.usda.gov',
    emailDomain: 'usda.gov',
    topics: ['agriculture', 'science-research', 'food-security', 'youth'],
  },
  {
    department: USDA,
    office: 'Food and Nutrition Service',
    code: 'USDA',
    website: 'https://www.fns.usda.gov',
    emailDomain: 'usda.gov',
    topics: ['food-security'],
    naics: ['424410', '541611'],
  },
  {
    department: HHS,
    office: 'Substance Abuse and Mental Health Services Administration',
    code: 'HHS',
    website: 'https://www.samhsa.gov',
    emailDomain: 'samhsa.hhs.gov',
    topics: ['mental-health', 'substance-use'],
  },
  {
    department: HHS,
    office: 'National Institutes of Health',
    code: 'HHS',
    website: 'https://www.nih.gov',
    emailDomain: 'nih.gov',
    topics: ['science-research', 'public-health', 'maternal-health'],
    naics: ['541715', '541714', '541380', '541512', '518210'],
    contractWeight: 3,
  },
  {
    department: HHS,
    office: 'Administration for Children and Families',
    code: 'HHS',
    website: 'https://www.acf.hhs.gov',
    emailDomain: 'acf.hhs.gov',
    topics: ['early-childhood', 'family-support', 'youth', 'justice'],
  },
  { department: HHS, office: 'Administration for Community Living', code: 'HHS', website: 'https://acl.gov', emailDomain: 'acl.hhs.gov', topics: ['aging'] },
  {
    department: HHS,
    office: 'Centers for Disease Control and Prevention',
    code: 'HHS',
    website: 'https://www.cdc.gov',
    emailDomain: 'cdc.gov',
    topics: ['public-health', 'data-statistics', 'substance-use'],
    naics: ['541714', '621511', '541611', '518210'],
    contractWeight: 2,
  },
  {
    department: HHS,
    office: 'Indian Health Service',
    code: 'HHS',
    website: 'https://www.ihs.gov',
    emailDomain: 'ihs.gov',
    topics: ['public-health', 'maternal-health', 'substance-use'],
    naics: ['621111', '622110', '423450', '236220'],
    facilities: ['Indian Health Service Hospital', 'Health Center'],
    contractWeight: 2,
  },
  {
    department: DOD,
    office: 'Defense Logistics Agency',
    code: 'DLA',
    website: 'https://www.dla.mil',
    emailDomain: 'dla.mil',
    topics: [],
    mission: 'supply chain management, spare parts and subsistence for the armed forces',
    naics: ['336413', '423450', '424410', '493110', '484121', '332994'],
    facilities: ['Distribution Center', 'Defense Supply Center'],
    contractWeight: 6,
  },
  {
    department: DOD,
    office: 'Department of the Navy',
    code: 'NAVY',
    website: 'https://www.navy.mil',
    emailDomain: 'us.navy.mil',
    topics: ['science-research'],
    naics: ['336413', '334511', '541715', '541330', '561210', '541512'],
    facilities: ['Naval Station', 'Naval Air Station', 'Naval Support Activity'],
    contractWeight: 5,
  },
  {
    department: DOD,
    office: 'Department of the Air Force',
    code: 'USAF',
    website: 'https://www.af.mil',
    emailDomain: 'us.af.mil',
    topics: ['science-research'],
    naics: ['336411', '336413', '334511', '541715', '561210', '722310'],
    facilities: ['Air Force Base', 'Air National Guard Base'],
    contractWeight: 5,
  },
  {
    department: 'Institute of Museum and Library Services',
    code: 'IMLS',
    website: 'https://www.imls.gov',
    emailDomain: 'imls.gov',
    topics: ['humanities', 'k12-education'],
  },
  {
    department: DOJ,
    office: 'Office of Community Oriented Policing Services',
    code: 'DOJ',
    website: 'https://cops.usdoj.gov',
    emailDomain: 'usdoj.gov',
    topics: ['public-safety'],
  },
  {
    department: DOJ,
    office: 'Office on Violence Against Women',
    code: 'DOJ',
    website: 'https://www.justice.gov/ovw',
    emailDomain: 'usdoj.gov',
    topics: ['justice'],
  },
  {
    department: DOJ,
    office: 'Office of Juvenile Justice and Delinquency Prevention',
    code: 'DOJ',
    website: 'https://ojjdp.ojp.gov',
    emailDomain: 'usdoj.gov',
    topics: ['youth', 'justice'],
  },
  {
    department: DOE,
    office: 'Office of Science',
    short: 'The DOE Office of Science',
    code: 'DOE',
    website: 'https://www.energy.gov/science',
    emailDomain: 'science.doe.gov',
    topics: ['science-research'],
    naics: ['541715', '562910', '541330'],
    contractWeight: 2,
  },
  { department: DOE, office: 'Grid Deployment Office', code: 'DOE', website: 'https://www.energy.gov/gdo', emailDomain: 'hq.doe.gov', topics: ['energy'] },
  {
    department: 'U.S. Environmental Protection Agency',
    office: 'Office of Environmental Justice and External Civil Rights',
    code: 'EPA',
    website: 'https://www.epa.gov/environmentaljustice',
    emailDomain: 'epa.gov',
    topics: ['environment', 'climate'],
  },
  {
    department: DOT,
    office: 'Federal Highway Administration',
    code: 'DOT',
    website: 'https://highways.dot.gov',
    emailDomain: 'dot.gov',
    topics: ['transportation'],
    naics: ['237310', '541330'],
  },
  {
    department: DOT,
    office: 'Office of the Secretary',
    short: 'The Office of the Secretary of Transportation',
    code: 'DOT',
    website: 'https://www.transportation.gov',
    emailDomain: 'dot.gov',
    topics: ['transportation', 'community-development'],
  },
  {
    department: HUD,
    office: 'Office of Lead Hazard Control and Healthy Homes',
    code: 'HUD',
    website: 'https://www.hud.gov/program_offices/healthy_homes',
    emailDomain: 'hud.gov',
    topics: ['housing', 'public-health'],
  },
  {
    department: DOL,
    office: "Veterans' Employment and Training Service",
    code: 'DOL',
    website: 'https://www.dol.gov/agencies/vets',
    emailDomain: 'dol.gov',
    topics: ['veterans', 'workforce'],
  },
  {
    department: DHS,
    office: 'U.S. Customs and Border Protection',
    code: 'CBP',
    website: 'https://www.cbp.gov',
    emailDomain: 'cbp.dhs.gov',
    topics: [],
    mission: 'border security, ports of entry and trade enforcement',
    naics: ['561612', '334511', '541512', '336411', '611519'],
    facilities: ['Land Port of Entry', 'Border Patrol Station'],
    contractWeight: 4,
  },
  {
    department: DHS,
    office: 'Cybersecurity and Infrastructure Security Agency',
    code: 'CISA',
    website: 'https://www.cisa.gov',
    emailDomain: 'cisa.dhs.gov',
    topics: ['public-safety', 'data-statistics'],
    naics: ['541512', '541511', '541519', '611430'],
    contractWeight: 3,
  },
  {
    department: DOC,
    office: 'National Oceanic and Atmospheric Administration',
    code: 'DOC',
    website: 'https://www.noaa.gov',
    emailDomain: 'noaa.gov',
    topics: ['climate', 'environment', 'science-research'],
    naics: ['541715', '334511', '541620', '518210'],
    contractWeight: 2,
  },
  {
    department: DOI,
    office: 'Bureau of Indian Affairs',
    code: 'DOI',
    website: 'https://www.bia.gov',
    emailDomain: 'bia.gov',
    topics: ['community-development', 'justice', 'public-safety'],
  },
  {
    department: DOI,
    office: 'National Park Service',
    code: 'DOI',
    website: 'https://www.nps.gov',
    emailDomain: 'nps.gov',
    topics: ['humanities', 'forestry'],
    naics: ['561730', '237310', '236220', '541620'],
    facilities: ['National Park', 'National Historic Site', 'National Recreation Area'],
    contractWeight: 2,
  },
  {
    department: DOI,
    office: 'U.S. Fish and Wildlife Service',
    code: 'DOI',
    website: 'https://www.fws.gov',
    emailDomain: 'fws.gov',
    topics: ['environment', 'forestry'],
  },
  {
    department: DOI,
    office: 'Bureau of Reclamation',
    code: 'DOI',
    website: 'https://www.usbr.gov',
    emailDomain: 'usbr.gov',
    topics: ['water', 'climate'],
    naics: ['237110', '541330', '238210'],
  },
  {
    department: USDA,
    office: 'Forest Service',
    code: 'USDA',
    website: 'https://www.fs.usda.gov',
    emailDomain: 'usda.gov',
    topics: ['forestry', 'climate', 'environment'],
    naics: ['561730', '541620', '237310'],
    facilities: ['National Forest', 'Ranger District Office'],
    contractWeight: 2,
  },
  {
    department: USDA,
    office: 'Agricultural Marketing Service',
    code: 'USDA',
    website: 'https://www.ams.usda.gov',
    emailDomain: 'usda.gov',
    topics: ['agriculture', 'food-security'],
  },
  {
    department: ED,
    office: 'Office of Postsecondary Education',
    code: 'ED',
    website: 'https://www.ed.gov/about/offices/list/ope',
    emailDomain: 'ed.gov',
    topics: ['higher-education'],
  },
  {
    department: ED,
    office: 'Institute of Education Sciences',
    code: 'ED',
    website: 'https://ies.ed.gov',
    emailDomain: 'ed.gov',
    topics: ['k12-education', 'data-statistics'],
  },
  {
    department: VA,
    office: 'National Cemetery Administration',
    code: 'VA',
    website: 'https://www.cem.va.gov',
    emailDomain: 'va.gov',
    topics: [],
    mission: 'national cemeteries and memorial benefits for veterans',
    naics: ['561730', '236220', '237310'],
    facilities: ['National Cemetery'],
    contractWeight: 2,
  },
  {
    department: 'U.S. Small Business Administration',
    office: 'Office of Entrepreneurial Development',
    code: 'SBA',
    website: 'https://www.sba.gov',
    emailDomain: 'sba.gov',
    topics: ['small-business'],
  },
  {
    department: 'U.S. Department of the Treasury',
    office: 'Community Development Financial Institutions Fund',
    code: 'TREAS',
    website: 'https://www.cdfifund.gov',
    emailDomain: 'cdfi.treas.gov',
    topics: ['small-business', 'community-development', 'housing'],
  },
  {
    department: 'AmeriCorps',
    short: 'AmeriCorps',
    code: 'CNCS',
    website: 'https://americorps.gov',
    emailDomain: 'americorps.gov',
    topics: ['youth', 'aging', 'disaster-relief'],
  },
  {
    department: 'National Aeronautics and Space Administration',
    code: 'NASA',
    website: 'https://www.nasa.gov',
    emailDomain: 'nasa.gov',
    topics: ['science-research', 'k12-education'],
    naics: ['541715', '336413', '541512', '541330', '334511'],
    facilities: ['Space Flight Center', 'Research Center'],
    contractWeight: 3,
  },
  {
    department: 'U.S. Department of State',
    office: 'Bureau of Educational and Cultural Affairs',
    code: 'DOS',
    website: 'https://eca.state.gov',
    emailDomain: 'state.gov',
    topics: ['higher-education', 'arts'],
    naics: ['541930', '611430', '541611'],
    international: true,
  },
  {
    department: 'U.S. Agency for International Development',
    code: 'USAID',
    website: 'https://www.usaid.gov',
    emailDomain: 'usaid.gov',
    topics: ['food-security', 'public-health'],
    international: true,
  },
];

interface StateDepartment {
  title: string;
  /** Host label: "health" gives https://health.texas.gov. */
  host: string;
  topics: readonly TopicKey[];
}

const STATE_DEPARTMENTS: readonly StateDepartment[] = [
  { title: 'Department of Health Services', host: 'health', topics: ['public-health', 'maternal-health', 'mental-health', 'substance-use'] },
  { title: 'Department of Education', host: 'education', topics: ['k12-education', 'early-childhood', 'higher-education'] },
  { title: 'Department of Agriculture', host: 'agriculture', topics: ['agriculture', 'food-security'] },
  { title: 'Department of Commerce', host: 'commerce', topics: ['small-business', 'community-development', 'workforce'] },
  { title: 'Department of Environmental Quality', host: 'deq', topics: ['environment', 'water', 'climate'] },
  { title: 'Department of Transportation', host: 'dot', topics: ['transportation'] },
  { title: 'Department of Housing and Community Affairs', host: 'housing', topics: ['housing', 'community-development', 'family-support'] },
  { title: 'Department of Workforce Development', host: 'workforce', topics: ['workforce', 'youth'] },
  { title: 'Department of Public Safety', host: 'dps', topics: ['public-safety', 'justice', 'disaster-relief'] },
  { title: 'Department of Natural Resources', host: 'dnr', topics: ['forestry', 'environment'] },
  { title: 'Department of Veterans Affairs', host: 'veterans', topics: ['veterans'] },
  { title: 'Energy Office', host: 'energy', topics: ['energy', 'climate'] },
  { title: 'Department of Human Services', host: 'humanservices', topics: ['family-support', 'aging', 'youth', 'food-security'] },
  { title: 'Arts Commission', host: 'arts', topics: ['arts'] },
  { title: 'Broadband Office', host: 'broadband', topics: ['broadband'] },
  { title: 'Emergency Management Agency', host: 'ema', topics: ['disaster-relief', 'public-safety'] },
  { title: 'Historical Commission', host: 'history', topics: ['humanities'] },
];

const SURNAMES = [
  'Hartwell',
  'Whitfield',
  'Ashby',
  'Calloway',
  'Pemberton',
  'Lindqvist',
  'Okafor',
  'Delgado',
  'Nakamura',
  'Brennan',
  'Castellano',
  'Thornbury',
  'Vance',
  'Abernathy',
  'Kessler',
  'Morrow',
  'Holloway',
  'Everly',
  'Fairbanks',
  'Langston',
  'Mercer',
  'Prescott',
  'Redfield',
  'Sinclair',
  'Talbot',
  'Whitmore',
  'Yardley',
  'Beaumont',
  'Carrington',
  'Donovan',
  'Ellison',
  'Fitzgerald',
  'Galloway',
  'Haverford',
  'Ingram',
  'Jameson',
  'Kensington',
  'Lockwood',
  'Montgomery',
  'Northcott',
  'Osei',
  'Park',
  'Quintero',
  'Ramirez',
  'Sato',
  'Tanaka',
  'Underwood',
  'Valdez',
  'Westbrook',
  'Xu',
  'Young',
  'Zimmerman',
  'Abrams',
  'Bianchi',
  'Chowdhury',
  'Dubois',
  'Esposito',
  'Farrow',
  'Goldberg',
  'Hoang',
] as const;

const GIVEN_NAMES = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'John',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Karen',
  'Daniel',
  'Nancy',
  'Matthew',
  'Lisa',
  'Anthony',
  'Margaret',
  'Maria',
  'Jose',
  'Wei',
  'Aisha',
  'Priya',
  'Carlos',
  'Mei',
  'Ahmed',
  'Fatima',
  'Kenji',
  'Olga',
  'Luis',
  'Grace',
  'Samuel',
  'Jane',
  'Ruth',
  'Henry',
  'Eleanor',
] as const;

const NATURE_NAMES = [
  'Blue Heron',
  'Northern Light',
  'Silver Maple',
  'Cedar Ridge',
  'Golden Prairie',
  'Clear Water',
  'High Desert',
  'Riverstone',
  'Evergreen',
  'Morning Star',
  'Lone Pine',
  'Bright Horizon',
  'Stone Bridge',
  'Wild Rose',
  'Red Cedar',
  'Open Door',
  'Common Ground',
  'New Harvest',
  'First Light',
  'Still Water',
] as const;

const COMPANY_PREFIXES = [
  'Northwind',
  'Cascade',
  'Summit',
  'Redwood',
  'Prairie',
  'Lakeshore',
  'Ironbridge',
  'BrightPath',
  'Meridian',
  'Bluewater',
  'Granite',
  'Evergreen',
  'Harborview',
  'Keystone',
  'Silverline',
  'Copperleaf',
  'Pinecrest',
  'Riverbend',
  'Sunridge',
  'Tidewater',
] as const;

const CORPORATE_INDUSTRIES: ReadonlyArray<{ name: string; domain: string; topics: readonly TopicKey[] }> = [
  { name: 'Energy', domain: 'energy', topics: ['energy', 'climate', 'environment', 'k12-education'] },
  { name: 'Health', domain: 'health', topics: ['public-health', 'mental-health', 'maternal-health'] },
  { name: 'Financial', domain: 'financial', topics: ['small-business', 'family-support', 'housing'] },
  { name: 'Technologies', domain: 'tech', topics: ['k12-education', 'broadband', 'workforce', 'science-research'] },
  { name: 'Insurance', domain: 'insurance', topics: ['disaster-relief', 'public-safety', 'aging'] },
  { name: 'Bank', domain: 'bank', topics: ['housing', 'small-business', 'community-development'] },
  { name: 'Manufacturing', domain: 'mfg', topics: ['workforce', 'k12-education', 'environment'] },
  { name: 'Telecom', domain: 'telecom', topics: ['broadband', 'k12-education', 'data-statistics'] },
  { name: 'Foods', domain: 'foods', topics: ['food-security', 'agriculture', 'youth'] },
  { name: 'Logistics', domain: 'logistics', topics: ['transportation', 'workforce', 'disaster-relief'] },
  { name: 'Pharmaceuticals', domain: 'pharma', topics: ['public-health', 'science-research', 'substance-use'] },
  { name: 'Retail', domain: 'retail', topics: ['food-security', 'youth', 'community-development'] },
];

const HEALTH_TOPICS: readonly TopicKey[] = ['public-health', 'maternal-health', 'mental-health', 'substance-use', 'aging'];
const ARTS_TOPICS: readonly TopicKey[] = ['arts', 'humanities'];

/** What the grant and contract builders need to know about a funder beyond its public record. */
interface FunderProfile {
  funder: Funder;
  kind: FunderKind;
  topics: readonly GrantTopic[];
  /** A state agency's state, or a foundation's or company's home state; null for national funders. */
  homeState: StateCode | null;
  /** For source ids: SYN-G-<code>-2026-000123. */
  code: string;
  /** Subject of summary and description sentences. */
  shortName: string;
  emailDomain: string;
  naics: readonly string[];
  facilities: readonly string[];
  contractWeight: number;
  international: boolean;
}

function federalProfileParts(agency: FederalAgency): Omit<FunderProfile, 'funder'> {
  return {
    kind: 'federal',
    topics: topicsFor(agency.topics),
    homeState: null,
    code: agency.code,
    shortName: agency.short ?? `The ${agency.office ?? agency.department}`,
    emailDomain: agency.emailDomain,
    naics: agency.naics ?? [],
    facilities: agency.facilities ?? [],
    contractWeight: agency.contractWeight ?? 1,
    international: agency.international ?? false,
  };
}

function buildFunderProfiles(spec: CatalogueSpec): FunderProfile[] {
  const total = spec.funders;
  const federalCount = Math.min(total, FEDERAL_AGENCIES.length, Math.max(1, Math.round(total * 0.2)));
  const stateCount = Math.min(total - federalCount, Math.round(total * 0.25), STATE_DEPARTMENTS.length * US_STATE_CODES.length);
  const corporateCount = Math.min(total - federalCount - stateCount, Math.round(total * 0.1));
  const todayDay = epochDay(spec.today);
  // Big states get their agencies first, so a small catalogue still has agencies where most grants go.
  const statesBySize = [...US_STATE_CODES].sort((x, y) => POPULATION_MILLIONS[y] - POPULATION_MILLIONS[x]);
  const departmentOffset = mix32(spec.seed >>> 0) % STATE_DEPARTMENTS.length;
  const usedNames = new Set<string>();
  const profiles: FunderProfile[] = [];

  for (let index = 0; index < total; index++) {
    const rng = new Random(spec.seed, STREAM.funder, index);
    const id = recordId(rng, spec.seed, STREAM.funder, index);
    let draft: FunderDraft;
    if (index < federalCount) {
      draft = federalDraft(rng, itemAt(FEDERAL_AGENCIES, index));
    } else if (index < federalCount + stateCount) {
      const position = index - federalCount;
      const state = itemAt(statesBySize, position % statesBySize.length);
      const round = Math.floor(position / statesBySize.length);
      const department = itemAt(STATE_DEPARTMENTS, (round + departmentOffset + (STATE_POSITION.get(state) ?? 0) * 5) % STATE_DEPARTMENTS.length);
      draft = stateAgencyDraft(rng, state, department);
    } else if (index < federalCount + stateCount + corporateCount) {
      draft = uniqueDraft(usedNames, () => corporateDraft(rng));
    } else {
      draft = uniqueDraft(usedNames, () => foundationDraft(rng));
    }
    usedNames.add(draft.name);
    const createdDay = todayDay - rng.between(0, 15 * YEAR_DAYS);
    const funder: Funder = {
      id,
      name: draft.name,
      website: draft.website,
      summary: rng.chance(0.1) ? null : draft.summary,
      created_at: isoDateTime(createdDay, rng),
      source: 'synthetic',
      source_id: `SYN-F-${padded(index + 1, 6)}`,
    };
    profiles.push({ funder, ...draft.profile });
  }
  return profiles;
}

interface FunderDraft {
  name: string;
  website: string;
  summary: string;
  profile: Omit<FunderProfile, 'funder'>;
}

/** Redraws a generated name until it is unused; a numbered suffix is the last resort for huge catalogues. */
function uniqueDraft(usedNames: ReadonlySet<string>, draw: () => FunderDraft): FunderDraft {
  let draft = draw();
  for (let attempt = 0; attempt < 30 && usedNames.has(draft.name); attempt++) draft = draw();
  for (let suffix = 2; usedNames.has(draft.name); suffix++) {
    const base = draft.name.replace(/ \d+$/, '');
    draft = { ...draft, name: `${base} ${suffix}` };
  }
  return draft;
}

function focusPhrase(topics: readonly GrantTopic[]): string {
  return joinList(topics.map((topic) => topic.focus));
}

function federalDraft(rng: Random, agency: FederalAgency): FunderDraft {
  const name = agency.office ? `${agency.department} — ${agency.office}` : agency.department;
  const profile = federalProfileParts(agency);
  const focus = agency.mission ?? focusPhrase(profile.topics);
  const sentences = [
    `${profile.shortName} ${rng.pick(['supports', 'funds', 'invests in'])} ${focus} ${profile.international ? 'in the United States and abroad' : 'across the United States'}.`,
  ];
  if (rng.chance(0.6)) {
    sentences.push(
      profile.topics.length > 0
        ? `It awards grants and cooperative agreements to ${rng.pick(['states, local governments, tribes and nonprofit organizations', 'public agencies, universities and community organizations', 'eligible public and private entities'])}.`
        : 'It buys most of what it needs through competitive contracts posted on SAM.gov.',
    );
  }
  return { name, website: agency.website, summary: sentences.join(' '), profile };
}

function stateAgencyDraft(rng: Random, state: StateCode, department: StateDepartment): FunderDraft {
  const stateName = US_STATE_NAMES[state];
  const name = `${stateName} ${department.title}`;
  const host = `${department.host}.${slug(stateName)}.gov`;
  const topics = topicsFor(department.topics);
  const sentences = [`The ${name} administers state and federal funding for ${focusPhrase(topics)} in ${statePhrase(state)}.`];
  if (rng.chance(0.5)) sentences.push('Local governments, tribes and nonprofit organizations are typical applicants.');
  return {
    name,
    website: `https://${host}`,
    summary: sentences.join(' '),
    profile: {
      kind: 'state',
      topics,
      homeState: state,
      code: state,
      shortName: `The ${name}`,
      emailDomain: host,
      naics: [],
      facilities: ['State Office Building', 'Regional Office'],
      contractWeight: 1,
      international: false,
    },
  };
}

function corporateDraft(rng: Random): FunderDraft {
  const prefix = rng.pick(COMPANY_PREFIXES);
  const industry = rng.pick(CORPORATE_INDUSTRIES);
  const company = `${prefix} ${industry.name}`;
  const name = `${company} ${rng.pick(['Foundation', 'Community Giving Program', 'Corporate Giving Program', 'Charitable Fund'])}`;
  const topics = topicsFor(rng.sample(industry.topics, rng.between(1, industry.topics.length)));
  const homeState = STATE_WEIGHTS.pick(rng);
  const sentences = [`${name} is the philanthropic arm of ${company}, supporting ${focusPhrase(topics)} in communities where its employees live and work.`];
  if (rng.chance(0.5)) sentences.push(`The company is headquartered in ${rng.pick(CITIES[homeState])}, ${US_STATE_NAMES[homeState]}.`);
  if (rng.chance(0.3)) sentences.push('Employee volunteer hours are matched with grants to partner nonprofits.');
  const domain = `${slug(prefix)}${industry.domain}.com`;
  return {
    name,
    website: `https://www.${domain}/community`,
    summary: sentences.join(' '),
    profile: {
      kind: 'corporate',
      topics,
      homeState: rng.chance(0.5) ? homeState : null,
      code: 'CORP',
      shortName: name,
      emailDomain: domain,
      naics: [],
      facilities: [],
      contractWeight: 1,
      international: false,
    },
  };
}

function foundationDraft(rng: Random): FunderDraft {
  const surname = rng.pick(SURNAMES);
  const homeState = STATE_WEIGHTS.pick(rng);
  const city = rng.pick(CITIES[homeState]);
  const stateName = US_STATE_NAMES[homeState];
  let topics: GrantTopic[] = rng.sample(ALL_TOPICS, rng.between(1, 4));
  let kindOfFoundation = 'private foundation';
  let where: string | null = null;
  let name: string;
  const pattern = rng.below(11);
  switch (pattern) {
    case 0:
    case 1:
      name = `The ${surname} Family Foundation`;
      kindOfFoundation = 'family foundation';
      break;
    case 2:
      name = `${surname} Foundation`;
      break;
    case 3:
      name = `The ${surname}-${rng.pick(SURNAMES.filter((other) => other !== surname))} Foundation`;
      break;
    case 4:
      name = `${city} Community Foundation`;
      kindOfFoundation = 'community foundation';
      where = `the ${city} region`;
      break;
    case 5:
      name = `Community Foundation of Greater ${city}`;
      kindOfFoundation = 'community foundation';
      where = `greater ${city}`;
      break;
    case 6:
      name = `${rng.pick(GIVEN_NAMES)} and ${rng.pick(GIVEN_NAMES)} ${surname} Foundation`;
      break;
    case 7:
      name = `${surname} Charitable Trust`;
      kindOfFoundation = 'charitable trust';
      break;
    case 8:
      name = `The ${rng.pick(NATURE_NAMES)} ${rng.pick(['Foundation', 'Fund'])}`;
      break;
    case 9:
      name = `${stateName} Health Foundation`;
      kindOfFoundation = 'health conversion foundation';
      topics = topicsFor(rng.sample(HEALTH_TOPICS, rng.between(1, 3)));
      where = statePhrase(homeState);
      break;
    default:
      name = `${surname} Foundation for the Arts`;
      topics = topicsFor(ARTS_TOPICS);
      break;
  }
  // Roughly a quarter of private foundations fund nationally; community and state foundations never do.
  const national = where === null && rng.chance(0.3);
  const sentences = [
    `${name} is a ${kindOfFoundation} that supports ${focusPhrase(topics)} ${national ? 'across the United States' : `in ${where ?? statePhrase(homeState)}`}.`,
  ];
  const extras = [
    'It makes grants to nonprofit organizations, schools and public agencies.',
    'The foundation accepts letters of inquiry throughout the year.',
    'Most grants support general operating costs and capacity building.',
    'The foundation does not accept unsolicited proposals.',
    `Founded in ${1920 + rng.below(100)}, it has awarded more than $${rng.between(2, 400)} million in grants.`,
  ];
  for (const extra of rng.sample(extras, rng.below(3))) sentences.push(extra);
  return {
    name,
    website: `https://www.${slug(name.replace(/^The /, ''))}.org`,
    summary: sentences.join(' '),
    profile: {
      kind: 'foundation',
      topics,
      homeState: national ? null : homeState,
      code: 'FDN',
      shortName: name,
      emailDomain: `${slug(name.replace(/^The /, ''))}.org`,
      naics: [],
      facilities: [],
      contractWeight: 1,
      international: false,
    },
  };
}

/** Funders the caller made elsewhere: treated as national funders of any topic. */
function externalProfile(funder: Funder): FunderProfile {
  let emailDomain = 'example.org';
  if (funder.website) {
    try {
      emailDomain = new URL(funder.website).hostname.replace(/^www\./, '');
    } catch {
      // A malformed website only costs the contact domain.
    }
  }
  return {
    funder,
    kind: funder.name.startsWith('U.S. ') ? 'federal' : 'foundation',
    topics: ALL_TOPICS,
    homeState: null,
    code: 'EXT',
    shortName: funder.name,
    emailDomain,
    naics: [],
    facilities: [],
    contractWeight: 1,
    international: false,
  };
}

export function generateFunders(spec: CatalogueSpec): Funder[] {
  validateSpec(spec);
  return buildFunderProfiles(spec).map((profile) => profile.funder);
}

/** The given funders grouped the ways grant and contract builders choose among them. */
class FunderPools {
  readonly all: readonly FunderProfile[];
  readonly federalDomestic: readonly FunderProfile[];
  readonly federalNational: readonly FunderProfile[];
  readonly corporate: readonly FunderProfile[];
  readonly foundations: readonly FunderProfile[];
  readonly nationalFoundations: readonly FunderProfile[];
  readonly stateAgencies: readonly FunderProfile[];
  readonly contractFederal: WeightedTable<FunderProfile> | null;
  private readonly stateAgenciesByState = new Map<StateCode, FunderProfile[]>();
  private readonly foundationsByState = new Map<StateCode, FunderProfile[]>();

  constructor(spec: CatalogueSpec, funders: readonly Funder[]) {
    if (funders.length === 0) throw new RangeError('Grants and contracts need at least one funder');
    const known = new Map(buildFunderProfiles(spec).map((profile) => [profile.funder.id, profile]));
    this.all = funders.map((funder) => {
      const profile = known.get(funder.id);
      // The caller's record wins, so funder_name always matches what was passed in.
      return profile ? { ...profile, funder } : externalProfile(funder);
    });
    const grantFederal = this.all.filter((p) => p.kind === 'federal' && p.topics.length > 0);
    this.federalDomestic = grantFederal.filter((p) => !p.international);
    this.federalNational = grantFederal;
    this.corporate = this.all.filter((p) => p.kind === 'corporate');
    this.foundations = this.all.filter((p) => p.kind === 'foundation');
    this.nationalFoundations = this.foundations.filter((p) => p.homeState === null);
    this.stateAgencies = this.all.filter((p) => p.kind === 'state');
    for (const profile of this.all) {
      if (profile.homeState === null) continue;
      const byState = profile.kind === 'state' ? this.stateAgenciesByState : profile.kind === 'foundation' ? this.foundationsByState : null;
      if (!byState) continue;
      const list = byState.get(profile.homeState) ?? [];
      list.push(profile);
      byState.set(profile.homeState, list);
    }
    const contractFederal = this.all.filter((p) => p.kind === 'federal');
    this.contractFederal = contractFederal.length > 0 ? new WeightedTable(contractFederal.map((p) => [p, p.contractWeight] as const)) : null;
  }

  stateAgenciesIn(state: StateCode): readonly FunderProfile[] {
    return this.stateAgenciesByState.get(state) ?? [];
  }

  foundationsIn(state: StateCode): readonly FunderProfile[] {
    return this.foundationsByState.get(state) ?? [];
  }

  /** The first non-empty pool, else any funder: small or hand-made funder lists lack some kinds. */
  firstOf(rng: Random, ...pools: ReadonlyArray<readonly FunderProfile[]>): FunderProfile {
    for (const pool of pools) if (pool.length > 0) return rng.pick(pool);
    return rng.pick(this.all);
  }
}

// ---------------------------------------------------------------------------------------------
// Grants

interface GrantContext {
  spec: CatalogueSpec;
  todayDay: number;
  pools: FunderPools;
  openCount: number;
}

function grantPlacement(rng: Random, forcedState: StateCode | null): Placement {
  if (forcedState) return statePlacement(forcedState, rng.chance(0.25) ? rng.pick(CITIES[forcedState]) : null);
  const roll = rng.float();
  if (roll < 0.35) return nationalPlacement();
  if (roll < 0.85) {
    const state = STATE_WEIGHTS.pick(rng);
    return statePlacement(state, rng.chance(0.25) ? rng.pick(CITIES[state]) : null);
  }
  return multiStatePlacement(rng);
}

function grantFunder(rng: Random, pools: FunderPools, placement: Placement): FunderProfile {
  const roll = rng.float();
  if (placement.scope === 'national') {
    if (roll < 0.65) return pools.firstOf(rng, pools.federalNational, pools.nationalFoundations, pools.foundations);
    if (roll < 0.77) return pools.firstOf(rng, pools.corporate, pools.federalNational);
    return pools.firstOf(rng, pools.nationalFoundations, pools.foundations, pools.federalNational);
  }
  if (placement.scope === 'multi') {
    if (roll < 0.5) return pools.firstOf(rng, pools.federalDomestic, pools.foundations);
    if (roll < 0.85) return pools.firstOf(rng, pools.foundations, pools.federalDomestic);
    return pools.firstOf(rng, pools.corporate, pools.foundations, pools.federalDomestic);
  }
  const state = itemAt(placement.states, 0);
  if (roll < 0.4) return pools.firstOf(rng, pools.stateAgenciesIn(state), pools.foundationsIn(state), pools.federalDomestic);
  if (roll < 0.55) return pools.firstOf(rng, pools.federalDomestic, pools.foundations);
  if (roll < 0.93) {
    const local = pools.foundationsIn(state);
    return pools.firstOf(rng, rng.chance(0.7) ? local : [], pools.foundations, pools.federalDomestic);
  }
  return pools.firstOf(rng, pools.corporate, pools.foundations);
}

/** Where, who and what: shared by open and awarded grants. */
function grantSubject(rng: Random, ctx: GrantContext, index: number) {
  // The first open grants walk through every state code once, so even a small catalogue covers
  // every code the states filter accepts.
  const forcedState = index < ctx.openCount && index < US_STATE_CODES.length ? itemAt(US_STATE_CODES, index) : null;
  let placement = grantPlacement(rng, forcedState);
  const funder = grantFunder(rng, ctx.pools, placement);
  // A state agency reached through a fallback still only funds in its own state.
  if (funder.kind === 'state' && funder.homeState && !(placement.states.length === 1 && placement.states[0] === funder.homeState)) {
    placement = statePlacement(funder.homeState, null);
  }
  if (placement.scope === 'national' && (funder.international || rng.chance(0.02))) {
    placement = { ...nationalPlacement(), scope: 'international', geography: 'International' };
  }
  const topic = rng.pick(funder.topics.length > 0 ? funder.topics : ALL_TOPICS);
  return { placement, funder, topic };
}

function grantCategories(rng: Random, topic: GrantTopic): string[] {
  const [primary, ...others] = topic.categories;
  const codes = [primary, ...others.filter(() => rng.chance(0.45))].filter((code) => code !== undefined);
  return codes.map((code) => grantCategoryName(code));
}

function eligibility(rng: Random, topic: GrantTopic): { eligible: ApplicantType[]; requires501c3: boolean | null } {
  let eligible: ApplicantType[] = [];
  if (!rng.chance(0.07)) {
    const chosen = new Set(topic.applicants.filter(() => rng.chance(0.7)));
    if (chosen.size === 0) chosen.add(rng.pick(topic.applicants));
    if (rng.chance(0.1)) chosen.add(rng.pick(APPLICANT_TYPES));
    eligible = APPLICANT_TYPES.filter((type) => chosen.has(type));
  }
  let requires501c3: boolean | null = null;
  if (eligible.includes('nonprofit')) {
    const roll = rng.float();
    requires501c3 = roll < 0.45 ? true : roll < 0.8 ? false : null;
  } else if (eligible.length > 0) {
    requires501c3 = rng.chance(0.6) ? false : null;
  }
  return { eligible, requires501c3 };
}

function openGrantAmounts(rng: Random, topic: GrantTopic): { min: number | null; max: number | null } {
  const roll = rng.float();
  if (roll < 0.05) return { min: null, max: null };
  const max = Math.min(50_000_000, Math.max(5_000, roundedAmount(rng.logUniform(topic.amount[0], topic.amount[1]))));
  if (roll < 0.08) return { min: null, max };
  if (rng.chance(0.15)) return { min: max, max };
  const min = Math.min(max, Math.max(5_000, roundedAmount(max * (0.05 + rng.float() * 0.55))));
  return { min, max };
}

function grantListingUrl(rng: Random, funder: FunderProfile, index: number, year: number, awarded: boolean): string | null {
  if (rng.chance(awarded ? 0.05 : 0.03)) return null;
  if (funder.kind === 'federal' || !funder.funder.website) {
    return awarded
      ? `https://www.usaspending.gov/award/ASST_NON_SYN${padded(index + 1, 7)}`
      : `https://www.grants.gov/search-results-detail/${350_000 + index}`;
  }
  return `${funder.funder.website.replace(/\/+$/, '')}/grants/${awarded ? 'awarded/' : ''}${year}-${padded(index + 1, 6)}`;
}

function buildOpenGrant(ctx: GrantContext, index: number): Grant {
  const rng = new Random(ctx.spec.seed, STREAM.grant, index);
  const id = recordId(rng, ctx.spec.seed, STREAM.grant, index);
  const { placement, funder, topic } = grantSubject(rng, ctx, index);
  const today = ctx.todayDay;

  // Stored status and dates. created_at stays within three years and before any posted deadline.
  let status: Grant['status'];
  let deadlineDay: number | null;
  let createdDay: number;
  const statusRoll = rng.float();
  if (statusRoll < 0.6) {
    status = 'posted';
    if (rng.chance(0.05)) {
      deadlineDay = null;
      createdDay = today - rng.between(0, 3 * YEAR_DAYS);
    } else if (rng.chance(0.85)) {
      deadlineDay = today + rng.between(0, YEAR_DAYS);
      createdDay = Math.min(today, deadlineDay - 1) - rng.between(0, 2 * YEAR_DAYS);
    } else {
      deadlineDay = today - rng.between(1, 180);
      createdDay = deadlineDay - rng.between(14, 2 * YEAR_DAYS);
    }
  } else if (statusRoll < 0.8) {
    status = 'forecasted';
    deadlineDay = rng.chance(0.3) ? null : today + rng.between(60, 540);
    createdDay = today - rng.between(0, YEAR_DAYS);
  } else {
    status = 'closed';
    deadlineDay = today - rng.between(1, 900);
    createdDay = deadlineDay - rng.between(14, 180);
  }
  const createdAt = isoDateTime(createdDay, rng);

  const [programTitle, programText] = PROGRAM_WORDS.pick(rng);
  const subject = rng.pick(topic.subjects);
  const candidatePopulation = rng.chance(0.45) ? rng.pick(topic.populations) : null;
  // "Dislocated Worker Training ... for Dislocated Workers" repeats itself; drop such populations.
  const population = candidatePopulation && !subject.includes(candidatePopulation.split(' ')[0] ?? '') ? candidatePopulation : null;
  const statePrefix = funder.kind === 'state' && funder.homeState && rng.chance(0.3) ? `${US_STATE_NAMES[funder.homeState]} ` : '';
  const titleRoll = rng.float();
  let title = `${statePrefix}${subject} ${programTitle}${population ? ` for ${population}` : ''}`;
  if (titleRoll < 0.15) title = `FY ${fiscalYearOf(createdDay)} ${title}`;

  const sentences = [
    `This ${programText} ${rng.pick(['supports', 'funds', 'provides funding for', 'invests in'])} ${rng.pick(topic.activities)}${placement.scope === 'national' || placement.scope === 'international' ? '' : ` in ${placementPhrase(placement)}`}${population ? `, with a focus on ${inSentence(population)}` : ''}.`,
    ...rng.sample(topic.sentences, rng.between(1, 3)),
  ];
  if (status === 'posted' && deadlineDay === null) sentences.push('Applications are accepted on a rolling basis until funds are exhausted.');
  else if (status === 'forecasted') sentences.push('This opportunity is forecasted; the full announcement is expected later in the fiscal year.');
  else if (rng.chance(0.5)) sentences.push(rng.pick(GRANT_CLOSING_SENTENCES));

  const amounts = openGrantAmounts(rng, topic);
  const { eligible, requires501c3 } = eligibility(rng, topic);
  const createdYear = yearOf(createdDay);
  return {
    id,
    title,
    description: sentences.slice(0, 5).join(' '),
    amount_min: amounts.min,
    amount_max: amounts.max,
    deadline_date: deadlineDay === null ? null : isoDate(deadlineDay),
    archive_date: null,
    status,
    geography: placement.geography,
    funder_id: funder.funder.id,
    funder_name: funder.funder.name,
    listing_url: grantListingUrl(rng, funder, index, createdYear, false),
    created_at: createdAt,
    categories: grantCategories(rng, topic),
    opportunity_type: 'open',
    project_end_date: null,
    states: placement.states,
    source: 'synthetic',
    source_id: `SYN-G-${funder.code}-${createdYear}-${padded(index + 1, 6)}`,
    ...grantIdentifiers(funder, topic),
    eligible_applicants: eligible,
    requires_501c3: requires501c3,
  };
}

/** A federal agency's code and the listing of the topic's program; other funders have neither. */
function grantIdentifiers(funder: FunderProfile, topic: GrantTopic): Pick<Grant, 'assistance_listings' | 'agency_code'> {
  const federalCode = funder.kind === 'federal' ? funder.code : null;
  return { assistance_listings: syntheticAssistanceListings(federalCode, topic.key), agency_code: federalCode };
}

function placementPhrase(placement: Placement): string {
  if (placement.scope === 'local' && placement.city) return `${placement.city}, ${US_STATE_NAMES[itemAt(placement.states, 0)]}`;
  return joinList(placement.states.map(statePhrase));
}

const PROJECT_VERBS: ReadonlyArray<readonly [string, string]> = [
  ['Improving', 'improves'],
  ['Strengthening', 'strengthens'],
  ['Advancing', 'advances'],
  ['Expanding', 'expands'],
];

function buildAwardedGrant(ctx: GrantContext, index: number): Grant {
  const rng = new Random(ctx.spec.seed, STREAM.grant, index);
  const id = recordId(rng, ctx.spec.seed, STREAM.grant, index);
  const { placement, funder, topic } = grantSubject(rng, ctx, index);
  const awardDay = ctx.todayDay - rng.between(0, 3 * YEAR_DAYS);
  const endDay = Math.min(awardDay + rng.between(YEAR_DAYS, 5 * YEAR_DAYS), ctx.todayDay + 4 * YEAR_DAYS);

  const [verb, verbPresent] = rng.pick(PROJECT_VERBS);
  const outcome = rng.pick(topic.outcomes);
  const approach = rng.pick(topic.approaches);
  const place = placement.scope === 'local' ? placement.city : placement.scope === 'state' ? statePhrase(itemAt(placement.states, 0)) : null;
  const population = rng.pick(topic.populations);
  const titleRoll = rng.float();
  let title: string;
  if (place && titleRoll < 0.35) title = `${verb} ${outcome} in ${place}${rng.chance(0.4) ? ` through ${approach}` : ''}`;
  else if (titleRoll < 0.55) title = `${verb} ${outcome} for ${population}`;
  else title = `${verb} ${outcome} through ${approach}`;

  const sentences = [
    `This project ${verbPresent} ${inSentence(outcome)}${place ? ` in ${place}` : ''} through ${inSentence(approach)}.`,
    `Activities include ${rng.pick(topic.activities)}${rng.chance(0.5) ? `, with a focus on ${inSentence(population)}` : ''}.`,
  ];
  if (rng.chance(0.6)) sentences.push(`It was funded by ${funder.funder.name} under its ${inSentence(rng.pick(topic.subjects))} program.`);
  if (rng.chance(0.5)) sentences.push(`The project period ends on ${isoDate(endDay)}.`);

  let amountMin: number | null;
  let amountMax: number | null;
  const amountRoll = rng.float();
  const awarded = Math.round(rng.logUniform(Math.max(5_000, topic.amount[0] / 2), topic.amount[1]));
  if (amountRoll < 0.03) {
    amountMin = null;
    amountMax = null;
  } else if (amountRoll < 0.1) {
    // Obligated so far versus the total award.
    amountMin = Math.round(awarded * (0.3 + rng.float() * 0.6));
    amountMax = awarded;
  } else {
    amountMin = awarded;
    amountMax = awarded;
  }

  const recipient = rng.pick(topic.applicants);
  const awardYear = yearOf(awardDay);
  return {
    id,
    title,
    description: sentences.join(' '),
    amount_min: amountMin,
    amount_max: amountMax,
    deadline_date: null,
    archive_date: null,
    status: 'closed',
    geography: placement.geography,
    funder_id: funder.funder.id,
    funder_name: funder.funder.name,
    listing_url: grantListingUrl(rng, funder, index, awardYear, true),
    created_at: isoDateTime(awardDay, rng),
    categories: grantCategories(rng, topic),
    opportunity_type: 'awarded',
    project_end_date: isoDate(endDay),
    states: placement.states,
    source: 'synthetic',
    source_id: `SYN-GA-${funder.code}-${awardYear}-${padded(index + 1, 6)}`,
    ...grantIdentifiers(funder, topic),
    eligible_applicants: [recipient],
    requires_501c3: recipient === 'nonprofit' && rng.chance(0.4) ? true : null,
  };
}

/**
 * Open grants first, then the `awardedGrants` awarded ones, `batchSize` at a time, so a
 * 100,000-grant catalogue can be written out without ever being held in memory.
 */
export function* generateGrants(spec: CatalogueSpec, funders: Funder[], batchSize = 1000): Generator<Grant[]> {
  validateSpec(spec);
  validateBatchSize(batchSize);
  if (spec.grants === 0) return;
  const ctx: GrantContext = {
    spec,
    todayDay: epochDay(spec.today),
    pools: new FunderPools(spec, funders),
    openCount: spec.grants - spec.awardedGrants,
  };
  let batch: Grant[] = [];
  for (let index = 0; index < spec.grants; index++) {
    batch.push(index < ctx.openCount ? buildOpenGrant(ctx, index) : buildAwardedGrant(ctx, index));
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// ---------------------------------------------------------------------------------------------
// Contracts

interface NaicsProfile {
  code: string;
  categories: readonly ContractCategoryName[];
  /** Titles without a place, for national, regional or statewide work. */
  titles: readonly string[];
  /** Title heads completed by " at <facility>, <city>, <ST>". */
  placed: readonly string[];
  /** Completes "<agency> has a requirement for ...". */
  scope: string;
  sentences: readonly string[];
  amount: readonly [number, number];
}

const NAICS_PROFILES: readonly NaicsProfile[] = [
  {
    code: '541512',
    categories: ['Information Technology'],
    titles: [
      'Enterprise Cloud Migration Support Services',
      'Cybersecurity Operations Center Support',
      'Network Modernization and Engineering Services',
      'Zero Trust Architecture Implementation',
      'Enterprise IT Infrastructure Support Services',
    ],
    placed: ['IT Network Infrastructure Upgrade', 'Local Area Network Refresh'],
    scope: 'IT systems design, integration, cloud migration and cybersecurity engineering services',
    sentences: [
      'The contractor shall provide cloud architecture, migration planning and application modernization services.',
      'All systems must comply with FedRAMP and agency cybersecurity requirements.',
      'Key personnel must hold active Secret security clearances.',
    ],
    amount: [250_000, 80_000_000],
  },
  {
    code: '541511',
    categories: ['Information Technology'],
    titles: [
      'Custom Software Development and Maintenance',
      'Case Management System Modernization',
      'Agile Software Development Services',
      'Mobile Application Development',
      'Grants Management System Enhancements',
    ],
    placed: [],
    scope: 'custom software development, maintenance and DevSecOps services',
    sentences: [
      'Work will be performed using agile methods in two-week sprints.',
      'The contractor shall deliver source code, documentation and automated tests.',
      'The software must meet Section 508 accessibility standards.',
    ],
    amount: [150_000, 40_000_000],
  },
  {
    code: '541513',
    categories: ['Information Technology'],
    titles: ['Data Center Operations and Maintenance', 'Managed IT Services'],
    placed: ['Data Center Operations Support'],
    scope: 'data center operations and managed IT services',
    sentences: [
      'The contractor shall operate and monitor servers, storage and backup systems around the clock.',
      'Service levels require 99.9 percent availability of hosted systems.',
    ],
    amount: [500_000, 60_000_000],
  },
  {
    code: '541519',
    categories: ['Information Technology'],
    titles: ['IT Help Desk and End User Support', 'Software License Renewal and Support', 'IT Asset Management Services'],
    placed: ['Desktop Support Services'],
    scope: 'IT help desk, end user support and IT asset management',
    sentences: [
      'The help desk shall resolve tier 1 and tier 2 tickets within agreed service levels.',
      'The contractor shall maintain an accurate inventory of hardware and software assets.',
    ],
    amount: [50_000, 15_000_000],
  },
  {
    code: '518210',
    categories: ['Information Technology'],
    titles: ['Cloud Hosting Services', 'Managed Data Hosting and Storage', 'Geospatial Data Processing Services'],
    placed: [],
    scope: 'cloud hosting, data processing and managed storage services',
    sentences: [
      'Hosting must be provided in a FedRAMP Moderate authorized cloud environment.',
      'The contractor shall provide disaster recovery with a recovery time objective of four hours.',
    ],
    amount: [100_000, 30_000_000],
  },
  {
    code: '541330',
    categories: ['Professional Services', 'Construction'],
    titles: ['Architect-Engineer Design Services', 'Indefinite Delivery Engineering Services', 'Environmental Engineering Support Services'],
    placed: ['Architect-Engineer Services for Facility Renovation', 'Engineering Design for HVAC Replacement', 'Seismic Evaluation and Retrofit Design'],
    scope: 'architect-engineer design and engineering services',
    sentences: [
      'Selection will follow the Brooks Act qualifications-based procedures.',
      'Deliverables include design drawings, specifications and cost estimates.',
      'The engineer shall perform site investigations and prepare a basis of design.',
    ],
    amount: [100_000, 25_000_000],
  },
  {
    code: '541611',
    categories: ['Professional Services'],
    titles: [
      'Program Management Support Services',
      'Strategic Planning and Organizational Assessment',
      'Acquisition Support Services',
      'Financial Management Advisory Services',
      'Grants Management Support Services',
    ],
    placed: [],
    scope: 'program management, acquisition and management consulting support',
    sentences: [
      'The contractor shall support program planning, performance measurement and reporting.',
      'Support includes process improvement, risk management and stakeholder engagement.',
    ],
    amount: [100_000, 20_000_000],
  },
  {
    code: '541612',
    categories: ['Professional Services'],
    titles: ['Human Capital Consulting Services', 'Workforce Planning and Position Classification Support'],
    placed: [],
    scope: 'human capital consulting and workforce planning',
    sentences: [
      'The contractor shall review position descriptions and recommend classification actions.',
      'Deliverables include a workforce plan and a skills gap analysis.',
    ],
    amount: [75_000, 5_000_000],
  },
  {
    code: '541690',
    categories: ['Professional Services', 'Research and Development'],
    titles: ['Scientific and Technical Advisory Services', 'Regulatory Analysis Support', 'Technical Assistance Center Operations'],
    placed: [],
    scope: 'scientific and technical consulting and regulatory analysis',
    sentences: [
      'The contractor shall provide subject matter experts in engineering, economics and public policy.',
      'Analyses must follow the agency information quality guidelines.',
    ],
    amount: [100_000, 15_000_000],
  },
  {
    code: '541715',
    categories: ['Research and Development'],
    titles: [
      'Advanced Materials Research and Development',
      'Hypersonic Propulsion Research',
      'Autonomous Systems Research and Development',
      'Battery Technology Research',
      'Quantum Sensing Research',
    ],
    placed: ['Laboratory Research Support'],
    scope: 'research and development in the physical and engineering sciences',
    sentences: [
      'Offerors shall propose a technical approach, milestones and a transition plan.',
      'Research results will be delivered in technical reports and prototype demonstrations.',
      'Export-controlled technical data may be involved.',
    ],
    amount: [250_000, 90_000_000],
  },
  {
    code: '541714',
    categories: ['Research and Development', 'Medical'],
    titles: ['Vaccine Adjuvant Research and Development', 'Biomarker Discovery Services', 'Medical Countermeasures Development'],
    placed: [],
    scope: 'biotechnology research and development',
    sentences: [
      'Work includes preclinical studies under Good Laboratory Practice.',
      'The contractor shall deliver study reports suitable for regulatory submission.',
    ],
    amount: [500_000, 80_000_000],
  },
  {
    code: '541380',
    categories: ['Research and Development', 'Environmental Services'],
    titles: ['Environmental Sample Analysis Laboratory Services', 'Materials Testing Services', 'Drinking Water Laboratory Testing'],
    placed: ['Laboratory Testing Services'],
    scope: 'accredited laboratory testing and analysis',
    sentences: [
      'The laboratory must hold current accreditation for the required test methods.',
      'Results shall be reported electronically within ten business days.',
    ],
    amount: [25_000, 5_000_000],
  },
  {
    code: '541620',
    categories: ['Environmental Services'],
    titles: ['Environmental Impact Statement Preparation', 'NEPA Compliance Support Services', 'Environmental Site Assessment'],
    placed: ['Phase I Environmental Site Assessment', 'Wetland Delineation and Permitting Support'],
    scope: 'environmental consulting, NEPA compliance and site assessment',
    sentences: [
      'The contractor shall prepare environmental assessments in accordance with NEPA.',
      'Field surveys will document wetlands, cultural resources and protected species.',
    ],
    amount: [50_000, 10_000_000],
  },
  {
    code: '562910',
    categories: ['Environmental Services'],
    titles: ['Soil and Groundwater Remediation', 'Munitions Response and Remediation'],
    placed: ['Hazardous Waste Remediation', 'Asbestos and Lead Abatement'],
    scope: 'environmental remediation and hazardous waste cleanup',
    sentences: [
      'Remediation shall comply with CERCLA and state environmental regulations.',
      'The contractor shall provide a site-specific health and safety plan.',
    ],
    amount: [100_000, 40_000_000],
  },
  {
    code: '562111',
    categories: ['Environmental Services', 'Facilities Support'],
    titles: [],
    placed: ['Refuse Collection and Recycling Services', 'Solid Waste Removal'],
    scope: 'solid waste collection and recycling',
    sentences: ['Collection shall occur on a fixed weekly schedule with on-call service.', 'The contractor shall report recycling diversion rates monthly.'],
    amount: [20_000, 2_000_000],
  },
  {
    code: '236220',
    categories: ['Construction'],
    titles: ['Design-Build Construction of Administrative Facility', 'Multiple Award Construction Contract'],
    placed: ['Interior Renovation and Modernization', 'Roof Replacement', 'Construction of New Outpatient Clinic', 'Renovation of Building 12'],
    scope: 'commercial and institutional building construction and renovation',
    sentences: [
      'Work includes demolition, structural repairs, mechanical and electrical systems and finishes.',
      'The contractor shall furnish performance and payment bonds.',
      'Davis-Bacon wage rates apply to this construction project.',
    ],
    amount: [250_000, 90_000_000],
  },
  {
    code: '237310',
    categories: ['Construction'],
    titles: ['Highway Resurfacing Task Order Contract'],
    placed: ['Road Resurfacing and Repair', 'Bridge Rehabilitation', 'Parking Lot Repaving'],
    scope: 'road, bridge and paving construction',
    sentences: [
      'Work includes milling, paving, striping and traffic control.',
      'All work shall conform to the state department of transportation standard specifications.',
    ],
    amount: [100_000, 30_000_000],
  },
  {
    code: '238220',
    categories: ['Construction', 'Facilities Support'],
    titles: [],
    placed: ['HVAC System Replacement', 'Boiler Replacement', 'Chiller Maintenance and Repair'],
    scope: 'plumbing, heating and air-conditioning work',
    sentences: [
      'The contractor shall replace air handling units, controls and associated ductwork.',
      'Work must be phased to keep the building occupied and conditioned.',
    ],
    amount: [50_000, 8_000_000],
  },
  {
    code: '238210',
    categories: ['Construction'],
    titles: [],
    placed: ['Electrical Distribution Upgrade', 'Emergency Generator Replacement', 'LED Lighting Retrofit'],
    scope: 'electrical construction and upgrades',
    sentences: [
      'Work includes switchgear, panelboards, wiring and testing.',
      'Planned outages must be coordinated with the facility manager two weeks in advance.',
    ],
    amount: [50_000, 10_000_000],
  },
  {
    code: '237110',
    categories: ['Construction', 'Environmental Services'],
    titles: [],
    placed: ['Water Line Replacement', 'Sanitary Sewer Rehabilitation'],
    scope: 'water and sewer line construction',
    sentences: [
      'Work includes trenching, pipe installation, pressure testing and site restoration.',
      'The contractor shall maintain water service to occupied buildings during construction.',
    ],
    amount: [100_000, 15_000_000],
  },
  {
    code: '561720',
    categories: ['Facilities Support'],
    titles: [],
    placed: ['Janitorial Services', 'Custodial Services', 'Floor Care and Carpet Cleaning Services'],
    scope: 'janitorial and custodial services',
    sentences: [
      'Services include daily cleaning, restroom sanitation, trash removal and periodic floor care.',
      'Cleaning products must meet green procurement requirements.',
    ],
    amount: [25_000, 5_000_000],
  },
  {
    code: '561730',
    categories: ['Facilities Support'],
    titles: [],
    placed: ['Grounds Maintenance Services', 'Landscaping and Snow Removal', 'Mowing and Grounds Keeping'],
    scope: 'grounds maintenance, landscaping and snow removal',
    sentences: [
      'Services include mowing, trimming, irrigation repair and seasonal plantings.',
      'Snow removal shall begin when accumulation reaches two inches.',
    ],
    amount: [15_000, 3_000_000],
  },
  {
    code: '561210',
    categories: ['Facilities Support'],
    titles: ['Base Operations Support Services'],
    placed: ['Facility Operations and Maintenance Services', 'Base Operations Support'],
    scope: 'facility operations, maintenance and base support services',
    sentences: [
      'Services include preventive maintenance, work order management and utilities operations.',
      'The contractor shall use a computerized maintenance management system.',
    ],
    amount: [250_000, 60_000_000],
  },
  {
    code: '561612',
    categories: ['Security and Defense'],
    titles: [],
    placed: ['Armed Guard Services', 'Unarmed Security Guard Services', 'Protective Security Officer Services'],
    scope: 'armed and unarmed security guard services',
    sentences: [
      'Security officers must complete required firearms qualification and background investigations.',
      'Posts shall be staffed around the clock, including federal holidays.',
    ],
    amount: [100_000, 20_000_000],
  },
  {
    code: '336411',
    categories: ['Security and Defense'],
    titles: ['Procurement of Light Utility Helicopters', 'Unmanned Aircraft Systems Procurement', 'Trainer Aircraft Acquisition'],
    placed: [],
    scope: 'aircraft and unmanned aircraft systems',
    sentences: ['Deliveries include aircraft, spare parts, training and technical data.', 'Offerors must demonstrate airworthiness certification.'],
    amount: [5_000_000, 95_000_000],
  },
  {
    code: '336413',
    categories: ['Security and Defense', 'Logistics and Supplies'],
    titles: ['Aircraft Landing Gear Components', 'F-16 Spare Parts', 'Rotor Blade Assemblies', 'Turbine Engine Components'],
    placed: [],
    scope: 'aircraft parts and auxiliary equipment',
    sentences: ['Parts must be manufactured to the approved technical data package.', 'First article testing is required.'],
    amount: [50_000, 40_000_000],
  },
  {
    code: '334511',
    categories: ['Security and Defense', 'Research and Development'],
    titles: ['Radar System Sustainment', 'GPS Receiver Modernization', 'Sonar System Components'],
    placed: [],
    scope: 'navigation, guidance and detection systems',
    sentences: [
      'The contractor shall provide engineering, repair and sustainment of fielded systems.',
      'Work requires a facility security clearance at the Secret level.',
    ],
    amount: [500_000, 80_000_000],
  },
  {
    code: '332994',
    categories: ['Security and Defense'],
    titles: ['M4 Carbine Spare Parts', 'Small Arms Procurement', 'Duty Pistol Procurement for Law Enforcement Officers'],
    placed: [],
    scope: 'small arms and spare parts',
    sentences: ['Deliveries shall include weapons, magazines and armorer training.', 'Items must pass government acceptance testing.'],
    amount: [50_000, 20_000_000],
  },
  {
    code: '621111',
    categories: ['Medical'],
    titles: ['Telehealth Physician Services'],
    placed: ['Emergency Department Physician Staffing', 'Primary Care Physician Services', 'Radiology Services'],
    scope: 'physician and clinical staffing services',
    sentences: ['Physicians must be board certified and hold an active, unrestricted license.', 'Coverage is required 24 hours a day, seven days a week.'],
    amount: [200_000, 30_000_000],
  },
  {
    code: '621511',
    categories: ['Medical'],
    titles: ['Reference Laboratory Testing Services'],
    placed: ['Clinical Laboratory Services'],
    scope: 'clinical and reference laboratory testing',
    sentences: [
      'The laboratory must be CLIA certified and accredited by the College of American Pathologists.',
      'Courier pickup of specimens is required daily.',
    ],
    amount: [50_000, 8_000_000],
  },
  {
    code: '622110',
    categories: ['Medical'],
    titles: ['Community Care Hospital Services'],
    placed: ['Inpatient Hospital Services'],
    scope: 'inpatient and outpatient hospital services',
    sentences: [
      'The hospital shall accept referred patients and share records electronically.',
      'Services must meet Joint Commission accreditation standards.',
    ],
    amount: [500_000, 60_000_000],
  },
  {
    code: '339112',
    categories: ['Medical', 'Logistics and Supplies'],
    titles: ['Surgical Instruments and Supplies', 'Infusion Pumps Procurement', 'Endoscopy Equipment'],
    placed: [],
    scope: 'surgical and medical instruments',
    sentences: [
      'Equipment must be FDA cleared and include installation and in-service training.',
      'The offer shall include a five-year warranty and preventive maintenance.',
    ],
    amount: [25_000, 10_000_000],
  },
  {
    code: '423450',
    categories: ['Medical', 'Logistics and Supplies'],
    titles: ['Medical Supplies Prime Vendor', 'Durable Medical Equipment', 'Personal Protective Equipment Procurement'],
    placed: [],
    scope: 'medical, dental and hospital equipment and supplies',
    sentences: ['Deliveries are required within 48 hours of order.', 'The vendor shall provide an electronic catalog and order tracking.'],
    amount: [50_000, 90_000_000],
  },
  {
    code: '493110',
    categories: ['Logistics and Supplies'],
    titles: ['Warehousing and Distribution Services'],
    placed: ['Warehouse Operations Support'],
    scope: 'warehousing, storage and distribution',
    sentences: ['The contractor shall receive, store, pick, pack and ship materiel.', 'Inventory accuracy must be maintained at 99 percent or better.'],
    amount: [100_000, 25_000_000],
  },
  {
    code: '484121',
    categories: ['Logistics and Supplies'],
    titles: ['Long-Distance Freight Transportation Services', 'Household Goods Moving Services'],
    placed: [],
    scope: 'long-distance freight transportation',
    sentences: [
      'Carriers must provide real-time shipment tracking.',
      'Drivers must hold commercial driver licenses and hazardous materials endorsements where required.',
    ],
    amount: [50_000, 15_000_000],
  },
  {
    code: '424410',
    categories: ['Logistics and Supplies'],
    titles: ['Subsistence Prime Vendor', 'Fresh Fruits and Vegetables Delivery'],
    placed: ['Food Service Supplies'],
    scope: 'grocery and subsistence supplies',
    sentences: ['Products must meet USDA grading standards.', 'Deliveries shall be made at least twice weekly.'],
    amount: [50_000, 50_000_000],
  },
  {
    code: '722310',
    categories: ['Facilities Support'],
    titles: [],
    placed: ['Dining Facility Attendant Services', 'Food Service Operations'],
    scope: 'food service and dining facility operations',
    sentences: ['Staff must hold current food handler certifications.', 'Menus shall follow the dietary guidelines for Americans.'],
    amount: [100_000, 20_000_000],
  },
  {
    code: '611430',
    categories: ['Training and Education'],
    titles: ['Leadership Development Training', 'Project Management Training Services', 'Acquisition Workforce Training'],
    placed: [],
    scope: 'professional and management development training',
    sentences: ['Training will be delivered in person and virtually to cohorts of up to 30 participants.', 'Courses must award continuing education credits.'],
    amount: [25_000, 5_000_000],
  },
  {
    code: '611519',
    categories: ['Training and Education'],
    titles: ['Technical Training Services', 'Heavy Equipment Operator Training', 'Firefighter Training Services'],
    placed: [],
    scope: 'technical and trade training',
    sentences: [
      'Instructors must hold current certifications in the subjects taught.',
      'Training includes classroom instruction and hands-on practical exercises.',
    ],
    amount: [25_000, 6_000_000],
  },
  {
    code: '611710',
    categories: ['Training and Education'],
    titles: ['Curriculum Development Services', 'Instructional Design and E-Learning Development'],
    placed: [],
    scope: 'curriculum development and instructional design',
    sentences: [
      'E-learning modules must conform to SCORM and Section 508 standards.',
      'The contractor shall pilot test courses and revise them based on learner feedback.',
    ],
    amount: [25_000, 4_000_000],
  },
  {
    code: '541930',
    categories: ['Professional Services'],
    titles: ['Translation and Interpretation Services', 'Sign Language Interpreting Services'],
    placed: [],
    scope: 'translation and interpretation services',
    sentences: [
      'Interpreters must be certified in the required language pairs.',
      'Services are required on demand, including telephone and video interpretation.',
    ],
    amount: [25_000, 5_000_000],
  },
  {
    code: '811310',
    categories: ['Facilities Support', 'Logistics and Supplies'],
    titles: [],
    placed: ['Generator Preventive Maintenance', 'Industrial Equipment Repair Services'],
    scope: 'commercial and industrial machinery repair and maintenance',
    sentences: [
      'The contractor shall perform quarterly preventive maintenance and emergency repairs.',
      'Technicians must respond to emergency calls within four hours.',
    ],
    amount: [15_000, 3_000_000],
  },
];

const NAICS_BY_CODE: ReadonlyMap<string, NaicsProfile> = new Map(NAICS_PROFILES.map((profile) => [profile.code, profile]));
function naicsProfile(code: string): NaicsProfile {
  const profile = NAICS_BY_CODE.get(code);
  if (!profile) throw new Error(`No NAICS profile for ${code}`);
  return profile;
}

const GENERIC_NAICS = ['541611', '541512', '541511', '561210', '611430', '541930', '541519', '541690'] as const;

type SetAsideCode = (typeof SET_ASIDE_CODES)[number];
// Total small business set-asides dominate SAM.gov; sole-source and tribal ones are rare.
const COMMON_SET_ASIDES: Partial<Record<SetAsideCode, number>> = { SBA: 40, SDVOSBC: 12, '8A': 10, WOSB: 8, HZC: 7, SBP: 4, VSA: 4, '8AN': 3, EDWOSB: 3 };
const SET_ASIDE_WEIGHTS = new WeightedTable(SET_ASIDE_CODES.map((code) => [code, COMMON_SET_ASIDES[code] ?? 1] as const));

const SET_ASIDE_DESCRIPTIONS: Readonly<Record<SetAsideCode, string>> = {
  SBA: 'a total small business set-aside',
  SBP: 'a partial small business set-aside',
  '8A': 'an 8(a) competitive set-aside',
  '8AN': 'an 8(a) sole source award',
  HZC: 'a HUBZone set-aside',
  HZS: 'a HUBZone sole source award',
  SDVOSBC: 'a service-disabled veteran-owned small business set-aside',
  SDVOSBS: 'a service-disabled veteran-owned small business sole source award',
  WOSB: 'a women-owned small business set-aside',
  WOSBSS: 'a women-owned small business sole source award',
  EDWOSB: 'an economically disadvantaged women-owned small business set-aside',
  EDWOSBSS: 'an economically disadvantaged women-owned small business sole source award',
  LAS: 'a local area set-aside',
  IEE: 'an Indian Economic Enterprise set-aside',
  ISBEE: 'an Indian Small Business Economic Enterprise set-aside',
  BICIV: 'a Buy Indian Act set-aside',
  VSA: 'a veteran-owned small business set-aside',
  VSS: 'a veteran-owned small business sole source award',
};

const CONTRACT_CLOSING_SENTENCES = [
  'Offerors must be registered in SAM.gov at the time of offer submission.',
  'Questions must be submitted in writing to the contracting officer.',
  'The anticipated period of performance is one base year plus four option years.',
  'Award will be made on a best-value tradeoff basis.',
  'A site visit will be held for interested offerors.',
] as const;

const COMPANY_SUFFIXES = [
  'Federal Solutions LLC',
  'Technologies Inc.',
  'Services Group',
  'Engineering LLC',
  'Consulting Group LLC',
  'Facility Services Inc.',
  'Medical Staffing LLC',
  'Logistics Corp.',
  'Construction Co.',
] as const;

interface ContractContext {
  spec: CatalogueSpec;
  todayDay: number;
  pools: FunderPools;
  openCount: number;
}

function contractFunder(rng: Random, pools: FunderPools): FunderProfile {
  if (pools.contractFederal && rng.chance(0.9)) return pools.contractFederal.pick(rng);
  return pools.firstOf(rng, pools.stateAgencies, pools.federalNational);
}

function buildContract(ctx: ContractContext, index: number): Contract {
  const rng = new Random(ctx.spec.seed, STREAM.contract, index);
  const id = recordId(rng, ctx.spec.seed, STREAM.contract, index);
  const awarded = index >= ctx.openCount;
  const today = ctx.todayDay;
  const funder = contractFunder(rng, ctx.pools);
  const naics = naicsProfile(rng.pick(funder.naics.length > 0 ? funder.naics : GENERIC_NAICS));

  // Place of performance. Work tied to a building (janitorial, HVAC) is always placed.
  let placement: Placement;
  let facility: string | null = null;
  const mustPlace = naics.titles.length === 0;
  const roll = rng.float();
  if (funder.kind === 'state' && funder.homeState) {
    placement = statePlacement(funder.homeState, mustPlace || rng.chance(0.4) ? rng.pick(CITIES[funder.homeState]) : null);
  } else if (!mustPlace && roll < 0.2) {
    placement = nationalPlacement();
  } else if (!mustPlace && roll < 0.3) {
    placement = multiStatePlacement(rng);
  } else {
    const state = STATE_WEIGHTS.pick(rng);
    const placed = mustPlace || (naics.placed.length > 0 && rng.chance(0.7));
    placement = statePlacement(state, placed || rng.chance(0.3) ? rng.pick(CITIES[state]) : null);
  }
  const placedTitle = placement.city !== null && naics.placed.length > 0 && (mustPlace || rng.chance(0.8));
  let title: string;
  if (placedTitle && placement.city) {
    const site = `${placement.city}, ${itemAt(placement.states, 0)}`;
    // Only agencies with real facility types name one; "Bridge Rehabilitation at Regional Office" reads wrong.
    if (funder.facilities.length > 0) {
      facility = rng.pick(funder.facilities);
      title = `${rng.pick(naics.placed)} ${rng.pick(['at', 'for'])} ${facility}, ${site}`;
    } else {
      title = `${rng.pick(naics.placed)}, ${site}`;
    }
  } else {
    title = rng.pick(naics.titles.length > 0 ? naics.titles : naics.placed);
  }

  // Status and dates: solicitations are posted weeks before they close.
  let status: Contract['status'];
  let deadlineDay: number | null = null;
  let createdDay: number;
  let endDay: number | null = null;
  if (awarded) {
    status = 'closed';
    createdDay = today - rng.between(0, 3 * YEAR_DAYS);
    endDay = Math.min(createdDay + rng.between(180, 5 * YEAR_DAYS), today + 4 * YEAR_DAYS);
  } else if (rng.chance(0.75)) {
    status = 'open';
    if (rng.chance(0.9)) {
      deadlineDay = today + rng.between(3, 120);
      createdDay = today - rng.between(0, 60);
    } else {
      deadlineDay = today - rng.between(1, 30);
      createdDay = deadlineDay - rng.between(7, 60);
    }
  } else {
    status = 'closed';
    deadlineDay = today - rng.between(1, 900);
    createdDay = deadlineDay - rng.between(7, 90);
  }

  const setAside = rng.chance(0.6) ? SET_ASIDE_WEIGHTS.pick(rng) : null;
  const where =
    facility && placement.city
      ? ` at the ${facility} in ${placement.city}, ${US_STATE_NAMES[itemAt(placement.states, 0)]}`
      : placement.scope === 'state' || placement.scope === 'local' || placement.scope === 'multi'
        ? ` in ${placementPhrase(placement)}`
        : '';
  const sentences = awarded
    ? [`${funder.shortName} awarded this contract for ${naics.scope}${where}.`]
    : [`${funder.shortName} has a requirement for ${naics.scope}${where}.`];
  sentences.push(...rng.sample(naics.sentences, rng.between(1, 2)));
  if (setAside) sentences.push(`This acquisition is ${SET_ASIDE_DESCRIPTIONS[setAside]}.`);
  else if (rng.chance(0.5)) sentences.push('This is a full and open competition.');
  if (awarded) {
    sentences.push(
      `The contract was awarded to ${rng.pick(COMPANY_PREFIXES)} ${rng.pick(COMPANY_SUFFIXES)}; the period of performance ends on ${isoDate(endDay ?? today)}.`,
    );
  } else if (rng.chance(0.6)) {
    sentences.push(rng.pick(CONTRACT_CLOSING_SENTENCES));
  }

  let amountMin: number | null = null;
  let amountMax: number | null = null;
  if (awarded) {
    amountMax = Math.round(rng.logUniform(naics.amount[0], naics.amount[1]));
    amountMin = amountMax;
  } else if (!rng.chance(0.3)) {
    amountMax = roundedAmount(rng.logUniform(naics.amount[0], naics.amount[1]));
    amountMin = rng.chance(0.5) ? amountMax : Math.min(amountMax, roundedAmount(amountMax * (0.2 + rng.float() * 0.6)));
  }

  const [primaryCategory, ...otherCategories] = naics.categories;
  const categories = [primaryCategory, ...otherCategories.filter(() => rng.chance(0.6))].filter((name) => name !== undefined);
  const year = yearOf(createdDay);
  const onSam = funder.kind === 'federal' || !funder.funder.website;
  const noticeId = rng.hex(32);
  const contact = rng.chance(0.9) ? `${rng.pick(GIVEN_NAMES)}.${rng.pick(SURNAMES)}@${funder.emailDomain}`.toLowerCase() : null;
  const sourceId = `SYN-${awarded ? 'CA' : 'C'}-${funder.code}-${String(year).slice(2)}-${padded(index + 1, 6)}`;
  const contract: Omit<Contract, 'solicitation_number' | 'psc_code' | 'naics_description' | 'psc_description'> = {
    id,
    title,
    description: sentences.join(' '),
    amount_min: amountMin,
    amount_max: amountMax,
    deadline_date: deadlineDay === null ? null : isoDate(deadlineDay),
    archive_date: null,
    status,
    geography: placement.geography,
    funder_id: funder.funder.id,
    funder_name: funder.funder.name,
    listing_url: rng.chance(0.02)
      ? null
      : onSam
        ? `https://sam.gov/opp/${noticeId}/view`
        : `${(funder.funder.website ?? '').replace(/\/+$/, '')}/procurement/${year}-${padded(index + 1, 6)}`,
    created_at: isoDateTime(createdDay, rng),
    categories,
    opportunity_type: awarded ? 'awarded' : 'open',
    project_end_date: endDay === null ? null : isoDate(endDay),
    states: placement.states,
    source: 'synthetic',
    source_id: sourceId,
    document_url: onSam && rng.chance(0.8) ? `https://sam.gov/api/prod/opps/v3/opportunities/resources/files/${rng.hex(32)}/download` : null,
    // Open solicitations always carry a NAICS code; a few closed legacy notices do not.
    naics: status === 'closed' && !awarded && rng.chance(0.05) ? null : naics.code,
    primary_contact_email: contact,
    set_aside_code: setAside,
  };
  const pscCode = syntheticPscCode(contract.naics);
  return { ...contract, solicitation_number: syntheticSolicitationNumber(sourceId), psc_code: pscCode, ...classificationOf(contract.naics, pscCode) };
}

/** Open and closed solicitations first, then the `awardedContracts` awards, `batchSize` at a time. */
export function* generateContracts(spec: CatalogueSpec, funders: Funder[], batchSize = 1000): Generator<Contract[]> {
  validateSpec(spec);
  validateBatchSize(batchSize);
  if (spec.contracts === 0) return;
  const ctx: ContractContext = {
    spec,
    todayDay: epochDay(spec.today),
    pools: new FunderPools(spec, funders),
    openCount: spec.contracts - spec.awardedContracts,
  };
  let batch: Contract[] = [];
  for (let index = 0; index < spec.contracts; index++) {
    batch.push(buildContract(ctx, index));
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// ---------------------------------------------------------------------------------------------
// Validation

function validateSpec(spec: CatalogueSpec): void {
  if (!Number.isSafeInteger(spec.seed)) throw new RangeError(`seed must be a safe integer, got ${spec.seed}`);
  epochDay(spec.today);
  for (const field of ['funders', 'grants', 'contracts', 'awardedGrants', 'awardedContracts'] as const) {
    const value = spec[field];
    if (!Number.isInteger(value) || value < 0 || value >= UINT32_RANGE) throw new RangeError(`${field} must be a non-negative integer, got ${value}`);
  }
  if (spec.awardedGrants > spec.grants) throw new RangeError('awardedGrants cannot exceed grants');
  if (spec.awardedContracts > spec.contracts) throw new RangeError('awardedContracts cannot exceed contracts');
}

function validateBatchSize(batchSize: number): void {
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
}
