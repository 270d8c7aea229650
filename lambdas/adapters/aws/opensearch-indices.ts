import { searchUnavailable } from '../../core/errors';
import { RESOURCE_KINDS, type RecordByKind, type ResourceKind } from '../../core/records';
import { sameSpace, VectorSpaceMismatch } from '../../core/search/vector-space';
import type { VectorSpace } from '../../ports/embedder';
import type { OpenSearchApi } from './opensearch-client';
import { createIndexBody, documentOf, MAPPING_VERSION, mappingUpgradeBody, mappingVersionOf, vectorSpaceOfMapping } from './opensearch-mappings';
import { errorTypeOf, statusOf } from './opensearch-responses';
import type { VectorSearchSettings } from './opensearch-vector-search';

/**
 * The indices behind the search aliases (`gcf-grants` -> `gcf-grants-v1`): whether each exists and
 * records the configured vector space, creating the first one, the deploy-time bootstrap
 * (ensureIndices) and the rebuild that moves an alias to a new index without a gap. OpenSearchIndex
 * (opensearch-index.ts) checks an index here before it queries or writes it.
 */

/** What an operator runs when the index holds vectors of another embedder (or none). */
export const REBUILD_REMEDY = 'Rebuild it with the configured embedder: npm run admin -- reindex --target aws --rebuild';
/** The index a fresh deployment creates; rebuilds create `<alias>-v<timestamp>`. */
const FIRST_INDEX_VERSION = 'v1';
/** Reported as the space of an index whose mapping records none (made before vector search). */
const NO_SPACE: VectorSpace = { embedder: 'no embedder (the index predates vector search)', dimensions: 0 };

/** What ensureIndices found or did for one kind. */
export interface IndexCheck {
  kind: ResourceKind;
  alias: string;
  status: 'created' | 'found' | 'updated' | 'mismatch';
  /** The concrete indices behind the alias. */
  indices: string[];
  /** With `mismatch`: the space the index records, and the message an operator needs; with `updated`, what to run next. */
  found?: VectorSpace;
  message?: string;
}

/** Writes records (and their vectors, in the same order) into the index being rebuilt. */
export type RebuildWrite<K extends ResourceKind> = (records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]) => Promise<void>;

export interface RebuildResult {
  /** The new index, now behind the alias. */
  index: string;
  /** The indices the alias pointed to before; deleted. */
  replaced: string[];
  documents: number;
}

/** One item of a `_bulk` answer. */
export interface BulkItemResult {
  status: number;
  _id?: string;
  error?: { type?: string; reason?: string };
}
type Inspection =
  | { status: 'missing' }
  | { status: 'found'; indices: string[]; outdated: string[] }
  | { status: 'mismatch'; indices: string[]; found: VectorSpace };

/** What an operator runs after new fields were added to an index's mapping. */
export const REINDEX_REMEDY = 'Fill the new fields: npm run admin -- reindex --target aws';

function timestampVersion(now: Date): string {
  return `v${now.toISOString().replace(/\D/g, '').slice(0, 17)}`;
}

export interface OpenSearchIndicesOptions {
  space: VectorSpace;
  endpoint: string | undefined;
  aliases: Readonly<Record<ResourceKind, string>>;
  replicas: number | undefined;
  recheckAfterMs: number;
  /** The graph a new index's vector field is built with. */
  vectors: VectorSearchSettings;
}

export class OpenSearchIndices {
  /** What each kind's alias was last found to hold, and when. */
  private readonly inspections = new Map<ResourceKind, { at: number; result: Promise<Inspection> }>();

  constructor(
    private readonly client: OpenSearchApi,
    private readonly options: OpenSearchIndicesOptions,
  ) {}

  /** The vector space recorded by the indices behind a kind's alias, or that there is none. */
  private async inspect(kind: ResourceKind): Promise<Inspection> {
    let mappings: Record<string, { mappings?: unknown }>;
    try {
      ({ body: mappings } = (await this.client.indices.getMapping({ index: this.options.aliases[kind] })) as unknown as {
        body: Record<string, { mappings?: unknown }>;
      });
    } catch (error) {
      if (statusOf(error) === 404) return { status: 'missing' };
      throw error;
    }
    const indices = Object.keys(mappings).sort();
    for (const index of indices) {
      const found = vectorSpaceOfMapping(mappings[index]?.mappings);
      if (!found || !sameSpace(found, this.options.space)) return { status: 'mismatch', indices, found: found ?? NO_SPACE };
    }
    return { status: 'found', indices, outdated: indices.filter((index) => mappingVersionOf(mappings[index]?.mappings) < MAPPING_VERSION) };
  }

