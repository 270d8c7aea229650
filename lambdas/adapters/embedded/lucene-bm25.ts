/**
 * BM25 as Lucene 9 scores it (OpenSearch's default similarity), so the embedded index ranks
 * keyword matches as the OpenSearch index does (DESIGN.md section 3: keyword search is BM25 as
 * Lucene runs it): k1 1.2 and b 0.75, IDF log(1 + (docCount - df + 0.5) / (df + 0.5)), field
 * lengths rounded as Lucene's one-byte norms round them (SmallFloat.intToByte4), and the
 * english analyzer's token counts (stop words are not counted).
 */

export const K1 = 1.2;
export const B = 0.75;

/** Lucene's english analyzer drops these (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), so they are not in a field's length. */
const ENGLISH_STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/** Words as Lucene's standard tokenizer cuts them, near enough: letters and digits, joined by an inner apostrophe or dot ("don't", "3.5"). */
const TOKEN = /[\p{L}\p{N}]+(?:['\u2019.][\p{L}\p{N}]+)*/gu;

/** How many tokens the english analyzer indexes of a text: a field's length in BM25. */
export function analysedLength(text: string): number {
  let count = 0;
  for (const [token] of text.toLowerCase().matchAll(TOKEN)) if (!ENGLISH_STOP_WORDS.has(token)) count++;
  return count;
}

// SmallFloat's 4-bit float encoding of field lengths: exact below 24, then 4 significant bits.
const NUM_FREE_VALUES = 24;

function longToInt4(i: number): number {
  const bits = 32 - Math.clz32(i);
  if (bits < 4) return i;
  const shift = bits - 4;
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** A field length as Lucene reads it back from its norm (byte4ToInt(intToByte4(length))). */
export function normLength(length: number): number {
  if (length < NUM_FREE_VALUES) return length;
  return NUM_FREE_VALUES + int4ToLong(longToInt4(length - NUM_FREE_VALUES));
}

export function idf(docCount: number, docFreq: number): number {
  return Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5));
}

/** A term's score in one field: weight (boost × IDF) saturated by its frequency, normalised by the field's length against the average. */
export function termScore(weight: number, frequency: number, length: number, averageLength: number): number {
  const normInverse = 1 / (K1 * (1 - B + (B * normLength(length)) / averageLength));
  return weight - weight / (1 + frequency * normInverse);
}
