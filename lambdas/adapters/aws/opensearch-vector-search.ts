import { LIMITS } from '../../core/query/list-query';

/**
 * How the OpenSearch adapter searches vectors: the HNSW graph each index is built with, and the
 * window of nearest candidates a semantic or hybrid query ranks. A stage's configuration
 * (lib/config.ts `search.vectors`), passed to the functions as SEARCH_VECTOR_SETTINGS.
 */
export interface VectorSearchSettings {
  /**
   * The k-NN engine of a new index's graph. Lucene runs anywhere, tests included (the k-NN
   * plugin's jar on Maven Central has no Faiss native libraries); Faiss is the stage option for
   * large catalogues. An existing index keeps the engine it was built with until a reindex.
   */
  engine: 'lucene' | 'faiss';
  /** HNSW links per node: more raise recall and memory. */
  m: number;
  /** HNSW candidates kept while the graph is built: more raise recall and build time. */
  efConstruction: number;
  /**
   * The window: nearest candidates (k) a query ranks, the filters applied inside the graph search
   * (the engine searches exactly when the filtered set is small), then the floor. Past it, a
   * total is a lower bound and pages are refused.
   */
  window: number;
}

export const DEFAULT_VECTOR_SEARCH: VectorSearchSettings = { engine: 'lucene', m: 16, efConstruction: 128, window: 300 };

/** The k-NN plugin's largest `k` (a larger one is refused with a 400); the API's deepest offset too. */
export const WINDOW_MAX = LIMITS.offsetMax;

/**
 * How many nearest candidates the query floor's evidence reads (its best cosines): the graph
 * search's own beam, so the best one found is the best there is but for HNSW's rare misses.
 */
export const FLOOR_EVIDENCE_CANDIDATES = 100;

const ENGINES = ['lucene', 'faiss'] as const;

function wholeIn(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`vector search ${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return value;
}

/** Settings checked, the defaults filling what is not given; an Error names the first wrong one. */
export function vectorSearchSettingsOf(given: Partial<Record<keyof VectorSearchSettings, unknown>> = {}): VectorSearchSettings {
  const settings = { ...DEFAULT_VECTOR_SEARCH, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) };
  if (!ENGINES.includes(settings.engine as VectorSearchSettings['engine'])) {
    throw new Error(`vector search engine must be ${ENGINES.join(' or ')}, not ${JSON.stringify(settings.engine)}`);
  }
  return {
    engine: settings.engine as VectorSearchSettings['engine'],
    m: wholeIn('m', settings.m, 2, 100),
    efConstruction: wholeIn('efConstruction', settings.efConstruction, 2, 4_096),
    window: wholeIn('window', settings.window, 1, WINDOW_MAX),
  };
}

/** The settings a stage sets as JSON (SEARCH_VECTOR_SETTINGS); unset or empty: the defaults. */
export function vectorSearchSettingsFromJson(json: string | undefined): VectorSearchSettings {
  if (json === undefined || json.trim() === '') return DEFAULT_VECTOR_SEARCH;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`SEARCH_VECTOR_SETTINGS must be a JSON object, got ${JSON.stringify(json.slice(0, 80))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('SEARCH_VECTOR_SETTINGS must be a JSON object');
  const unknown = Object.keys(parsed).filter((key) => !(key in DEFAULT_VECTOR_SEARCH));
  if (unknown.length > 0)
    throw new Error(`SEARCH_VECTOR_SETTINGS has unknown settings: ${unknown.join(', ')} (known: ${Object.keys(DEFAULT_VECTOR_SEARCH).join(', ')})`);
  return vectorSearchSettingsOf(parsed as Partial<Record<keyof VectorSearchSettings, unknown>>);
}
