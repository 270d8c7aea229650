import type { Client } from '@opensearch-project/opensearch';
import { searchUnavailable } from '../../core/errors';
import type { RecordByKind, ResourceKind } from '../../core/records';
import type { SearchIndex } from '../../ports/search-index';

/**
 * The search index on OpenSearch: writes now (the indexer keeps it current from the records
 * table's stream), queries with the search issue. Each kind has an index behind an alias
 * (`gcf-grants` -> `gcf-grants-v1`), so a later mapping change can build a new index and move the
 * alias without a gap. Documents are the full public record, keyed by id.
 */

export const INDEX_ALIASES: Readonly<Record<ResourceKind, string>> = { grant: 'gcf-grants', contract: 'gcf-contracts', funder: 'gcf-funders' };
const INDEX_VERSION = 'v1';

const keyword = { type: 'keyword' } as const;
const stored = { type: 'keyword', index: false } as const;
const date = { type: 'date', format: 'strict_date_optional_time' } as const;
/** Full-text with a lower-cased keyword beside it for sorting and exact matches. */
const text = { type: 'text', analyzer: 'english', fields: { sort: { type: 'keyword', normalizer: 'lowercase', ignore_above: 512 } } } as const;

const OPPORTUNITY_FIELDS = {
  id: keyword, title: text, description: { type: 'text', analyzer: 'english' }, amount_min: { type: 'double' }, amount_max: { type: 'double' },
  deadline_date: date, status: keyword, geography: text, funder_id: keyword, funder_name: text, listing_url: stored, created_at: date,
  categories: { type: 'keyword', normalizer: 'lowercase' }, opportunity_type: keyword, project_end_date: date, states: keyword,
  source: keyword, source_id: keyword,
} as const;

export const INDEX_MAPPINGS: Readonly<Record<ResourceKind, Record<string, unknown>>> = {
  grant: { ...OPPORTUNITY_FIELDS, eligible_applicants: keyword, requires_501c3: { type: 'boolean' } },
  contract: { ...OPPORTUNITY_FIELDS, document_url: stored, naics: keyword, primary_contact_email: stored, set_aside_code: keyword },
  funder: { id: keyword, name: text, website: stored, summary: { type: 'text', analyzer: 'english' }, created_at: date, source: keyword, source_id: keyword },
};

const INDEX_SETTINGS = {
  number_of_shards: 1,
  // One replica once the domain has a second data node; none on a one-node dev domain.
  auto_expand_replicas: '0-1',
  // k-NN vectors arrive with semantic search; the setting can only be chosen when the index is made.
  knn: true,
  analysis: { normalizer: { lowercase: { type: 'custom', filter: ['lowercase'] } } },
} as const;

interface BulkItemResult { status: number; _id?: string; error?: { type?: string; reason?: string } }

export class OpenSearchIndex implements SearchIndex {
  private readonly ready = new Map<ResourceKind, Promise<void>>();

  constructor(private readonly client: Client, private readonly endpoint: string) {}

  async query(): Promise<never> {
    throw searchUnavailable(`Queries on the OpenSearch index arrive with the search issue (domain: ${this.endpoint}); list and search routes are unavailable until then`);
  }

  /** Creates the kind's index and alias on first use (once per process; "already exists" from a racing writer is fine). */
  private ensureIndex(kind: ResourceKind): Promise<void> {
    let ready = this.ready.get(kind);
    if (!ready) {
      ready = (async () => {
        const alias = INDEX_ALIASES[kind];
        const { body: exists } = await this.client.indices.exists({ index: alias });
        if (exists) return;
        try {
          await this.client.indices.create({
            index: `${alias}-${INDEX_VERSION}`,
            body: { settings: { index: INDEX_SETTINGS }, mappings: { dynamic: false, properties: INDEX_MAPPINGS[kind] }, aliases: { [alias]: {} } },
          } as never);
        } catch (error) {
          if (!/resource_already_exists_exception/.test(String((error as Error).message))) throw error;
        }
      })();
      ready.catch(() => this.ready.delete(kind));
      this.ready.set(kind, ready);
    }
    return ready;
  }

  private async bulk(kind: ResourceKind, operations: unknown[], tolerated: (item: BulkItemResult) => boolean): Promise<void> {
    await this.ensureIndex(kind);
    const { body } = await this.client.bulk({ body: operations } as never) as unknown as { body: { errors: boolean; items: Record<string, BulkItemResult>[] } };
    if (!body.errors) return;
    const failed = body.items.map((item) => Object.values(item)[0]!).filter((item) => item.status >= 300 && !tolerated(item));
    if (failed.length === 0) return;
    const sample = failed.slice(0, 5).map((item) => `${item._id}: ${item.error?.type ?? item.status} ${item.error?.reason ?? ''}`.trim());
    throw new Error(`OpenSearch refused ${failed.length} of ${body.items.length} ${kind} documents (${sample.join('; ')})`);
  }

  async upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    if (records.length === 0) return;
    const index = INDEX_ALIASES[kind];
    await this.bulk(kind, records.flatMap((record) => [{ index: { _index: index, _id: record.id } }, record]), () => false);
  }

  async remove(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const index = INDEX_ALIASES[kind];
    // Deleting what is not there is the outcome wanted.
    await this.bulk(kind, ids.map((id) => ({ delete: { _index: index, _id: id } })), (item) => item.status === 404);
  }
}
