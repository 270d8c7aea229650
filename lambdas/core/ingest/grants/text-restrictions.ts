import { type StateCode, US_STATE_CODES, US_STATE_NAMES } from '../../geo';
import type { ApplicantType } from '../../records';
import { EDA_OFFICE_NAME, EDA_OFFICE_TITLE, EPA_REGION_NAME, edaOfficeStates, epaRegionStates, REGIONAL_SERVICE_AREAS } from './regional-service-areas';

export type RestrictionSource = 'title' | 'description' | 'eligibility_text';

export type TextRestriction =
  /** Only applicants in (or projects in) these states/territories may apply. */
  | { field: 'states'; states: StateCode[]; source: RestrictionSource; quote: string }
  /** Only these applicant types may apply ("limited to institutions of higher education"). `detail` names a narrower group when the text gives one, e.g. 'state governments' (our type 'municipality' covers state AND local governments, so a state-governments-only grant must say so). */
  | { field: 'eligible_applicants'; only: ApplicantType[]; detail: string | null; source: RestrictionSource; quote: string }
  /** These applicant types may NOT apply ("Individuals are not eligible"). */
  | { field: 'excluded_applicants'; excluded: ApplicantType[]; source: RestrictionSource; quote: string };

/**
 * Eligibility limits that Grants.gov listings state only in free text.
 *
 * A false restriction hides a grant from applicants who may apply; a missed one only shows a grant
 * to a few who may not. So each rule needs a word that restricts ("only", "limited to", "must be
 * located in", "are eligible:") next to the place or type, and anything doubtful yields nothing:
 * - A place without such a word is a topic or a partner ("research on Alaska glaciers", "partners
 *   in Texas and Ohio"): researchers and partners elsewhere still apply. A site in a title says
 *   where the work is, not who may do it; "(Alaska only)" after a noun qualifies the noun. A bare
 *   "Region 5" title is skipped: EPA, FEMA and FWS number their regions differently.
 * - A place the award is tied to counts when the text ties it ("to operate a MEP Center in the
 *   States of …", "Proposed projects must be located in …"): `states` covers projects, and such an
 *   award cannot be spent elsewhere. So does a title naming ANCSA lands: the lands, and the Native
 *   corporations that own them, are all in Alaska.
 * - "Alaska Native" and "Native Hawaiian" name peoples, so NIH's "Other Eligible Applicants include
 *   … Alaska Native and Native Hawaiian Serving Institutions; … U.S. Territory or Possession" (who
 *   MAY apply) yields nothing; tribal lands name no state. "Washington, D.C." is never Washington
 *   state, and "Mexico" is not New Mexico.
 * - Regional commissions restrict when they run the competition ("The Denali Commission is
 *   inviting …"): their statutes fix where they may spend. EDA offices count only in listings that
 *   name EDA (other agencies have offices in the same cities); there, a title starting with the
 *   office's city is that office's competition.
 * - Negations, examples and preferences ("not limited to", "including but not limited to", "other
 *   than", "priority") bar no one. Limits on a track ("Category 1: …", "they are available only
 *   to …") or on subrecipients do not bind the listing.
 * - Every group in an applicant list must map to a type, or nothing is returned: an unread group
 *   would exclude applicants the text allows. Exclusions need a bare type ("Individuals are not
 *   eligible"): "Foreign entities" have none, "Private universities" are part of one.
 * - SBIR/STTR listings that invite small business concerns are limited to them by 15 U.S.C. 638.
 * - Consumers intersect the restrictions of one field, so a field whose restrictions share no
 *   value (two tracks read as two limits) is dropped whole.
 */
export function restrictionsInText(text: { title: string; description: string; eligibilityText: string | null }): TextRestriction[] {
  const namesEda = /\bEDA\b|Economic\s+Development\s+Administration/.test(`${text.title}\n${text.description}\n${text.eligibilityText ?? ''}`);
  const context: Context = { namesEda, sbir: SBIR.test(text.title) };
  const found: TextRestriction[] = [];
  const fields: Array<[RestrictionSource, string]> = [
    ['title', text.title],
    ['description', text.description],
    ['eligibility_text', text.eligibilityText ?? ''],
  ];
  for (const [source, value] of fields) {
    const track = TRACK.exec(value)?.index ?? Infinity;
    for (const { text: sentence, start } of source === 'title' ? [{ text: value.trim(), start: 0 }] : sentencesOf(value)) {
      found.push(...stateLimitsIn(sentence, source, context), ...applicantLimitsIn(sentence, source, track < start, context));
    }
    found.push(...nsfOrganizationLimit(value, source));
  }
  return consistent(found);
}

