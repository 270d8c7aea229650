/**
 * Words that say nothing about a topic: every grant notice uses them ("program", "eligible",
 * "applicants"), or they are verbs and modifiers of any mission ("using", "builds", "high",
 * "delivering"). They are neither scored nor cited; a reason that "shares your focus on using"
 * would be true and useless. Verbs are listed in each form, since keys undo only the "-s" ending.
 */
const NOTICE_WORDS = [
  'also', 'activity', 'agency', 'all', 'applicant', 'application', 'apply', 'award', 'based', 'been', 'do', 'does',
  'each', 'eligible', 'eligibility', 'federal', 'fiscal', 'fy', 'including', 'include', 'may', 'more', 'must', 'new',
  'notice', 'nofo', 'other', 'organization', 'organisation', 'program', 'programme', 'project', 'proposal', 'purpose',
  'should', 'such', 'these', 'those', 'through', 'under', 'us', 'well', 'year', 'mission', 'via', 'so', 'than',
  'them', 'would', 'could', 'one', 'two', 'three', 'within', 'across', 'up', 'out', 'over', 'both', 'most', 'very',
  'area', 'where', 'first', 'way', 'want', 'part', 'type', 'kind', 'level', 'number', 'range', 'order', 'end',
  'many', 'much', 'some', 'every', 'own', 'same', 'like', 'just', 'only', 'even', 'still', 'often', 'while', 'when',
  'because', 'since', 'during', 'before', 'after', 'between', 'among', 'per', 'etc', 'e.g', 'i.e', 'due', 'date',
];

const VERBS = [
  'use', 'support', 'provide', 'serve', 'help', 'focus', 'need', 'make', 'expand', 'improve', 'increase', 'offer',
  'run', 'operate', 'deliver', 'aim', 'seek', 'share', 'partner', 'build', 'create', 'develop', 'bring', 'take',
  'give', 'get', 'keep', 'meet', 'know', 'work', 'include', 'address', 'advance', 'enable', 'ensure', 'establish',
  'promote', 'strengthen', 'enhance', 'conduct', 'allow', 'become', 'begin', 'continue', 'hold', 'follow',
  'grow', 'reach', 'assist', 'pursue', 'receive', 'request', 'submit', 'fund', 'seem', 'try', 'call',
  'identify', 'achieve', 'connect', 'engage', 'empower', 'foster', 'dedicate', 'commit',
];

const IRREGULAR_FORMS = [
  'built', 'made', 'ran', 'led', 'held', 'grew', 'grown', 'brought', 'took', 'taken', 'gave', 'given', 'got', 'gotten',
  'kept', 'met', 'knew', 'known', 'began', 'begun', 'became', 'sought', 'done', 'did',
];

const MODIFIERS = [
  'better', 'best', 'good', 'high', 'higher', 'low', 'lower', 'long', 'longer', 'short', 'large', 'small', 'big',
  'early', 'late', 'key', 'major', 'critical', 'important', 'innovative', 'novel', 'effective', 'current', 'future',
  'various', 'several', 'specific', 'general', 'different', 'available', 'possible', 'additional', 'related',
  'approximately', 'especially', 'particularly', 'primarily', 'dedicated', 'committed', 'focused', 'whole',
];

/** A verb in its "-s", "-ing" and "-ed" forms: "use", "uses", "using", "used". */
function forms(verb: string): string[] {
  const stem = verb.endsWith('e') ? verb.slice(0, -1) : verb;
  const doubled = /[^aeiou][aeiou][bdgmnprt]$/.test(verb) && verb.length <= 4 ? verb + verb.slice(-1) : verb;
  const past = verb.endsWith('y') && !/[aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ied` : verb.endsWith('e') ? `${verb}d` : `${doubled}ed`;
  const ing = verb.endsWith('e') && !verb.endsWith('ee') ? `${stem}ing` : `${doubled}ing`;
  return [verb, ing, past];
}

/** Keyed as topic-terms keys words (singular), so "activities" is "activity". */
export const GENERIC_WORDS: ReadonlySet<string> = new Set([...NOTICE_WORDS, ...VERBS.flatMap(forms), ...IRREGULAR_FORMS, ...MODIFIERS]);

/**
 * Words that say who applies, not what the work is: a tribe's casino and a tribal research
 * program share "tribal" and nothing else. They rank (a tribal health mission is nearer tribal
 * health grants) but are no evidence of a topic fit (topic-fit.ts), which the cut-off reads.
 */
export const APPLICANT_WORDS: ReadonlySet<string> = new Set([
  'tribe', 'tribal', 'native', 'indian', 'indigenous', 'university', 'college', 'nonprofit', 'non-profit', 'charity',
  'business', 'company', 'startup', 'firm', 'entrepreneur', 'city', 'county', 'municipal', 'municipality', 'government',
  'institution', 'department', 'council', 'individual',
]);
