import { geographyLevelOf } from '../../core/geo';
import { isOpenEnded } from '../../core/query/applyable';
import { LIMITS } from '../../core/query/list-query';
import type { Contract, Grant, RecordByKind, ResourceKind } from '../../core/records';
import { IDENTIFIER_FIELDS, identifierKeysOf } from '../../core/search/identifiers';
import { keywordFieldsOf } from '../../core/search/keyword-fields';
import type { VectorSpace } from '../../ports/embedder';
import { DEFAULT_VECTOR_SEARCH, type VectorSearchSettings } from './opensearch-vector-search';

/**
 * The OpenSearch indices: one per kind, behind an alias (`gcf-grants` -> `gcf-grants-v1`), so a
 * mapping change or a new embedder builds a new index and moves the alias without a gap
 * (OpenSearchIndex.rebuild). Documents are the full public record, keyed by id, plus two fields
 * the index keeps for itself (INTERNAL_FIELDS) and leaves out of the stored `_source`, so a hit's
 * `_source` is exactly the public record.
 */

export const INDEX_ALIASES: Readonly<Record<ResourceKind, string>> = { grant: 'gcf-grants', contract: 'gcf-contracts', funder: 'gcf-funders' };

/** The k-NN field: the record's vector (embeddingTextOf), absent when the embedder had nothing to embed. */
export const VECTOR_FIELD = 'embedding';
/** The legacy geography level of an opportunity (geographyLevelOf), for the deprecated `geography` filter. */
export const GEOGRAPHY_LEVEL_FIELD = 'geography_level';
/** Whether an opportunity has no real deadline (isOpenEnded), for the stale-listing rule. */
export const OPEN_ENDED_FIELD = 'open_ended';
/** A record's identifier keys by identifier field (core/search/identifiers.ts), each a keyword field: `identifier_keys.naics`. */
export const IDENTIFIER_KEYS_FIELD = 'identifier_keys';
/** The keyword fields' texts (core/search/keyword-fields.ts) that are not public fields of their own: `search_text.programs`. */
export const SEARCH_TEXT_FIELD = 'search_text';
/** Indexed, never stored in `_source` and never returned. */
export const INTERNAL_FIELDS: Readonly<Record<ResourceKind, readonly string[]>> = {
  grant: [VECTOR_FIELD, GEOGRAPHY_LEVEL_FIELD, OPEN_ENDED_FIELD, IDENTIFIER_KEYS_FIELD, SEARCH_TEXT_FIELD],
  contract: [VECTOR_FIELD, GEOGRAPHY_LEVEL_FIELD, OPEN_ENDED_FIELD, IDENTIFIER_KEYS_FIELD, SEARCH_TEXT_FIELD],
  funder: [VECTOR_FIELD, IDENTIFIER_KEYS_FIELD, SEARCH_TEXT_FIELD],
};
/** The analysed copy of `categories` (a keyword field for the filter), searched by keyword search. */
export const CATEGORIES_TEXT_FIELD = 'categories.text';

/** Sort keys of the full-text fields: the lower-cased keyword beside them (SQLite sorts them NOCASE). */
export const SORT_SUBFIELD = 'sort';

const keyword = { type: 'keyword' } as const;
const stored = { type: 'keyword', index: false } as const;
const date = { type: 'date', format: 'strict_date_optional_time' } as const;
const englishText = { type: 'text', analyzer: 'english' } as const;
/** Full-text with a lower-cased keyword beside it for sorting and exact matches. */
const text = { ...englishText, fields: { [SORT_SUBFIELD]: { type: 'keyword', normalizer: 'lowercase', ignore_above: 1024 } } } as const;

/** The identifier keys of a kind, one keyword field per identifier field. */
function identifierKeysMapping(kind: ResourceKind): Record<string, unknown> {
  return { properties: Object.fromEntries(IDENTIFIER_FIELDS[kind].map((field) => [field.name, keyword])) };
}

/** The analysed texts keyword search reads that no public field holds. */
const searchTextMapping = { properties: { programs: englishText } } as const;