interface Context {
  readonly namesEda: boolean;
  readonly sbir: boolean;
}

const ABBREVIATION = /\b(?:U\.S|U\.S\.C|e\.g|i\.e|Inc|Nos?|St|Dr|Mrs?|Ms|vs|D\.C|C\.F\.R|P\.L|Pub|Stat|Sec|Dept|Corp|Co|al|approx|[A-Z])\.$/;
function sentencesOf(text: string): Array<{ text: string; start: number }> {
  const sentences: Array<{ text: string; start: number }> = [];
  let from = 0;
  // The last alternative splits "eligible.Funding …", glued when a scraper dropped the markup.
  for (const m of text.matchAll(/[.!?;]+["”’)]?\s+|\n\s*|(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])/g)) {
    if (m[0][0] === '.' && ABBREVIATION.test(text.slice(Math.max(from, m.index - 12), m.index + 1))) continue;
    if (/^[.?!]/.test(m[0]) && /^[a-z0-9]/.test(text.charAt(m.index + m[0].length))) continue;
    sentences.push({ text: text.slice(from, m.index + m[0].trimEnd().length).trim(), start: from });
    from = m.index + m[0].length;
  }
  sentences.push({ text: text.slice(from).trim(), start: from });
  return sentences.filter((sentence) => sentence.text);
}

const QUOTE_MAX = 200;
/** The sentence, or a window of it around [from, to) cut at word boundaries; whitespace runs become one space. */
function quoteOf(text: string, from = 0, to = text.length): string {
  const [lo, hi] = [Math.max(0, from - QUOTE_MAX), Math.min(text.length, to + QUOTE_MAX)];
  const squash = (part: string) => part.replace(/\s+/g, ' ');
  const head = squash(text.slice(lo, from)).replace(lo === 0 ? /^[-–—•▪ ]+/ : /^$/, '');
  const sentence = (head + squash(text.slice(from, hi))).trimEnd();
  if (lo === 0 && hi === text.length && sentence.length <= QUOTE_MAX) return sentence;
  const matchEnd = head.length + squash(text.slice(from, to)).length;
  let start = Math.max(0, Math.min(head.length - 40, matchEnd - QUOTE_MAX + 16));
  let end = Math.min(sentence.length, start + QUOTE_MAX - 2);
  if (start > 0 || lo > 0) start = sentence.indexOf(' ', start) + 1;
  if (end < sentence.length || hi < text.length) end = Math.max(start, sentence.lastIndexOf(' ', end));
  const body = sentence
    .slice(start, end)
    .trim()
    .replace(/^[-–—•▪]\s+/, '');
  return `${start > 0 || lo > 0 ? '…' : ''}${body}${end < sentence.length || hi < text.length ? '…' : ''}`;
}

/** DC comes first in STATE_ORDER, so "Washington, D.C." is never read as Washington state. */
const PLACE_PATTERNS: Partial<Record<StateCode, string>> = {
  DC: String.raw`District\s+of\s+Columbia\b|Washington,?\s+D\.?\s?C\b\.?`,
  WA: String.raw`Washington\b(?!,?\s+D\.?\s?C\b)(?:\s+State\b)?`,
  VI: String.raw`(?:U\.?S\.?\s+)?Virgin\s+Islands\b`,
  MP: String.raw`(?:Commonwealth\s+of\s+(?:the\s+)?)?Northern\s+Marianna?(?:s|\s+Islands)\b`,
};
const STATE_ORDER: StateCode[] = ['DC', ...US_STATE_CODES.filter((code) => code !== 'DC')];
const STATE_RE = new RegExp(
  `\\b(?:${STATE_ORDER.map((code) => `(${PLACE_PATTERNS[code] ?? `${US_STATE_NAMES[code].replace(/\s+/g, '\\s+')}\\b`})`).join('|')})`,
  'gi',
);
const AREAS = REGIONAL_SERVICE_AREAS.map((area) => ({ ...area, re: new RegExp(`\\b(?:the\\s+)?(?:${area.name})`, 'gi') }));
/** Peoples, institutions and rivers named after a state: they say nothing about where applicants are. */
const NOT_A_PLACE =
  /\bAlaska[-\s]+Natives?\b(?![-\s]+Claims)|\bNative\s+Hawaiians?\b|\b(?:George\s+)?Washington\s+University\b|\bKansas\s+City\b|\b(?:Colorado|Columbia|Delaware|Mississippi|Missouri|Ohio|Tennessee|Red)\s+River\b|\bColorado\s+Plateau\b|\bIndiana\s+(?:bat|Dunes)\b/gi;
const LIST_GLUE = /^(?:\s*(?:,|&|\/|\band\/or\b|\band\b|\bor\b|\bthe\b|\b(?:states?|commonwealths?|territor(?:y|ies))\s+of\b))*\s*$/i;

interface PlaceList {
  start: number;
  end: number;
  states: Set<StateCode>;
  text: string;
  area?: (typeof AREAS)[number];
}

/** Runs of places joined by commas, "and", "or" and "the State(s) of", one list each. */
function placeListsIn(sentence: string, context: Context): PlaceList[] {
  const masked = sentence.replace(NOT_A_PLACE, (m) => ' '.repeat(m.length));
  const hits: PlaceList[] = [];
  const hit = (m: RegExpMatchArray, states: readonly StateCode[], area?: (typeof AREAS)[number]) =>
    hits.push({ start: m.index!, end: m.index! + m[0].length, states: new Set(states), text: m[0], area });
  for (const m of masked.matchAll(STATE_RE)) hit(m, [STATE_ORDER[m.findIndex((g, i) => i > 0 && g !== undefined) - 1]!]);
  for (const area of AREAS) for (const m of masked.matchAll(area.re)) hit(m, area.states, area);
  if (context.namesEda) for (const m of masked.matchAll(EDA_OFFICE_NAME)) hit(m, edaOfficeStates(m[1] ?? m[2]!));
  for (const m of masked.matchAll(EPA_REGION_NAME)) hit(m, epaRegionStates(m[1]!));
  const lists: PlaceList[] = [];
  for (const h of hits.sort((a, b) => a.start - b.start || b.end - a.end)) {
    const last = lists.at(-1);
    if (last && h.start < last.end) continue;
    if (!last || !LIST_GLUE.test(sentence.slice(last.end, h.start))) {
      lists.push(h);
      continue;
    }
    h.states.forEach((state) => last.states.add(state));
    [last.end, last.area] = [h.end, undefined];
  }
  for (const list of lists) {
    const window = sentence.slice(Math.max(0, list.start - 40), list.start);
    const lead = /(?:\bthe\s+)?(?:U\.S\.\s+)?\b(?:states?|commonwealths?|territor(?:y|ies))\s+of\s+$/i.exec(window);
    if (lead) list.start -= window.length - lead.index;
    list.text = sentence.slice(list.start, list.end);
  }
  return lists;
}

const NEGATION = /\b(?:not|no|never|other\s+than|except|excluding|outside)\b|n['’]t\b/i;
const SOFT = String.raw`priority|prefer\w*|encourag\w*|especially|particularly|welcome\w*|points|bonus`;
const REQUIREMENT =
  /\b(?:(?:must|shall|required\s+to)\s+(?:be\s+)?(?:physically\s+)?(?=(?:located|based|headquartered|situated|domiciled|reside)\b)|eligible\s+(?:applicants|entities|organizations|recipients)\s+(?:are|must|include)\b)/gi;
const LOCATED = /\b(?:located|based|headquartered|situated|domiciled|resid(?:e|ing|ents\s+of))\s+(?:in|within)\s+(?:(?:one\s+or\s+more|any|each)\s+of\s+)?$/i;
const WORDS_THEN_IN = String.raw`(?:(?:[\w-]+\s+){0,6}?(?:located\s+|based\s+)?(?:in|within|from)\s+)?$`;
const LIMITED_TO = new RegExp(String.raw`\b(?:limited|restricted|confined)\s+(?:only\s+)?to\s+${WORDS_THEN_IN}`, 'i');
const ONLY_TO = new RegExp(String.raw`\bonly\s+(?:in|within)\s+$|\b(?:open|available|awarded|made)\s+(?:only|exclusively|solely)\s+to\s+${WORDS_THEN_IN}`, 'i');
const SOFT_AFTER = new RegExp(String.raw`^[^.;]{0,60}\b(?:${SOFT})\b`, 'i');
const SOFT_SPAN = new RegExp(String.raw`\b(?:${SOFT}|but|however|while|although|also|may|including|such\s+as|for\s+example)\b`, 'i');

/** Cues in the text before a place list; each returns where its cue starts, or -1. */
const STATE_RULES: Array<(before: string, list: PlaceList, after: string) => number> = [
  // "Applicants must be located in", "eligible applicants are nonprofits located in"; not "must partner with organizations located in".
  (before) => (LOCATED.test(before) ? lastIndexOf(before, REQUIREMENT, 150, /\b(?:with|partner\w*|collaborat\w*|serv(?:e|es|ing)|work\w*)\b/i) : -1),
  (before) =>
    /\b(?:in|within)\s+(?:(?:one\s+or\s+more|any)\s+of\s+)?(?:the\s+)?$/i.test(before)
      ? lastIndexOf(before, /\b(?:must|shall)\s*:?\s*(?:\(\w{1,3}\)\s*)?be\s+(?:physically\s+)?located\s+in\b/gi, 300)
      : -1,
  (before) => indexOf(LIMITED_TO, before),
  (before) => indexOf(ONLY_TO, before),
  (before, _, after) =>
    /^[\s\w.'’&-]{0,60}?\bonly\b(?!\s+(?:if|when|after|until|as|because|one|a|the|to|for|be|in|at)\b)/i.test(after)
      ? indexOf(/\b(?:open|available)\s+to\s+(?:the\s+)?$/i, before)
      : -1,
  (before, _, after) => (/^\s*only\b(?!\s+(?:if|when|after|until|as|because)\b)/i.test(after) ? indexOf(/\b(?:in|within)\s+$|^\s*$|[-–—:|]\s*$/i, before) : -1),
  (before, _, after) =>
    /^[^.;]{0,60}?\b(?:(?:are|is)\s+eligible|may\s+apply)\b/i.test(after)
      ? indexOf(/\bonly\s+(?:the\s+)?(?:(?:[\w-]+\s+){0,4}(?:in|within|from)\s+)?$/i, before)
      : -1,
  (before) =>
    indexOf(
      /\bthe\s+following\s+(?:states|territories|jurisdictions|states\s+and\s+territories)\b[^.;:]{0,80}\b(?:are|is)\s+eligible\b[^.;:]{0,40}:\s*$|\beligib\w*[^.;:]{0,120}\bthe\s+following\s+(?:states|territories|jurisdictions)\s*:\s*$/i,
      before,
    ),
  (before, list) =>
    /^the\s+(?:state|commonwealth|territory)\s+of/i.test(list.text)
      ? indexOf(/\beligible\s+(?:applicants|entities|organizations|recipients)\s+(?:are|must\s+be)\b[^.;:]{0,150}\b(?:in|within|from)\s+$/i, before)
      : -1,
  (before, list) =>
    /^the\s+states?\s+of/i.test(list.text) ? indexOf(/\b(?:operate|establish|host|administer)\s+(?:an?|the)\s+[^.;,]{1,60}?\s+in\s+$/i, before) : -1,
  (before) =>
    indexOf(
      /\b(?:accept\w*|solicit\w*|invit\w*|request\w*|seek\w*)\s+(?:applications|proposals|statements\s+of\s+interest)\s+(?:for\s+(?:projects|activities)\s+)?(?:(?:located|based)\s+)?(?:in|within|from)\s+$/i,
      before,
    ),
];

const indexOf = (re: RegExp, text: string) => re.exec(text)?.index ?? -1;
/** Start of the last match of the global `re` within `window` characters of the end of `text`, unless `reject` matches from there. */
function lastIndexOf(text: string, re: RegExp, window: number, reject = /(?!)/): number {
  const offset = Math.max(0, text.length - window);
  const index = [...text.slice(offset).matchAll(re)].reduce((_last, m) => offset + m.index, -1);
  return index >= 0 && !reject.test(text.slice(index)) ? index : -1;
}

function stateLimitsIn(sentence: string, source: RestrictionSource, context: Context): TextRestriction[] {
  const limits: TextRestriction[] = [];
  for (const list of placeListsIn(sentence, context)) {
    const before = sentence.slice(Math.max(0, list.start - 300), list.start);
    const after = sentence.slice(list.end, list.end + 100);
    if (SOFT_AFTER.test(after)) continue;
    const restricts =
      STATE_RULES.some((rule) => {
        const cue = rule(before, list, after);
        const span = before.slice(cue);
        return cue >= 0 && !NEGATION.test(span) && !SOFT_SPAN.test(span) && !/\b(?:not|but)\s+(?:\w+\s+){0,2}$/i.test(before.slice(0, cue));
      }) ||
      (list.area?.fundingBody === true &&
        /^\s*(?:\(\w+\)\s*)?(?:is\s+|are\s+|will\s+)?(?:invit|solicit|request|seek|accept|announc)(?:es|s|ing)\b/i.test(after)) ||
      (source === 'title' && list.area !== undefined && /lands/i.test(list.text) && /\b(?:program|assistance|grants?)\b/i.test(sentence));
    if (restricts)
      limits.push({ field: 'states', states: US_STATE_CODES.filter((code) => list.states.has(code)), source, quote: quoteOf(sentence, list.start, list.end) });
  }
  // EDA posts its planning and technical-assistance NOFO once per regional office ("Seattle FY 2021 – FY 2023 EDA
  // Planning …"), each for its own states: in an EDA title the city names the office, not a site.
  const office = source === 'title' && context.namesEda ? EDA_OFFICE_TITLE.exec(sentence) : null;
  if (office)
    limits.push({ field: 'states', states: US_STATE_CODES.filter((code) => edaOfficeStates(office[1]!).includes(code)), source, quote: quoteOf(sentence) });
  return limits;
}

/** First match wins, so "tribal colleges" are academic and "not-for-profit" is not for-profit. */
const TYPE_RULES: Array<[RegExp, ApplicantType, string | null]> = [
  [/\b(?:institutions?\s+of\s+higher\s+(?:education|learning)|IHEs?|colleges?|universit(?:y|ies)|academic\s+institutions?)\b/i, 'academic', null],
  [/\bnon[-\s]?profits?\b|\bnot[-\s]for[-\s]profit\b|\b501\s*\(c\)\s*\(3\)|\bfaith[-\s]based\b|\bcommunity[-\s]based\s+organizations?\b/i, 'nonprofit', null],
  [/\bsmall\s+business(?:es|\s+concerns?)?\b|\bSBCs?\b/i, 'for_profit', 'small businesses'],
  [/\bfor[-\s]?profits?\b|\bcommercial\s+(?:organizations?|entities|firms)\b|\bcompan(?:y|ies)\b|\bfirms?\b/i, 'for_profit', null],
  [
    /\bfederally[-\s]recognized\s+(?:indian\s+|american\s+indian\s+)?(?:tribes?|tribal\s+(?:governments?|nations?))\b/i,
    'tribal',
    'federally recognized tribes',
  ],
  [/\btrib(?:es?|al\s+(?:governments?|nations?|organizations?|entities|consortia))\b/i, 'tribal', null],
  [
    /^(?:states?|state\s+(?:[\w&]+\s+){0,3}?(?:governments?|agenc(?:y|ies)|authorit(?:y|ies)|archives|courts?|departments?)|[\w\s]*\bdepartment\s+of\s+fish\s+&\s+game)$/i,
    'municipality',
    'state governments',
  ],
  [
    /\b(?:local\s+governments?|units?\s+of\s+(?:general\s+)?local\s+government|count(?:y|ies)|cit(?:y|ies)|municipal(?:ity|ities)|townships?|special\s+districts?|school\s+districts?|housing\s+authorit(?:y|ies)|courts?|territor(?:y|ies))\b/i,
    'municipality',
    null,
  ],
  [/^individuals?$/i, 'individual', null],
];
const MODIFIERS =
  /^(?:(?:public|private|state|local|tribal|non[-\s]?profit|for[-\s]?profit|small|national|regional|county|city|municipal|rural|urban|juvenile)(?:\s+|$))+/i;
const FILLER = /^(?:(?:the|a|an|another|other|any|all|those|these|such|eligible|qualified|designated|to|also|U\.S\.|domestic)\s+)+/i;
const TYPE_WORD =
  /\b(?:non-?profits?|for-?profits?|universit|colleges?|higher\s+education|tribes?|tribal|local\s+governments?|count(?:y|ies)|cit(?:y|ies)|municipal|individuals?|small\s+business)/i;
const QUALIFIER_WORD = String.raw`(?:that|which|who|whose|with|having|engaged|responsible|acting|located|based|in|on|for|as|serving|providing|currently)(?![\w-])`;
/** People apply as individuals, so "students at colleges" is not the type "academic". */
const PEOPLE =
  /\b(?:students?|faculty|researchers?|investigators?|scientists?|PIs?|staff|members?|employees|persons|people|youth|veterans|awardees|grantees|recipients)\b/i;
const QUALIFIER = new RegExp(String.raw`\s+${QUALIFIER_WORD}`, 'i');
const QUALIFIED_TAIL = new RegExp(String.raw`\s+${QUALIFIER_WORD}.*$`, 'i');
const QUALIFIER_FIRST = new RegExp(`^${QUALIFIER_WORD}`, 'i');

/** The applicant types a list of groups names, or null when a group has no type. */
function typesOf(phrase: string): { only: ApplicantType[]; detail: string | null } | null {
  let list = phrase.replace(/\([^()]{0,300}\)/g, ' ').replace(/[\s.,]+$/, '');
  // "… agencies engaged in research or in programs …": a qualifier naming no type goes whole, so its "or"s are not groups.
  const qualifier = QUALIFIER.exec(list);
  if (qualifier && !TYPE_WORD.test(list.slice(qualifier.index))) list = list.slice(0, qualifier.index);
  const parts = list
    .replace(/\b(fish|juvenile)\s+and\s+(game|wildlife|family)\b/gi, '$1 & $2')
    .split(/\s*(?:,|;|\/|\band\/or\b|\band\b|\bor\b|\bincluding\b|\bas\s+well\s+as\b)\s*/i);
  const [only, details] = [new Set<ApplicantType>(), new Set<string | null>()];
  for (const [i, raw] of parts.entries()) {
    let part = raw.trim().replace(FILLER, '');
    if (!part || QUALIFIER_FIRST.test(part)) continue;
    // "public and private institutions", "state and local governments": a lone modifier shares the next noun.
    if (MODIFIERS.exec(part)?.[0].length === part.length && parts[i + 1]) part = `${part} ${parts[i + 1]!.trim().replace(FILLER, '').replace(MODIFIERS, '')}`;
    // "state authority or agency": a bare noun shares the modifier before it.
    const previous = /^(?:state|local|tribal)\s+/i.exec(parts[i - 1]?.trim().replace(FILLER, '') ?? '');
    if (previous && /^(?:agenc(?:y|ies)|authorit(?:y|ies)|governments?|departments?)$/i.test(part)) part = previous[0] + part;
    part = part.replace(QUALIFIED_TAIL, '').trim();
    const rule = PEOPLE.test(part) ? undefined : TYPE_RULES.find(([re]) => re.test(part));
    if (!rule) return null;
    only.add(rule[1]);
    details.add(rule[2]);
  }
  return only.size === 0 ? null : { only: [...only].sort(), detail: details.size === 1 ? [...details][0]! : null };
}

const ONLY_RULES: RegExp[] = [
  /\b(?:applicants?|applications?|eligib\w*|proposers?|proposing\s+organizations|awards?|grants?|funding|assistance|participation|competition|program|opportunity|announcement|solicitation|BAA|NOFO|FOA)\b[^.;]{0,60}?\b(?:is|are|will\s+be)\s+(?:only\s+)?(?:limited|restricted)\s+(?:only\s+)?to\s+(?<np>[^;:]{1,300})/i,
  /\b(?:open|available|awarded|made|eligible)\s+(?:only|exclusively|solely)\s+to\s+(?<np>[^;:]{1,300})/i,
  /\bonly\s+(?:be\s+)?(?:open|available|awarded|made|given)\s+to\s+(?<np>[^;:]{1,300})/i,
  /\bonly\s+the\s+following\s+(?:entities|applicants|organizations)\s+(?:may|can|are\s+eligible\s+to)\s+apply\b[^:;]{0,120}:\s*(?<np>[^;:]{1,300})/i,
  /\b(?:open|available|awarded|made|provided|given|granted)\s+to\s+(?<np>[^;:()]{1,120}?)\s+only\b(?!\s+(?:if|when|after|for)\b)/i,
  /\bonly\s+(?<np>[^;:]{1,200}?)\s+(?:(?:are|is)\s+eligible|(?:may|can)\s+(?:apply|submit))\b/i,
  /^(?:eligib\w*(?:\s+applicants)?\s*:\s*)?(?<np>[^.;:]{1,80}?)\s+only\.?$/i,
];
const SBIR = /\b(?:SBIR|STTR|Small\s+Business\s+(?:Innovation\s+Research|Technology\s+Transfer)|[RU]4[1-4])\b/;
const SBC_INVITED =
  /\b(?:invites?|encourages?|solicits?)\s+(?:[\w()/-]+\s+){0,8}?(?:small\s+business\s+concerns|small\s+businesses|SBCs)\b[^.;]{0,60}?\bto\s+submit\b|\bvehicle\s+for\s+small\s+business\s+concerns\b|\bapplications\s+from\s+small\s+business(?:es|\s+concerns|\s+organizations)\b/i;
const TRACK = /\b(?:category|track|component|tier|phase|stage|part)\s+(?:\d+|[IVX]+|[A-D])\s*[:)–—-]/i;
/** Subjects that make a limit bind less than the whole listing. */
const NARROWER_SUBJECT =
  /\b(?:phase|track|sub-?(?:awards?|grants?|recipients?|contracts?)|partners?|participants?|students?|trainees?|fellows?|consultants?|supplement(?:s|al)?)\b/i;
const EXACT_TYPES: Array<[RegExp, ApplicantType]> = [
  [/^(?:individuals?|individual\s+(?:applicants|persons))$/i, 'individual'],
  [/^(?:non[-\s]?profit\s+(?:organizations?|entities)|non[-\s]?profits)$/i, 'nonprofit'],
  [
    /^(?:for[-\s]?profit\s+(?:organizations?|entities|entity|companies|businesses|firms|institutions|corporations)|for[-\s]?profits|commercial\s+(?:organizations|entities|firms))$/i,
    'for_profit',
  ],
  [/^(?:institutions\s+of\s+higher\s+education|IHEs|colleges\s+and\s+universities|universities)$/i, 'academic'],
  [/^(?:tribes|tribal\s+governments|indian\s+tribes)$/i, 'tribal'],
];

function applicantLimitsIn(sentence: string, source: RestrictionSource, afterTrack: boolean, context: Context): TextRestriction[] {
  const limits: TextRestriction[] = [];
  const scoped = afterTrack || /^(?:\w+,\s*)?(?:they|it|these|those|this)\s+(?:are|is|will|may)\b/i.test(sentence);
  for (const rule of scoped ? [] : ONLY_RULES) {
    const m = rule.exec(sentence);
    const lead = sentence.slice(0, m?.index);
    if (!m?.groups?.np || /\b(?:not|but)\s+(?:\w+\s+){0,2}$/i.test(lead) || NARROWER_SUBJECT.test(lead)) continue;
    const types = typesOf(m.groups.np);
    if (types) limits.push({ field: 'eligible_applicants', ...types, source, quote: quoteOf(sentence, m.index, m.index + m[0].length) });
  }
  // Titles drop the verb ("R6 Wildlife Restoration Grant Program STATE F&G AGENCIES ONLY"): the longest run of words
  // before "only" that names types only is the group.
  const title = source === 'title' ? /^(.*?)\s+only\b/i.exec(sentence) : null;
  const words = title
    ? title[1]!
        .split(/[-–—:(]/)
        .at(-1)!
        .trim()
        .split(/\s+/)
    : [];
  const group = words.map((_, i) => typesOf(words.slice(i).join(' '))).find(Boolean);
  if (group) limits.push({ field: 'eligible_applicants', ...group, source, quote: quoteOf(sentence) });
  const sbc = SBC_INVITED.exec(sentence);
  if (sbc && (context.sbir || SBIR.test(sentence)))
    limits.push({
      field: 'eligible_applicants',
      only: ['for_profit'],
      detail: 'small businesses',
      source,
      quote: quoteOf(sentence, sbc.index, sbc.index + sbc[0].length),
    });
  const ex =
    /^(?:(?:applications|proposals)\s+(?:from|submitted\s+by)\s+)?(?<np>[^.;:]{1,200}?)\s+(?:(?:are|is)\s+(?:not\s+eligible|ineligible)|(?:may|can)\s*not\s+apply)\b(?!\s+(?:activities|costs|expenses))(?<rest>.*)$/i.exec(
      sentence,
    );
  // "Individuals cannot apply for PECASE" is about one award inside the listing; "… as lead applicants", "unless …" about some roles.
  const partial =
    /^\s+(?:to\s+\w+\s+)?for\s+(?!this\b|these\b|funding\b|awards?\b|the\s+(?:program|award|grant|opportunity|competition)\b)|\b(?:as\s+(?:the\s+)?(?:lead|prime|primary)|but|however|unless|except)\b/i;
  if (ex?.groups && !partial.test(ex.groups.rest!)) {
    const excluded = new Set(
      ex.groups
        .np!.split(/\s*(?:,|;|\band\b|\bor\b)\s*/i)
        .flatMap((part) => EXACT_TYPES.find(([re]) => re.test(part.replace(/^(?:the|all)\s+/i, '')))?.[1] ?? []),
    );
    if (excluded.size > 0) limits.push({ field: 'excluded_applicants', excluded: [...excluded].sort(), source, quote: quoteOf(sentence, 0, ex[0].length) });
  }
  return limits;
}

const NSF_CATEGORIES: Array<[RegExp, ApplicantType]> = [
  [/\b(?:universities\s+and\s+colleges|institutions\s+of\s+higher\s+education|academic\s+institutions)\b/i, 'academic'],
  [/\bnon-?profit,?\s+non-?academic\s+organizations\b/i, 'nonprofit'],
  [/\bfor-?profit\s+organizations\b/i, 'for_profit'],
  [/\bstate\s+and\s+local\s+governments\b/i, 'municipality'],
  [/\btribal\s+(?:governments|nations)\b/i, 'tribal'],
  [/\bunaffiliated\s+individuals\b/i, 'individual'],
];
/** NSF's "*Organization Limit: Proposals may only be submitted by the following:" list, whose bullets span sentences. */
function nsfOrganizationLimit(field: string, source: RestrictionSource): TextRestriction[] {
  const segment = /\b(?:may|can)\s+only\s+be\s+submitted\s+by\s+the\s+following\s*:([^*]{0,3000})/i.exec(field);
  const only = NSF_CATEGORIES.filter(([re]) => segment && re.test(segment[1]!)).map(([, type]) => type);
  if (!segment || only.length === 0) return [];
  const start =
    sentencesOf(field)
      .filter((sentence) => sentence.start <= segment.index)
      .at(-1)?.start ?? 0;
  const sentence = field.slice(start, segment.index + segment[0].length);
  return [{ field: 'eligible_applicants', only: only.sort(), detail: null, source, quote: quoteOf(sentence, 0, 80) }];
}

const valuesOf = (r: TextRestriction): string[] => (r.field === 'states' ? r.states : r.field === 'eligible_applicants' ? r.only : r.excluded);
/** Duplicates go; a field whose restrictions share no value cannot all hold, so it goes whole. */
function consistent(found: TextRestriction[]): TextRestriction[] {
  const keys = found.map((r) => JSON.stringify([r.field, r.source, valuesOf(r), r.field === 'eligible_applicants' ? r.detail : null]));
  const unique = found.filter((_, i) => keys.indexOf(keys[i]!) === i);
  const shared = (field: string) =>
    unique
      .filter((r) => r.field === field)
      .map(valuesOf)
      .reduce((common, values) => common.filter((v) => values.includes(v)));
  return unique.filter((r) => r.field === 'excluded_applicants' || shared(r.field).length > 0);
}
