import type { Grant } from '../records';
import { FLOOR_RELEVANCE } from '../search/relevance';
import { APPLICANT_WORDS } from './generic-words';
import { MATCH_SCORING } from './scoring-config';
import { adjacent, containsWords, documentFrequencies, keySet, type TextTerms, type Token, termsOf, wordsOf } from './topic-terms';

const TOPIC = MATCH_SCORING.topic;
/** At most this many shared terms are cited in a reason. */
const CITED_TERMS = 3;
/** A single word most candidates share says little about this grant, so it is not cited alone. */
const CITED_WORD_MAX_SHARE = 0.5;

/** A candidate's topic score, with what it was computed from; `TopicScorer.explain` adds the terms a reason cites. */
export interface TopicScore {
  score: number;
  /** The embedding similarity, scaled from the candidate floor (0) to the embedder's upper reference (1). */
  semantic: number;
  /**
   * BM25 of the profile's key terms (mission, sector and focus keywords) in the grant, as a share
   * of the most any grant could score: every term, saturated (0 to 1). Words that only say who
   * applies ("tribal", "university": APPLICANT_WORDS) are left out: they are no evidence of a topic.
   */
  lexical: number;
  /** The focus keywords the grant mentions, as given. */
  keywords: string[];
  /**
   * How well both signals agree that the grant is on topic: the lesser of `semantic` and
   * `lexical` read against lexicalAtPar. The cut-off reads this, not the score, because a grant
   * close in meaning that shares no telling word (a tribal research grant for a tribe's casino
   * hotel), or one sharing words in another sense, is what a profile with no real fit gets.
   */
  evidence: number;
}

export interface TopicFit extends TopicScore {
  /** The profile's words (or two-word phrases) the grant shares, most telling first, in the grant's own words. */
  sharedTerms: string[];
}

interface GrantTerms {
  /** Title and categories: what the grant is about. */
  head: TextTerms;
  body: TextTerms;
  keys: Set<string>;
  headKeys: Set<string>;
  /** How often each key occurs in the title, categories and description read. */
  frequency: Map<string, number>;
  length: number;
}

function termsOfGrant(grant: Grant): GrantTerms {
  const head = termsOf(`${grant.title} . ${grant.categories.join(' . ')}`);
  const body = termsOf(grant.description.slice(0, TOPIC.descriptionChars));
  const headKeys = keySet(head.tokens);
  const frequency = new Map<string, number>();
  for (const token of [...head.tokens, ...body.tokens]) frequency.set(token.key, (frequency.get(token.key) ?? 0) + 1);
  return { head, body, headKeys, keys: new Set([...headKeys, ...keySet(body.tokens)]), frequency, length: head.tokens.length + body.tokens.length };
}

/** Okapi BM25's term-frequency saturation and length normalisation, at Lucene's defaults. */
const BM25 = { k1: 1.2, b: 0.75 } as const;

/** A grant's BM25 for the profile's key terms: all of them (ranking), and without the applicant words (evidence). */
interface Bm25 {
  all: number;
  topic: number;
}

interface Citation {
  text: string;
  keys: string[];
  weight: number;
}

/** A focus keyword as matching reads it: every word in order, and, for an acronym ("STEM"), its capitals. */
interface KeywordPhrase {
  text: string;
  keys: string[];
  acronym: string | null;
}

function keywordPhraseOf(text: string): KeywordPhrase {
  const words = wordsOf(text);
  const only = words.length === 1 ? words[0]!.raw : null;
  return { text, keys: words.map((w) => w.key), acronym: only !== null && only.length > 1 && only === only.toUpperCase() && /\p{L}/u.test(only) ? only : null };
}

function mentions(terms: TextTerms, phrase: KeywordPhrase): boolean {
  if (phrase.acronym !== null) return terms.words.some((w) => w.raw === phrase.acronym);
  return containsWords(terms.words, phrase.keys);
}

/**
 * Whether a grant's token is the profile's word in the same sense: an acronym only as that
 * acronym ("STEM", not "stem cells"); a name only capitalised ("Standing Rock", not "standing");
 * a common word anywhere but as part of a name in running text (a title's capitals are its style).
 */
