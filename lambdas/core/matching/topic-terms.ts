import { STOP_WORDS } from '../text';
import { GENERIC_WORDS } from './generic-words';

/**
 * The words of a text as matching reads them. A reason may only say that a grant "shares your
 * focus on" a term when the same word is in both texts, so terms are compared by an inflection
 * key, not a stem: "communities" meets "community", but "communication" does not (Porter gives
 * both "commun"), nor "institutional" "institute", "designated" "design" or "resides"
 * "residencies". Only the inflections that never change a word's meaning are undone: the plural
 * and third-person "-s", "-es" and "-ies". A hyphenated compound ("long-term", "after-school",
 * "state-of-the-art") is one term, so none of its parts is ever read as a word on its own.
 */

export interface Word {
  /** Inflection key: lower case, plural and third-person endings undone ("clinics" -> "clinic"). */
  key: string;
  /** As written. */
  raw: string;
  /** Joined by a hyphen to the next word: part of a compound. */
  joinedToNext: boolean;
  /** Opens the text or a sentence (so its capital says nothing about a name). */
  sentenceStart: boolean;
  /** Only spaces separate it from the word before: the two can be read as one phrase ("rural health", not "trials, studies"). */
  followsDirectly: boolean;
}

export interface Token {
  /** The inflection key; a compound's keys joined by "-". */
  key: string;
  /** The term as the text writes it, lower-cased unless it is a name or an acronym ("Kansas", "HIV"). */
  word: string;
  /** Exactly as written. */
  raw: string;
  /** The index of its first and last word in the text's words. */
  start: number;
  end: number;
  /** All capitals, two letters or more ("HIV", "STEM"). */
  acronym: boolean;
  /** Capitalised away from the start of a sentence: part of a name ("Standing Rock", "Kansas"). */
  name: boolean;
}

/** Tokens i and i + 1 are next to each other, with no word or punctuation between them. */
export function adjacent(terms: TextTerms, i: number): boolean {
  const [a, b] = [terms.tokens[i]!, terms.tokens[i + 1]!];
  return a.end + 1 === b.start && terms.words[b.start]!.followsDirectly;
}

export interface TextTerms {
  words: Word[];
  tokens: Token[];
}

/** Endings whose "-es" is part of the plural ("churches", "boxes", "classes"); other "-es" plurals lose only the "s" ("services"). */
const ES_PLURAL = /(?:ch|sh|x|ss|z)es$/;
/** Singular words that end in "s" ("business", "status", "analysis", "campus", "physics"). */
const SINGULAR_S =
  /(?:ss|us|is|ous|ws|(?:phys|econom|mathemat|eth|polit|statist|om|informat|logist|robot|athlet|linguist|electron|acoust|opt|mechan|dynam|analyt|forens|naut|iatr|ped|stetr|therapeut|graph|bion)ics)$/;
/** Plurals of Latin "-us" words, which keep their "s" ("campuses" -> "campus"). */
const US_PLURAL = /(?:campus|virus|focus|bonus|status|census|consensus|syllabus|prospectus|corpus|apparatus|stimulus|nexus|fetus|sinus|surplus|genus|bus)es$/;

/** "communities" -> "community", "clinics" -> "clinic", "churches" -> "church"; anything else as it is. */
function inflectionKey(word: string): string {
  const lower = word.toLowerCase();
  // Names keep their "s": "Kansas", "Texas", "Atlas".
  if (word[0] !== lower[0] && lower.endsWith('as')) return lower;
  if (lower.length <= 3 || !lower.endsWith('s') || SINGULAR_S.test(lower)) return lower;
  if (US_PLURAL.test(lower)) return lower.slice(0, -2);
  if (lower.endsWith('ies') && lower.length > 4) return `${lower.slice(0, -3)}y`;
  if (ES_PLURAL.test(lower)) return lower.slice(0, -2);
  return lower.slice(0, -1);
}

const KEY_MEMO_LIMIT = 200_000;
const keys = new Map<string, string>();

/** Keys are most of the cost of scoring 300 candidates; a catalogue's vocabulary is small, so each word is keyed once per process. */
function keyOf(word: string): string {
  let key = keys.get(word);
  if (key === undefined) {
    if (keys.size >= KEY_MEMO_LIMIT) keys.clear();
    key = inflectionKey(word);
    keys.set(word, key);
  }
  return key;
}

