import { FLOOR_RELEVANCE } from '../search/relevance';
import type { Grant } from '../records';
import { MATCH_SCORING } from './scoring-config';
import { containsPhrase, documentFrequencies, keyTokens, stemSet, type Token } from './topic-terms';

const TOPIC = MATCH_SCORING.topic;
/** At most this many shared terms are cited in a reason. */
const CITED_TERMS = 3;
/** A single word most candidates share says little about this grant, so it is not cited alone. */
const CITED_WORD_MAX_SHARE = 0.5;

export interface TopicFit {
  score: number;
  /** The embedding similarity, scaled from the floor (0) to the embedder's ceiling (1). */
  semantic: number;
  /** Share of the profile's key-term weight the grant shares, saturating (0 to 1). */
  overlap: number;
  /** The profile's words (or two-word phrases) the grant shares, most telling first, as the profile writes them. */
  sharedTerms: string[];
  /** The focus keywords the grant mentions, as given. */
  keywords: string[];
}

interface GrantTerms {
  /** Title and categories: what the grant is about. */
  head: Token[];
  body: Token[];
  stems: Set<string>;
  headStems: Set<string>;
}

function termsOfGrant(grant: Grant): GrantTerms {
  const head = keyTokens(`${grant.title} . ${grant.categories.join(' . ')}`);
  const body = keyTokens(grant.description.slice(0, TOPIC.descriptionChars));
  const headStems = stemSet(head);
  return { head, body, headStems, stems: new Set([...headStems, ...stemSet(body)]) };
}

interface Citation {
  text: string;
  stems: string[];
  weight: number;
}

/**
 * Scores the topic of each candidate for one profile. Built once per request, because a term's
 * weight is its rarity among the candidates: the terms every candidate shares with a health
 * mission ("health") tell them apart less than the ones few share ("telehealth").
 */
export class TopicScorer {
  private readonly profileTokens: Token[];
  /** Each profile stem with the word the profile used for it first. */
  private readonly profileWords = new Map<string, string>();
  private readonly keywordPhrases: { text: string; tokens: Token[] }[];
  private readonly terms = new Map<string, GrantTerms>();
  private readonly idf: (stem: string) => number;
  private readonly share: (stem: string) => number;
  private readonly profileMass: number;

  constructor(
    profileText: string,
    focusKeywords: readonly string[],
    candidates: readonly Grant[],
  ) {
    this.profileTokens = keyTokens(profileText);
    for (const token of this.profileTokens) if (!this.profileWords.has(token.stem)) this.profileWords.set(token.stem, token.word);
    this.keywordPhrases = focusKeywords.map((text) => ({ text, tokens: keyTokens(text) }));
    for (const grant of candidates) this.terms.set(grant.id, termsOfGrant(grant));
    ({ idf: this.idf, share: this.share } = documentFrequencies([...this.terms.values()].map((t) => t.stems)));
    this.profileMass = [...this.profileWords.keys()].reduce((sum, stem) => sum + this.idf(stem), 0);
  }

  /** The grant's topical fit, given its semantic relevance to the profile (0.5 at the embedder's floor, 1 at its upper reference). */
  fit(grant: Grant, relevance: number): TopicFit {
    const terms = this.terms.get(grant.id) ?? termsOfGrant(grant);
    const semantic = Math.min(1, Math.max(0, (relevance - FLOOR_RELEVANCE) / (1 - FLOOR_RELEVANCE)));

    let shared = 0;
    for (const stem of this.profileWords.keys()) {
      if (terms.stems.has(stem)) shared += this.idf(stem) * (terms.headStems.has(stem) ? 1 : TOPIC.descriptionOnlyWeight);
    }
    // Saturating: sharing a quarter of the profile's weight is already a strong overlap (0.63).
    const overlap = this.profileMass > 0 ? 1 - Math.exp(-shared / (0.25 * this.profileMass)) : 0;

    const keywords = this.keywordPhrases
      .filter(({ tokens }) => tokens.length > 0 && (containsPhrase(terms.head, tokens) || containsPhrase(terms.body, tokens)))
      .map(({ text }) => text);
    const boost = Math.min(TOPIC.focusKeywordBoostCap, TOPIC.focusKeywordBoost * keywords.length);
    const score = Math.min(1, TOPIC.semanticShare * semantic + (1 - TOPIC.semanticShare) * overlap + boost);
    return { score, semantic, overlap, sharedTerms: this.citations(terms, keywords), keywords };
  }

  /** Two-word phrases of the profile the grant also uses, then single words, by weight, none repeating a keyword. */
  private citations(terms: GrantTerms, keywords: readonly string[]): string[] {
    const keywordStems = new Set(this.keywordPhrases.filter(({ text }) => keywords.includes(text)).flatMap(({ tokens }) => tokens.map((t) => t.stem)));
    const weightOf = (stem: string) => this.idf(stem) * (terms.headStems.has(stem) ? 1 : TOPIC.descriptionOnlyWeight);
    const options: Citation[] = [];
    const seenPairs = new Set<string>();
    for (let i = 1; i < this.profileTokens.length; i++) {
      const pair = [this.profileTokens[i - 1]!, this.profileTokens[i]!];
      const key = `${pair[0]!.stem} ${pair[1]!.stem}`;
      if (pair[0]!.stem === pair[1]!.stem || seenPairs.has(key)) continue;
      seenPairs.add(key);
      if (containsPhrase(terms.head, pair) || containsPhrase(terms.body, pair)) {
        options.push({ text: `${pair[0]!.word} ${pair[1]!.word}`, stems: [pair[0]!.stem, pair[1]!.stem], weight: weightOf(pair[0]!.stem) + weightOf(pair[1]!.stem) });
      }
    }
    for (const [stem, word] of this.profileWords) {
      if (terms.stems.has(stem) && word.length > 3 && this.share(stem) <= CITED_WORD_MAX_SHARE) options.push({ text: word, stems: [stem], weight: weightOf(stem) });
    }
    options.sort((a, b) => b.weight - a.weight || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    const used = new Set(keywordStems);
    const cited: string[] = [];
    for (const option of options) {
      if (option.stems.some((stem) => used.has(stem))) continue;
      cited.push(option.text);
      for (const stem of option.stems) used.add(stem);
      if (cited.length === CITED_TERMS) break;
    }
    return cited;
  }
}