const OPPORTUNITY_FIELDS = {
  id: keyword,
  title: text,
  description: englishText,
  amount_min: { type: 'double' },
  amount_max: { type: 'double' },
  deadline_date: date,
  archive_date: date,
  status: keyword,
  geography: text,
  funder_id: keyword,
  funder_name: text,
  listing_url: stored,
  created_at: date,
  categories: { type: 'keyword', normalizer: 'lowercase', fields: { text: englishText } },
  opportunity_type: keyword,
  project_end_date: date,
  states: keyword,
  source: keyword,
  source_id: keyword,
  [GEOGRAPHY_LEVEL_FIELD]: keyword,
  [OPEN_ENDED_FIELD]: { type: 'boolean' },
  [SEARCH_TEXT_FIELD]: searchTextMapping,
} as const;

/** Every field but the vector, whose length depends on the embedder (indexMappings). */
export const INDEX_PROPERTIES: Readonly<Record<ResourceKind, Readonly<Record<string, unknown>>>> = {
  // The evidence is read back with the record, never searched: stored in _source only.
  grant: {
    ...OPPORTUNITY_FIELDS,
    eligible_applicants: keyword,
    requires_501c3: { type: 'boolean' },
    eligibility_evidence: { type: 'object', enabled: false },
    assistance_listings: { properties: { number: keyword, program_title: englishText } },
    agency_code: keyword,
    [IDENTIFIER_KEYS_FIELD]: identifierKeysMapping('grant'),
  },
  contract: {
    ...OPPORTUNITY_FIELDS,
    document_url: stored,
    naics: keyword,
    primary_contact_email: stored,
    // SQLite compares set-aside codes upper-cased; the normalizer does the same to stored codes.
    set_aside_code: { type: 'keyword', normalizer: 'uppercase' },
    solicitation_number: keyword,
    psc_code: keyword,
    naics_description: englishText,
    psc_description: englishText,
    [IDENTIFIER_KEYS_FIELD]: identifierKeysMapping('contract'),
  },
  funder: {
    id: keyword,
    name: text,
    website: stored,
    summary: englishText,
    created_at: date,
    source: keyword,
    source_id: keyword,
    [IDENTIFIER_KEYS_FIELD]: identifierKeysMapping('funder'),
    [SEARCH_TEXT_FIELD]: searchTextMapping,
  },
};

/**
 * The vector field: an HNSW graph of the stage's engine and parameters (opensearch-vector-search.ts),
 * searched by approximate k-NN with the filters inside (opensearch-text-clauses.ts windowClause).
 * Both engines score cosinesimil as (1 + cos) / 2.
 */
export function vectorFieldMapping(space: VectorSpace, vectors: VectorSearchSettings = DEFAULT_VECTOR_SEARCH): Record<string, unknown> {
  return {
    type: 'knn_vector',
    dimension: space.dimensions,
    method: { name: 'hnsw', engine: vectors.engine, space_type: 'cosinesimil', parameters: { m: vectors.m, ef_construction: vectors.efConstruction } },
  };
}

/**
 * The version of the fields above: raised when fields are added (2: identifier keys, programs
 * text, the assistance listings, agency, solicitation and PSC fields). An index of an older
 * version gets the new fields put into its mapping (OpenSearchIndices), and a reindex fills them.
 */
export const MAPPING_VERSION = 2;

function metaOf(space: VectorSpace): Record<string, unknown> {
  return { vector_space: { embedder: space.embedder, dimensions: space.dimensions }, mapping_version: MAPPING_VERSION };
}

/** The whole mapping of a kind's index, recording the vector space its vectors come from and its mapping version. */
export function indexMappings(kind: ResourceKind, space: VectorSpace, vectors?: VectorSearchSettings): Record<string, unknown> {
  return {
    dynamic: false,
    _source: { excludes: [...INTERNAL_FIELDS[kind]] },
    _meta: metaOf(space),
    properties: { ...INDEX_PROPERTIES[kind], [VECTOR_FIELD]: vectorFieldMapping(space, vectors) },
  };
}

/** What brings an index of an older mapping version up to this one: the fields (new ones are added, old ones unchanged) and the version. */
export function mappingUpgradeBody(kind: ResourceKind, space: VectorSpace): Record<string, unknown> {
  return { _meta: metaOf(space), properties: INDEX_PROPERTIES[kind] };
}

/** The mapping version an index's mapping records (1 before versions were recorded). */
export function mappingVersionOf(mappings: unknown): number {
  const version = (mappings as { _meta?: { mapping_version?: unknown } } | undefined)?._meta?.mapping_version;
  return typeof version === 'number' ? version : 1;
}