function sameSense(grantToken: Token, profileToken: Token, inTitle: boolean): boolean {
  if (grantToken.key !== profileToken.key) return false;
  if (profileToken.acronym) return grantToken.raw === profileToken.raw;
  if (grantToken.acronym) return false;
  if (profileToken.name) return grantToken.raw[0] !== grantToken.raw[0]!.toLowerCase();
  return inTitle || !grantToken.name;
}

/**
 * The grant's own words for a profile term (a word, or two in a row), title first; null when it
 * does not use them, or only in another sense (sameSense).
 */
function grantWordsFor(terms: GrantTerms, wanted: readonly Token[]): string | null {
  for (const [text, inTitle] of [
    [terms.head, true],
    [terms.body, false],
  ] as const) {
    const tokens = text.tokens;
    for (let i = 0; i + wanted.length <= tokens.length; i++) {
      let same = true;
      for (let j = 0; j < wanted.length && same; j++) same = sameSense(tokens[i + j]!, wanted[j]!, inTitle) && (j === 0 || adjacent(text, i + j - 1));
      if (same)
        return tokens
          .slice(i, i + wanted.length)
          .map((t, j) => (wanted[j]!.acronym || wanted[j]!.name ? t.raw : t.raw.toLowerCase()))
          .join(' ');
    }
  }
  return null;
}

/** A single word worth citing: four letters or more, or an acronym ("HIV"). */
const citableWord = (token: Token) => token.acronym || token.key.replace(/-/g, '').length >= 4;

/**
 * Scores the topic of each candidate for one profile. Built once per request, because a term's
 * weight is its rarity among the candidates: the terms every candidate shares with a health
 * mission ("health") tell them apart less than the ones few share ("telehealth").
 */
export class TopicScorer {
  private readonly profile: TextTerms;
  /** Each profile key with its first token. */
  private readonly profileTerms = new Map<string, Token>();
  private readonly keywordPhrases: KeywordPhrase[];
  private readonly terms = new Map<string, GrantTerms>();
  private readonly idf: (key: string) => number;
  private readonly share: (key: string) => number;
  /** The keys lexical matching scores: the profile's and its focus keywords'. */
  private readonly lexicalKeys: string[];
  /** BM25 of a grant holding every lexical key but the applicant words at saturation: what `lexical` is a share of. */
  private readonly lexicalCeiling: number;
  private readonly averageLength: number;
  private readonly bm25 = new Map<string, Bm25>();
  private readonly bestBm25: number;

  /** `population`: how many eligible grants the candidates were the nearest of (the index's total), for term rarity. */
  constructor(profileText: string, focusKeywords: readonly string[], candidates: readonly Grant[], population = candidates.length) {
    this.profile = termsOf(profileText);
    for (const token of this.profile.tokens) if (!this.profileTerms.has(token.key)) this.profileTerms.set(token.key, token);
    this.keywordPhrases = focusKeywords.map(keywordPhraseOf);
    for (const grant of candidates) this.terms.set(grant.id, termsOfGrant(grant));
    const scored = [...this.terms.values()];
    ({ idf: this.idf, share: this.share } = documentFrequencies(
      scored.map((t) => t.keys),
      population,
    ));
    this.lexicalKeys = [...new Set([...this.profileTerms.keys(), ...this.keywordPhrases.flatMap(({ keys }) => keys)])];
    this.lexicalCeiling = this.lexicalKeys.reduce((sum, key) => sum + (APPLICANT_WORDS.has(key) ? 0 : this.idf(key) * (BM25.k1 + 1)), 0);
    this.averageLength = scored.length === 0 ? 1 : Math.max(1, scored.reduce((sum, t) => sum + t.length, 0) / scored.length);
    for (const [id, terms] of this.terms) this.bm25.set(id, this.bm25Of(terms));
    this.bestBm25 = Math.max(0, ...[...this.bm25.values()].map(({ all }) => all));
  }

  private bm25Of(terms: GrantTerms): Bm25 {
    const norm = BM25.k1 * (1 - BM25.b + BM25.b * (terms.length / this.averageLength));
    const score = { all: 0, topic: 0 };
    for (const key of this.lexicalKeys) {
      const f = terms.frequency.get(key);
      if (f === undefined) continue;
      const part = (this.idf(key) * f * (BM25.k1 + 1)) / (f + norm);
      score.all += part;
      if (!APPLICANT_WORDS.has(key)) score.topic += part;
    }
    return score;
  }

