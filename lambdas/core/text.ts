/**
 * Keyword-query tokenisation shared by the search adapters: the words that carry meaning, in
 * order, lower-cased. English stop words and words every record of this catalogue would match
 * ("grant", "funding") are dropped, so "grants for police equipment" means police + equipment.
 */
export const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'has',
  'have',
  'in',
  'into',
  'is',
  'it',
  'its',
  'of',
  'on',
  'or',
  'that',
  'the',
  'their',
  'this',
  'to',
  'was',
  'were',
  'which',
  'will',
  'with',
  'about',
  'any',
  'can',
  'our',
  'we',
  'you',
  'your',
  'i',
  'me',
  'my',
  'who',
  'what',
  'how',
  // The rest of Lucene's English stop set, so OpenSearch's analyzer drops no term we count.
  'but',
  'if',
  'no',
  'not',
  'such',
  'then',
  'there',
  'these',
  'they',
  'grant',
  'grants',
  'funding',
  'fund',
  'funds',
  'opportunity',
  'opportunities',
]);

export const MAX_QUERY_TERMS = 32;

export function keywordTerms(text: string): string[] {
  // A possessive's "s" is no word: OpenSearch's english analyzer drops it from documents.
  const words =
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/['\u2019]s\b/gu, '')
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms: string[] = [];
  for (const word of words) {
    if (STOP_WORDS.has(word) || terms.includes(word)) continue;
    terms.push(word);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/** "a", "a and b", "a, b and c". */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