  /** Puts this version's fields into indices of an older mapping version: new fields are added, documents keep theirs until reindexed. */
  private async upgrade(kind: ResourceKind, indices: readonly string[]): Promise<void> {
    for (const index of indices) await this.client.indices.putMapping({ index, body: mappingUpgradeBody(kind, this.options.space) });
    this.inspections.delete(kind);
  }

  private mismatch(kind: ResourceKind, indices: string[], found: VectorSpace): VectorSpaceMismatch {
    const where = `The OpenSearch index ${this.options.aliases[kind]} (${indices.join(', ')}${this.options.endpoint ? ` on ${this.options.endpoint}` : ''})`;
    return new VectorSpaceMismatch(where, found, this.options.space, REBUILD_REMEDY);
  }

  /** Creates a kind's first index behind its alias; a racing creator's index is as good. */
  private async create(kind: ResourceKind): Promise<'created' | 'raced'> {
    const alias = this.options.aliases[kind];
    try {
      await this.client.indices.create({
        index: `${alias}-${FIRST_INDEX_VERSION}`,
        body: createIndexBody(kind, this.options.space, alias, this.options.replicas, this.options.vectors),
      });
      return 'created';
    } catch (error) {
      if (errorTypeOf(error) === 'resource_already_exists_exception' || /resource_already_exists_exception/.test(String((error as Error).message)))
        return 'raced';
      throw error;
    }
  }

  /** A kind's inspection, reused for `recheckAfterMs` (so an alias moved by a rebuild is noticed). */
  private inspectCached(kind: ResourceKind): Promise<Inspection> {
    const cached = this.inspections.get(kind);
    if (cached && Date.now() - cached.at < this.options.recheckAfterMs) return cached.result;
    const result = this.inspect(kind);
    result.catch(() => this.inspections.delete(kind));
    this.inspections.set(kind, { at: Date.now(), result });
    return result;
  }

  /**
   * Before a kind is used: its index must exist and, for anything that touches vectors, record
   * the configured vector space. A writer creates a missing index (so a fresh domain fills from
   * the stream); a reader finds it missing. A listing or keyword search does not read vectors, so
   * it is still served from an index of another space (during a rebuild's rollout, say); semantic
   * and hybrid queries and every write are refused.
   */
  async verify(kind: ResourceKind, use: 'read' | 'vectors' | 'write'): Promise<void> {
    let inspection = await this.inspectCached(kind);
    if (inspection.status === 'missing' && use === 'write') {
      await this.create(kind);
      this.inspections.delete(kind);
      inspection = await this.inspectCached(kind);
    }
    if (inspection.status === 'missing') {
      if (use !== 'write') throw searchUnavailable(`The ${kind} search index is not available; it is created when the service is deployed`);
      throw new Error(
        `the index behind ${this.options.aliases[kind]} could not be created: ${this.options.aliases[kind]}-${FIRST_INDEX_VERSION} exists without the alias`,
      );
    }
    if (inspection.status === 'mismatch' && use !== 'read') throw this.mismatch(kind, inspection.indices, inspection.found);
    // A writer brings an older mapping up to date first, so the fields it writes are indexed.
    if (inspection.status === 'found' && inspection.outdated.length > 0 && use === 'write') await this.upgrade(kind, inspection.outdated);
  }