  /** The grant's topical fit, given its semantic relevance to the profile (0.5 at the candidate floor, 1 at the upper reference). */
  fit(grant: Grant, relevance: number): TopicScore {
    const terms = this.terms.get(grant.id) ?? termsOfGrant(grant);
    const semantic = Math.min(1, Math.max(0, (relevance - FLOOR_RELEVANCE) / (1 - FLOOR_RELEVANCE)));

    const bm25 = this.bm25.get(grant.id) ?? this.bm25Of(terms);
    const lexical = this.lexicalCeiling > 0 ? Math.min(1, bm25.topic / this.lexicalCeiling) : 0;
    // Ranked as hybrid search ranks: BM25 against the best of the candidates (lambdas/core/search/fusion.ts).
    const lexicalRank = this.bestBm25 > 0 ? Math.min(1, bm25.all / this.bestBm25) : 0;

    const keywords = this.keywordPhrases.filter((phrase) => mentions(terms.head, phrase) || mentions(terms.body, phrase)).map(({ text }) => text);
    const boost = Math.min(TOPIC.focusKeywordBoostCap, TOPIC.focusKeywordBoost * keywords.length);
    const score = Math.min(1, TOPIC.semanticShare * semantic + (1 - TOPIC.semanticShare) * lexicalRank + boost);
    const evidence = Math.min(semantic, lexical / MATCH_SCORING.cutoff.lexicalAtPar);
    return { score, semantic, lexical, keywords, evidence };
  }

  /**
   * The score with the terms its reason cites. Finding a term in the grant's own words reads its
   * text term by term, so it is done only for the matches returned, not for every candidate.
   */
  explain(grant: Grant, score: TopicScore): TopicFit {
    return { ...score, sharedTerms: this.citations(this.terms.get(grant.id) ?? termsOfGrant(grant), score.keywords) };
  }

  /**
   * Two-word phrases of the profile the grant also writes, then single words, by weight, none
   * repeating a keyword; each cited in the grant's own words, so every citation is a phrase both
   * texts contain.
   */
  private citations(terms: GrantTerms, keywords: readonly string[]): string[] {
    const keywordKeys = new Set(this.keywordPhrases.filter(({ text }) => keywords.includes(text)).flatMap(({ keys }) => keys));
    const weightOf = (key: string) => this.idf(key) * (terms.headKeys.has(key) ? 1 : TOPIC.citedDescriptionWeight);
    const options: Citation[] = [];
    const seenPairs = new Set<string>();
    const tokens = this.profile.tokens;
    for (let i = 0; i + 1 < tokens.length; i++) {
      const pair = [tokens[i]!, tokens[i + 1]!];
      const key = `${pair[0]!.key} ${pair[1]!.key}`;
      if (!adjacent(this.profile, i) || pair[0]!.key === pair[1]!.key || seenPairs.has(key) || !pair.some(citableWord)) continue;
      seenPairs.add(key);
      if (!terms.keys.has(pair[0]!.key) || !terms.keys.has(pair[1]!.key)) continue;
      const text = grantWordsFor(terms, pair);
      if (text !== null) options.push({ text, keys: [pair[0]!.key, pair[1]!.key], weight: weightOf(pair[0]!.key) + weightOf(pair[1]!.key) });
    }
    for (const [i, token] of tokens.entries()) {
      if (this.profileTerms.get(token.key) !== token || !terms.keys.has(token.key) || !citableWord(token) || this.share(token.key) > CITED_WORD_MAX_SHARE)
        continue;
      // A word of a longer name ("Standing" of "Standing Rock") is cited only with the rest of it.
      if (
        token.name &&
        ((i > 0 && tokens[i - 1]!.name && adjacent(this.profile, i - 1)) || (i + 1 < tokens.length && tokens[i + 1]!.name && adjacent(this.profile, i)))
      )
        continue;
      const text = grantWordsFor(terms, [token]);
      if (text !== null) options.push({ text, keys: [token.key], weight: weightOf(token.key) });
    }
    options.sort((a, b) => b.weight - a.weight || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    const used = new Set(keywordKeys);
    const cited: string[] = [];
    for (const option of options) {
      if (option.keys.some((key) => used.has(key))) continue;
      cited.push(option.text);
      for (const key of option.keys) used.add(key);
      if (cited.length === CITED_TERMS) break;
    }
    return cited;
  }
}