export const INDEX_SETTINGS = {
  number_of_shards: 1,
  // k-NN can only be enabled when the index is made.
  knn: true,
  // The deepest page the API serves (offset up to 10,000 plus a page of 100).
  max_result_window: LIMITS.offsetMax + LIMITS.pageMax,
  // The domain publishes slow logs to CloudWatch (SearchDomain), but a node logs only what passes
  // an index's thresholds, and none are set by default. A search has 8 s in all and runs in tens
  // of milliseconds; a bulk write of a batch of records in well under a second.
  'search.slowlog.threshold.query.warn': '1s',
  'search.slowlog.threshold.query.info': '250ms',
  'search.slowlog.threshold.fetch.warn': '500ms',
  'search.slowlog.threshold.fetch.info': '100ms',
  'indexing.slowlog.threshold.index.warn': '2s',
  'indexing.slowlog.threshold.index.info': '500ms',
  analysis: {
    normalizer: {
      lowercase: { type: 'custom', filter: ['lowercase'] },
      uppercase: { type: 'custom', filter: ['uppercase'] },
    },
  },
} as const;

/**
 * Replicas: the number the deployment asks for (one per extra zone: lib/config.ts
 * indexReplicasOf), or, with none given (a single node, a test domain), one as soon as a second
 * data node joins.
 */
function replicaSettings(replicas: number | undefined): Record<string, unknown> {
  return replicas === undefined ? { auto_expand_replicas: '0-1' } : { number_of_replicas: replicas };
}

/** The body that creates a kind's index (with its alias when given). */
export function createIndexBody(
  kind: ResourceKind,
  space: VectorSpace,
  alias?: string,
  replicas?: number,
  vectors?: VectorSearchSettings,
): Record<string, unknown> {
  return {
    settings: { index: { ...INDEX_SETTINGS, ...replicaSettings(replicas) } },
    mappings: indexMappings(kind, space, vectors),
    ...(alias ? { aliases: { [alias]: {} } } : {}),
  };
}

/** The vector space an index's mapping records, or null when it records none (an index made before vectors). */
export function vectorSpaceOfMapping(mappings: unknown): VectorSpace | null {
  const found = (mappings as { _meta?: { vector_space?: { embedder?: unknown; dimensions?: unknown } } } | undefined)?._meta?.vector_space;
  if (!found || typeof found.embedder !== 'string' || typeof found.dimensions !== 'number') return null;
  return { embedder: found.embedder, dimensions: found.dimensions };
}

/** cosinesimil refuses a zero vector (its norm is 0), in documents and queries alike. */
export function isZeroVector(vector: Float32Array): boolean {
  for (const value of vector) if (value !== 0) return false;
  return true;
}

/** A vector as JSON, or null when there is none to index (cosinesimil refuses a zero vector). */
export function vectorJson(vector: Float32Array | null | undefined, space: VectorSpace): number[] | null {
  if (!vector || isZeroVector(vector)) return null;
  if (vector.length !== space.dimensions) {
    throw new Error(`a ${vector.length}-dimension vector cannot go into an index of ${space.embedder} (${space.dimensions} dimensions)`);
  }
  return Array.from(vector);
}

/** What is sent to the index for one record: the record, its internal fields, and its vector when it has one. */
export function documentOf<K extends ResourceKind>(
  kind: K,
  record: RecordByKind[K],
  vector: Float32Array | null | undefined,
  space: VectorSpace,
): Record<string, unknown> {
  const document: Record<string, unknown> = { ...record };
  document[IDENTIFIER_KEYS_FIELD] = identifierKeysOf(kind, record);
  document[SEARCH_TEXT_FIELD] = { programs: keywordFieldsOf(kind, record).programs };
  if (kind !== 'funder') {
    const opportunity = record as Grant | Contract;
    document[GEOGRAPHY_LEVEL_FIELD] = geographyLevelOf(opportunity.states, opportunity.geography);
    document[OPEN_ENDED_FIELD] = isOpenEnded(opportunity);
  }
  const embedding = vectorJson(vector, space);
  if (embedding) document[VECTOR_FIELD] = embedding;
  return document;
}