  /**
   * Creates each kind's index and alias where missing, and reports what it found: the deploy-time
   * bootstrap. Idempotent. A mismatching vector space is reported, not thrown (the caller decides).
   */
  async ensureIndices(kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<IndexCheck[]> {
    const checks: IndexCheck[] = [];
    for (const kind of kinds) {
      const alias = this.options.aliases[kind];
      let inspection = await this.inspect(kind);
      let created = false;
      if (inspection.status === 'missing') {
        created = (await this.create(kind)) === 'created';
        inspection = await this.inspect(kind);
        if (inspection.status === 'missing')
          throw new Error(`could not create the index behind ${alias}: ${alias}-${FIRST_INDEX_VERSION} exists without the alias`);
      }
      if (inspection.status === 'mismatch') {
        const error = this.mismatch(kind, inspection.indices, inspection.found);
        checks.push({ kind, alias, status: 'mismatch', indices: inspection.indices, found: inspection.found, message: error.message });
        continue;
      }
      if (inspection.outdated.length > 0) {
        await this.upgrade(kind, inspection.outdated);
        checks.push({
          kind,
          alias,
          status: 'updated',
          indices: inspection.indices,
          message: `New fields were added to the mapping of ${inspection.outdated.join(', ')}. ${REINDEX_REMEDY}`,
        });
        continue;
      }
      this.inspections.set(kind, { at: Date.now(), result: Promise.resolve(inspection) });
      checks.push({ kind, alias, status: created ? 'created' : 'found', indices: inspection.indices });
    }
    return checks;
  }

  /**
   * Rebuilds a kind's index without a gap: a new versioned index (`<alias>-v<timestamp>`) in the
   * configured vector space, filled by `fill` (from the record store), refreshed, then the alias
   * moved to it in one atomic `_aliases` request, and the old index deleted. Readers see the old
   * index until the move and the new one after. Writes the indexer makes to the alias during the
   * fill go to the old index, so a plain reindex afterwards catches records changed meanwhile.
   */
  async rebuild<K extends ResourceKind>(
    kind: K,
    fill: (write: RebuildWrite<K>) => Promise<void>,
    options: { version?: string; now?: Date } = {},
  ): Promise<RebuildResult> {
    const alias = this.options.aliases[kind];
    const index = `${alias}-${options.version ?? timestampVersion(options.now ?? new Date())}`;
    await this.client.indices.create({ index, body: createIndexBody(kind, this.options.space, undefined, this.options.replicas, this.options.vectors) });
    let documents = 0;
    let replaced: string[];
    try {
      await fill(async (records, vectors) => {
        if (records.length === 0) return;
        await bulkWrite(
          this.client,
          kind,
          records.flatMap((record, i) => [{ index: { _index: index, _id: record.id } }, documentOf(kind, record, vectors?.[i], this.options.space)]),
          () => false,
        );
        documents += records.length;
      });
      await this.client.indices.refresh({ index });
      replaced = await this.indicesBehind(alias);
      await this.client.indices.updateAliases({
        body: { actions: [...replaced.map((old) => ({ remove: { index: old, alias } })), { add: { index, alias } }] },
      });
    } catch (error) {
      // The alias never moved: drop the half-built index and leave the old one serving.
      await this.client.indices.delete({ index }).catch(() => undefined);
      throw error;
    }
    for (const old of replaced) await this.client.indices.delete({ index: old });
    this.inspections.delete(kind);
    return { index, replaced, documents };
  }

  private async indicesBehind(alias: string): Promise<string[]> {
    try {
      const { body } = (await this.client.indices.getAlias({ name: alias })) as unknown as { body: Record<string, unknown> };
      return Object.keys(body).sort();
    } catch (error) {
      if (statusOf(error) === 404) return [];
      throw error;
    }
  }
}

/** One `_bulk` request; any refused item not `tolerated` fails it, naming up to five. */
export async function bulkWrite(
  client: OpenSearchApi,
  kind: ResourceKind,
  operations: Record<string, unknown>[],
  tolerated: (item: BulkItemResult) => boolean,
): Promise<void> {
  const { body } = (await client.bulk({ body: operations })) as unknown as { body: { errors: boolean; items: Record<string, BulkItemResult>[] } };
  if (!body.errors) return;
  const failed = body.items.map((item) => Object.values(item)[0]!).filter((item) => item.status >= 300 && !tolerated(item));
  if (failed.length === 0) return;
  const sample = failed.slice(0, 5).map((item) => `${item._id}: ${item.error?.type ?? item.status} ${item.error?.reason ?? ''}`.trim());
  throw new Error(`OpenSearch refused ${failed.length} of ${body.items.length} ${kind} documents (${sample.join('; ')})`);
}
