import { stemmer } from 'stemmer';
import { STOP_WORDS } from '../text';

/**
 * Key terms: the content words of a text, Porter-stemmed so "communities" meets "community".
 * Words every grant notice uses ("program", "eligible", "applicants") say nothing about a topic,
 * so they are dropped along with the search stop words.
 */
const GENERIC_WORDS = new Set([
  'also', 'activities', 'activity', 'agency', 'agencies', 'all', 'applicant', 'applicants', 'application', 'applications',
  'apply', 'award', 'awards', 'based', 'been', 'but', 'do', 'does', 'each', 'eligible', 'eligibility', 'federal',
  'fiscal', 'fy', 'including', 'include', 'includes', 'may', 'more', 'must', 'new', 'not', 'notice', 'nofo', 'other',
  'others', 'organization', 'organizations', 'organisation', 'organisations', 'program', 'programs', 'programme',
  'project', 'projects', 'proposal', 'proposals', 'provide', 'provides', 'providing', 'purpose', 'should', 'such',
  'support', 'supports', 'supporting', 'these', 'those', 'through', 'under', 'us', 'use', 'used', 'well', 'work',
  'year', 'years', 'help', 'helps', 'mission', 'serve', 'serves', 'serving', 'based', 'focus', 'focused', 'via',
  'so', 'if', 'than', 'then', 'they', 'them', 'there', 'would', 'could', 'one', 'two', 'three', 'within', 'across',
  'up', 'out', 'over', 'both', 'most', 'very', 'make', 'makes', 'need', 'needs', 'area', 'areas', 'who', 'where',
  'first', 'expand', 'expands', 'expanding', 'improve', 'improves', 'improving', 'increase', 'increasing', 'offer', 'offers',
  'run', 'runs', 'operate', 'operates', 'deliver', 'delivers', 'dedicated', 'committed', 'aim', 'aims', 'seek', 'seeks',
  'better', 'best', 'good', 'way', 'ways', 'share', 'shares', 'sharing', 'partner', 'partners', 'partnering', 'want', 'wants',
]);

export interface Token {
  stem: string;
  /** The word as written, lower-cased unless it is a name or an acronym ("Kansas", "HIV"). */
  word: string;
}

/**
 * Stemming is most of the cost of scoring 300 candidates; the vocabulary of a catalogue is small,
 * so each word is stemmed once per process (bounded, cleared when full).
 */
const STEM_MEMO_LIMIT = 200_000;
const stems = new Map<string, string>();

function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= STEM_MEMO_LIMIT) stems.clear();
    stem = stemmer(word);
    stems.set(word, stem);
  }
  return stem;
}

/** Capitals count as a name only away from the start of a sentence. */
function displayed(raw: string, text: string, at: number): string {
  if (raw.length > 1 && raw === raw.toUpperCase() && /\p{L}/u.test(raw)) return raw;
  if (raw[0] === raw[0]!.toLowerCase()) return raw;
  let i = at - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  const sentenceStart = i < 0 || '.!?:;'.includes(text[i]!);
  return sentenceStart ? raw.toLowerCase() : raw;
}

/** The key-term tokens of a text, in order. */
export function keyTokens(text: string): Token[] {
  const tokens: Token[] = [];
  const plain = text.normalize('NFKD').replace(/\p{M}/gu, '');
  for (const match of plain.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu)) {
    const raw = match[0].replace(/['’]s$/i, '');
    const word = raw.toLowerCase();
    if (word.length < 3 && !/^\d/.test(word)) continue;
    if (STOP_WORDS.has(word) || GENERIC_WORDS.has(word) || /^\d+$/.test(word)) continue;
    tokens.push({ stem: stemOf(word), word: displayed(raw, plain, match.index) });
  }
  return tokens;
}

export function stemSet(tokens: readonly Token[]): Set<string> {
  return new Set(tokens.map((t) => t.stem));
}

/** Adjacent stem pairs ("rural health"), for phrases. */
export function stemPairs(tokens: readonly Token[]): Set<string> {
  const pairs = new Set<string>();
  for (let i = 1; i < tokens.length; i++) pairs.add(`${tokens[i - 1]!.stem} ${tokens[i]!.stem}`);
  return pairs;
}

/** Whether the tokens contain the phrase's stems in a row. */
export function containsPhrase(tokens: readonly Token[], phrase: readonly Token[]): boolean {
  if (phrase.length === 0) return false;
  outer: for (let i = 0; i + phrase.length <= tokens.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (tokens[i + j]!.stem !== phrase[j]!.stem) continue outer;
    return true;
  }
  return false;
}

/**
 * How many of a set of documents (the scored candidates) use each stem, and its inverse document
 * frequency, so a term most of them share ("health" for a health mission) weighs less than one
 * few share.
 */
export function documentFrequencies(documents: readonly ReadonlySet<string>[]): { idf: (stem: string) => number; share: (stem: string) => number } {
  const counts = new Map<string, number>();
  for (const stems of documents) for (const stem of stems) counts.set(stem, (counts.get(stem) ?? 0) + 1);
  const n = documents.length;
  return {
    idf: (stem) => Math.log(1 + (n + 1) / ((counts.get(stem) ?? 0) + 0.5)),
    share: (stem) => (n === 0 ? 0 : (counts.get(stem) ?? 0) / n),
  };
}
