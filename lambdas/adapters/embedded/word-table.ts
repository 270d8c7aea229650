/**
 * Finds a vocabulary's words in text without cutting the text into strings. Matching a regular
 * expression and looking each token up in a Map allocates and hashes a string per word, which was
 * two thirds of the time it took to embed a record; this scans character codes once, hashing as
 * it goes, over an open-addressing table of the words' characters.
 *
 * Words are what the wink vocabulary holds: runs of a-z and 0-9 joined by inner hyphens
 * ("non-profit", "k-12"). Any other letter or digit is part of a word too, one that is never
 * found; every other character separates words.
 */
export class WordTable {
  /** Row + 1 of the word hashed to each slot; 0 for an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Every word's characters, back to back: row r spans charStarts[r] to charStarts[r + 1]. */
  private readonly chars: Uint16Array;
  private readonly charStarts: Int32Array;

  /** Row i is words[i]; words with characters a text word cannot have (punctuation) are left out. */
  constructor(words: readonly string[]) {
    this.charStarts = new Int32Array(words.length + 1);
    let length = 0;
    words.forEach((word, row) => {
      this.charStarts[row] = length;
      length += word.length;
    });
    this.charStarts[words.length] = length;
    this.chars = new Uint16Array(length);
    // Twice as many slots as words keeps probe sequences short.
    const size = 2 ** Math.ceil(Math.log2(Math.max(2, words.length * 2)));
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    words.forEach((word, row) => {
      for (let i = 0; i < word.length; i++) this.chars[this.charStarts[row]! + i] = word.charCodeAt(i);
      if (!VOCABULARY_WORD.test(word)) return;
      let slot = hashOf(word, 0, word.length) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = row + 1;
    });
  }

  /** The row of one word, or -1. */
  rowOf(word: string): number {
    return this.find(word, 0, word.length, hashOf(word, 0, word.length));
  }

  /**
   * The rows of the known words of a lower-cased text, in order, repeats included. A hyphenated
   * word the vocabulary lacks counts as its parts ("police-qwxz" -> "police").
   */
  rowsIn(text: string): number[] {
    const rows: number[] = [];
    const end = text.length;
    let i = 0;
    while (i < end) {
      if (!isWordChar(text.charCodeAt(i))) {
        i++;
        continue;
      }
      const start = i;
      let hash = FNV_OFFSET;
      let hyphenated = false;
      for (;;) {
        for (let c = text.charCodeAt(i); i < end && isWordChar(c); c = text.charCodeAt(++i)) hash = Math.imul(hash ^ c, FNV_PRIME);
        if (text.charCodeAt(i) !== HYPHEN || !isWordChar(text.charCodeAt(i + 1))) break;
        hash = Math.imul(hash ^ HYPHEN, FNV_PRIME);
        hyphenated = true;
        i++;
      }
      const row = this.find(text, start, i, hash >>> 0);
      if (row >= 0) rows.push(row);
      else if (hyphenated) this.pushPartRows(text, start, i, rows);
    }
    return rows;
  }

  private pushPartRows(text: string, start: number, end: number, rows: number[]): void {
    for (let partStart = start; partStart < end; ) {
      let partEnd = text.indexOf('-', partStart);
      if (partEnd < 0 || partEnd > end) partEnd = end;
      const row = this.find(text, partStart, partEnd, hashOf(text, partStart, partEnd));
      if (row >= 0) rows.push(row);
      partStart = partEnd + 1;
    }
  }

  private find(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return -1;
      const row = entry - 1;
      const wordStart = this.charStarts[row]!;
      if (this.charStarts[row + 1]! - wordStart !== length) continue;
      let same = 0;
      while (same < length && this.chars[wordStart + same] === text.charCodeAt(start + same)) same++;
      if (same === length) return row;
    }
  }
}

const VOCABULARY_WORD = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const NON_ASCII_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const HYPHEN = 0x2d;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over UTF-16 code units, as rowsIn computes it while scanning. */
function hashOf(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}

function isWordChar(code: number): boolean {
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
  return NON_ASCII_LETTER_OR_DIGIT.test(String.fromCharCode(code));
}
