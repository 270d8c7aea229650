/**
 * A plain Okapi BM25 over the evaluation's collection, written here and sharing nothing with the
 * service's search code, so the service's modes are measured against a textbook baseline rather
 * than against themselves. Deliberately unremarkable: OR semantics (a record matching any query
 * term is a result), no phrase or proximity scoring, no minimum-should-match, no field boosts
 * beyond counting the title twice.
 */
import { stemmer } from 'stemmer';

export const BM25_PARAMS = { k1: 1.2, b: 0.75, titleWeight: 2 } as const;

/**
 * A common English stop-word list (NLTK's, without its contraction fragments). Domain words such
 * as "grant", "funding" or "services" are kept: a baseline that knew the domain would stop being
 * a plain baseline.
 */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself ' +
    'they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having ' +
    'do does did doing a an the and but if or because as until while of at by for with about against between into through during ' +
    'before after above below to from up down in out on off over under again further then once here there when where why how all any ' +
    'both each few more most other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y'
  ).split(' '),
);

/** Lower-cased, split on anything but letters and digits, stop words dropped, Porter-stemmed. */
export function analyse(text: string): string[] {
  const terms: string[] = [];
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOP_WORDS.has(word)) continue;
    terms.push(stemmer(word));
  }
  return terms;
}

export interface BaselineDocument {
  id: string;
  title: string;
  description: string;
}

export interface BaselineHit {
  id: string;
  score: number;
}

export interface Bm25Index {
  size: number;
  /** Every document matching at least one query term, best first (ties by id, as the service breaks them). */
  search(query: string): BaselineHit[];
}

export function buildBm25Index(documents: readonly BaselineDocument[]): Bm25Index {
  const postings = new Map<string, { doc: number; tf: number }[]>();
  const lengths = new Float64Array(documents.length);
  documents.forEach((document, doc) => {
    const tf = new Map<string, number>();
    const add = (terms: string[], weight: number) => {
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + weight);
    };
    add(analyse(document.title), BM25_PARAMS.titleWeight);
    add(analyse(document.description), 1);
    let length = 0;
    for (const [term, count] of tf) {
      length += count;
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ doc, tf: count });
    }
    lengths[doc] = length;
  });
  const n = documents.length;
  const averageLength = n === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / n;
  const { k1, b } = BM25_PARAMS;

  return {
    size: n,
    search(query) {
      const scores = new Map<number, number>();
      // A repeated query word counts once, as in Lucene's BooleanQuery of distinct term clauses.
      for (const term of new Set(analyse(query))) {
        const list = postings.get(term);
        if (!list) continue;
        // Lucene's non-negative IDF: a term in most documents still adds a little, never subtracts.
        const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
        for (const { doc, tf } of list) {
          const norm = k1 * (1 - b + (b * lengths[doc]!) / averageLength);
          scores.set(doc, (scores.get(doc) ?? 0) + (idf * tf * (k1 + 1)) / (tf + norm));
        }
      }
      return [...scores]
        .map(([doc, score]) => ({ id: documents[doc]!.id, score }))
        .sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    },
  };
}