const WORD = /[\p{L}\p{N}]+(?:['’]s\b)?/gu;
const SENTENCE_BREAK = /[.!?:;•\n]/;

/** Every word of a text, with whether a hyphen joins it to the next and whether it opens a sentence. */
export function wordsOf(text: string): Word[] {
  const plain = text.normalize('NFKD').replace(/\p{M}/gu, '');
  const words: Word[] = [];
  let lastEnd = 0;
  for (const match of plain.matchAll(WORD)) {
    const raw = match[0].replace(/['’]s$/i, '');
    const endAt = match.index + match[0].length;
    const after = plain.charCodeAt(endAt);
    // "long-term", not "2020 - 2024" or "health -": a hyphen between two word characters.
    const joinedToNext = (after === 45 || after === 8209) && /[\p{L}\p{N}]/u.test(plain.charAt(endAt + 1));
    const gap = plain.slice(lastEnd, match.index);
    const sentenceStart = words.length === 0 || SENTENCE_BREAK.test(gap);
    words.push({ key: keyOf(raw), raw, joinedToNext, sentenceStart, followsDirectly: words.length > 0 && /^[ \t]+$/.test(gap) });
    lastEnd = endAt;
  }
  return words;
}

function isAcronym(raw: string): boolean {
  return raw.length > 1 && raw === raw.toUpperCase() && /\p{L}/u.test(raw);
}

function isContent(key: string): boolean {
  return !STOP_WORDS.has(key) && !GENERIC_WORDS.has(key) && !/^\d+$/.test(key) && (key.length >= 3 || /^\d/.test(key));
}

/** The words and the key terms (content words and whole compounds, in order) of a text. */
export function termsOf(text: string): TextTerms {
  const words = wordsOf(text);
  const tokens: Token[] = [];
  // An all-capitals text ("CONTAMINATED ALASKA NATIVE CLAIMS…") says nothing about names or acronyms.
  const long = words.filter((w) => w.raw.length >= 4 && /\p{L}/u.test(w.raw));
  const shouting = long.length > 0 && long.filter((w) => w.raw === w.raw.toUpperCase()).length > long.length / 2;
  for (let i = 0; i < words.length; i++) {
    let end = i;
    while (words[end]!.joinedToNext && end + 1 < words.length) end++;
    const parts = words.slice(i, end + 1);
    const first = parts[0]!;
    const acronym = !shouting && parts.length === 1 && isAcronym(first.raw);
    const name = !shouting && !acronym && first.raw[0] !== first.raw[0]!.toLowerCase() && !first.sentenceStart;
    const key = parts.map((w) => w.key).join('-');
    // A compound counts as one term when it has a content word ("long-term", "after-school"), never as its parts.
    if (parts.some((w) => isContent(w.key))) {
      const raw = parts.map((w) => w.raw).join('-');
      tokens.push({ key, word: acronym || name ? raw : raw.toLowerCase(), raw, start: i, end, acronym, name });
    }
    i = end;
  }
  return { words, tokens };
}

export function keySet(tokens: readonly Token[]): Set<string> {
  return new Set(tokens.map((t) => t.key));
}

/**
 * Whether the words contain the phrase's keys in a row (so "two-year college" needs "two", "year"
 * and "college" in that order), and not as part of a longer compound: "medication-assisted" does
 * not contain "medication".
 */
export function containsWords(words: readonly Word[], keysInOrder: readonly string[]): boolean {
  if (keysInOrder.length === 0) return false;
  outer: for (let i = 0; i + keysInOrder.length <= words.length; i++) {
    for (let j = 0; j < keysInOrder.length; j++) if (words[i + j]!.key !== keysInOrder[j]) continue outer;
    if ((i > 0 && words[i - 1]!.joinedToNext) || words[i + keysInOrder.length - 1]!.joinedToNext) continue;
    return true;
  }
  return false;
}

/**
 * How many of a set of documents (the scored candidates) use each key, and its inverse document
 * frequency, so a term most of them share ("health" for a health mission) weighs less than one
 * few share.
 */
export function documentFrequencies(
  documents: readonly ReadonlySet<string>[],
  population = documents.length,
): { idf: (key: string) => number; share: (key: string) => number } {
  const counts = new Map<string, number>();
  for (const set of documents) for (const key of set) counts.set(key, (counts.get(key) ?? 0) + 1);
  const n = documents.length;
  // Rarity is measured against every eligible grant near the mission, not only those scored: in a
  // large catalogue the scored window crowds around the mission's topic, and a word all of it
  // shares ("transit" for a transit mission) is still rare among the grants the window was cut from.
  const N = Math.max(n, population);
  return {
    idf: (key) => Math.log(1 + (N + 1) / ((counts.get(key) ?? 0) + 0.5)),
    share: (key) => (n === 0 ? 0 : (counts.get(key) ?? 0) / n),
  };
}
