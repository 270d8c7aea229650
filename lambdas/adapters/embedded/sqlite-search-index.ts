import Database from 'better-sqlite3';
import type { ListQuery, PagePosition } from '../../core/query/list-query';
import type { AnyRecord, Contract, Funder, Grant, RecordByKind, ResourceKind } from '../../core/records';
import { identifierKeysOf } from '../../core/search/identifiers';
import { KEYWORD_FIELDS, type KeywordField } from '../../core/search/keyword-fields';
import { type EmptyAnswer, emptySearchAnswer } from '../../core/search/no-results';
import type { QueryFloor } from '../../core/search/query-floor';
import { roundedRelevance } from '../../core/search/relevance';
import type { VectorSpace } from '../../ports/embedder';
import type { IndexedResult, IndexPage, SearchIndex, SemanticQuery } from '../../ports/search-index';
import { bytesOfVector } from '../vector-bytes';
import { CachedRankings } from './cached-rankings';
import type { FacetRow, FacetRows } from './facet-columns';
import { OrderedPages, type RowPage } from './field-orders';
import type { FilterRow } from './filter-columns';
import { IndexMemory } from './index-memory';
import { analysedLength } from './lucene-bm25';
import { QueryCache } from './query-cache';
import { type Ranking, rankingAmong, sortedThrough } from './ranked-set';
import { RecordDocs } from './record-docs';
import { bitmapOfRows, countBits, type RowBitmap } from './row-bitmap';
import { SearchRankers } from './search-rankers';
import { filterSql, orderSql, type Sql } from './sqlite-index-filters';
import { ensureIndexSchema, funderRow, opportunityRow, TEXT_COLUMNS, textColumnsOf } from './sqlite-index-schema';
import { afterFieldSql, type RankingKeys, relevancePage, sortColumnOf } from './sqlite-keyset';
import { SqliteKeywordMatcher } from './sqlite-keyword-match';
import { VectorScans } from './vector-scans';
import { WorkerVectorScans } from './worker-vector-scans';

/**
 * The embedded search index: SQLite with FTS5 for keyword search (lambdas/core/search/
 * keyword-query.ts) and exact k-NN over an in-memory Float32 matrix, for local mode and tests.
 * Tables: sqlite-index-schema.ts; what is kept of every row in memory: index-memory.ts; filters:
 * sqlite-index-filters.ts, filter-columns.ts and range-index.ts; rankings: search-rankers.ts and
 * cached-rankings.ts; pages in field orders: field-orders.ts; records: record-docs.ts.
 */

/** A query's filters, as conditions on the row table `r` and as given, and the key that identifies them in caches. */
type FilterPlan = { kind: ResourceKind; filters: Sql; key: string; query: Pick<ListQuery, 'filters' | 'today'>; bits?: RowBitmap };

export interface SqliteSearchIndexOptions {
  /** A file path, or ':memory:'. */
  filename: string;
  /** The embedder's vectors this index holds; an index file built with others is refused. */
  space: VectorSpace;
  /**
   * Keep the vectors in a worker thread and scan them there (worker-vector-scans.ts), as a
   * serving index should: a scan in the event loop's thread holds up every request while it
   * runs. Off (the default), they are scanned in this thread, as tests and
   * one-off tools can afford.
   */
  scanInWorker?: boolean;
}

export class SqliteSearchIndex implements SearchIndex {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly counts = new QueryCache<number>(1000);
  private readonly pages = new QueryCache<RowPage>(1000);
  private readonly docs = new RecordDocs((sql) => this.statement(sql));
  private readonly keywordMatcher: SqliteKeywordMatcher;
  private readonly rankings: CachedRankings;
  private readonly orderedPages: OrderedPages;
  /** Every row's id, filter and facet columns and vector, in memory (index-memory.ts). */
  private readonly memory: IndexMemory;
  private readonly space: VectorSpace;
  /** True when the index was just (re)created empty and must be filled from the record store. */
  wasCreated = false;

  constructor(options: SqliteSearchIndexOptions) {
    this.space = options.space;
    const { dimensions } = options.space;
    this.memory = new IndexMemory(dimensions, (memory) =>
      options.scanInWorker ? new WorkerVectorScans(dimensions, () => memory.loadVectors(this.db)) : new VectorScans(dimensions),
    );
    this.db = new Database(options.filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('temp_store = MEMORY');
    // A small page cache, not memory-mapped: a map kept every page the start-up load touches in
    // the process's memory for no speed, since rankings keep the postings they read and the
    // operating system caches the file anyway.
    this.db.pragma('cache_size = -16384');
    this.db.pragma('mmap_size = 0');
    this.wasCreated = ensureIndexSchema(this.db, this.space, options.filename);
    this.keywordMatcher = new SqliteKeywordMatcher((sql) => this.statement(sql), this.memory.fieldLengths, this.db);
    this.rankings = new CachedRankings(
      new SearchRankers({ keywordMatcher: this.keywordMatcher, vectors: this.memory.vectors, idOrders: this.memory.idOrders }),
    );
    this.orderedPages = new OrderedPages((sql) => this.statement(sql), this.memory.recordIds);
    this.memory.load(this.db);
  }

  private statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  async query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, semantic?: SemanticQuery): Promise<IndexPage<K>> {
    const plan = this.filterPlan(kind, query);
    if (!query.search) return query.ids ? this.listingAmong(plan, query, query.ids) : this.listing(plan, query);
    const bits = this.filterBits(plan);
    const { ranking, floor } = await this.rankings.of({ kind, ...(bits ? { filters: { key: plan.key, bits } } : {}) }, query.search, semantic);
    const page: IndexPage<K> = {
      ...this.pageOfRanking<K>(plan, query, query.ids ? rankingAmong(ranking, new Set(query.ids), this.idOf(kind)) : ranking),
      ...(floor ? { floor } : {}),
    };
    if (page.total > 0 || query.ids) return page;
    return { ...page, empty: await this.emptySearch(kind, query.search, semantic, floor, bits !== undefined) };
  }

  /** Why a search found nothing: the text, the floor, or the filters (IndexPage.empty). */
  private async emptySearch(
    kind: ResourceKind,
    search: NonNullable<ListQuery['search']>,
    semantic: SemanticQuery | undefined,
    floor: QueryFloor | undefined,
    filtered: boolean,
  ): Promise<EmptyAnswer> {
    const unfiltered = filtered ? (await this.rankings.of({ kind }, search, semantic)).ranking.rowids.length : 0;
    return emptySearchAnswer(search, unfiltered, Boolean(semantic?.vector), floor);
  }

  /** A listing's records among `ids` (ListQuery.ids): the same filters and order, with the id test added. */
  private listingAmong<K extends ResourceKind>(plan: FilterPlan, query: ListQuery, ids: readonly string[]): IndexPage<K> {
    const where = [...plan.filters.where, 'r.id IN (SELECT value FROM json_each(?))'];
    const rowids = this.statement(`SELECT r.rowid FROM ${plan.kind}_rows r WHERE ${where.join(' AND ')} ORDER BY ${orderSql(plan.kind, query)}`)
      .pluck()
      .all(...plan.filters.params, JSON.stringify(ids)) as number[];
    const facets = this.facetsOf(plan, query, { rowids });
    if (query.countOnly) return { total: rowids.length, results: [], ...facets };
    return {
      total: rowids.length,
      results: this.readDocs(plan.kind, rowids.slice(query.offset, query.offset + query.limit)) as unknown as IndexedResult<K>[],
      ...facets,
    };
  }

  private filterPlan(kind: ResourceKind, query: Pick<ListQuery, 'filters' | 'today'>): FilterPlan {
    const filters: Sql = { where: [], params: [] };
    if (query.filters) filterSql(query.filters, query.today, filters);
    return { kind, filters, key: JSON.stringify([kind, filters]), query };
  }

  /** A listing without search text: the total and one page, each cached until the next write. */
  private listing<K extends ResourceKind>(plan: FilterPlan, query: ListQuery): IndexPage<K> {
    const page = this.listingPage<K>(plan, query);
    return page.total === 0 ? { ...page, empty: { reason: 'no_match' } } : page;
  }

  private listingPage<K extends ResourceKind>(plan: FilterPlan, query: ListQuery): IndexPage<K> {
    let total = this.counts.get(plan.key);
    if (total === undefined) {
      total = this.countOf(plan);
      this.counts.set(plan.key, total);
    }
    const facets = this.listingFacets(plan, query);
    if (query.countOnly || (!query.after && total <= query.offset)) return { total, results: [], ...facets };
    const order = orderSql(plan.kind, query);
    const pageKey = JSON.stringify([plan.key, order, query.limit, query.offset, query.after ?? null]);
    let page = this.pages.get(pageKey);
    if (page === undefined) {
      // Rows are ordered and cut before any document is read: sorting rows that carry their JSON
      // would drag every match's document through the sorter.
      const bits = plan.kind === 'funder' ? undefined : (this.filterBits(plan) ?? this.memory.filterColumns[plan.kind].maskBits(null, query.today));
      page = (bits && this.orderedPages.page(plan.kind, query, bits)) || this.rowPage(plan.kind, query, plan.filters, order);
      this.pages.set(pageKey, page);
    }
    return { total, results: this.readDocs(plan.kind, page.rowids) as unknown as IndexedResult<K>[], ...facets, ...(page.next ? { next: page.next } : {}) };
  }

  /** A listing's facets, cached until the next write like its total. */
  private listingFacets(plan: FilterPlan, query: ListQuery) {
    return this.memory.facets.ofListing(
      plan.kind,
      query,
      plan.key,
      () => {
        const bits = this.filterBits(plan);
        return bits ? { bits } : { all: true };
      },
      this.rankOf(plan.kind),
    );
  }

  /** The facets the query asks for (none for funders), over the whole result set given. */
  private facetsOf(plan: FilterPlan, query: ListQuery, rows: FacetRows) {
    return this.memory.facets.of(plan.kind, query, rows, this.rankOf(plan.kind));
  }

  /** Each record's place in id order, by rowid (facets name a group by the spelling of its record first in id order). */
  private rankOf(kind: ResourceKind): (rowid: number) => number {
    const { rankOf } = this.memory.idOrders[kind].get();
    return (rowid) => rankOf[rowid] ?? -1;
  }

  private idOf(kind: ResourceKind): (rowid: number) => string {
    const ids = this.memory.recordIds[kind];
    return (rowid) => ids.get(rowid)!;
  }

  /**
   * A page of the rows passing `filters` in a field order: after the query's position (keyset
   * paging) or its offset. One row more than the page says whether more follow.
   */
  private rowPage(kind: ResourceKind, query: ListQuery, filters: Sql, order: string): RowPage {
    const keyset = query.after ? afterFieldSql(kind, query, query.after) : { where: [], params: [] };
    const where = [...filters.where, ...keyset.where];
    const { bare } = sortColumnOf(kind, query.sort.field);
    const rows = this.statement(
      `SELECT r.rowid AS rowid, r.${bare} AS value, r.id AS id FROM ${kind}_rows r${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ? OFFSET ?`,
    ).all(...filters.params, ...keyset.params, query.limit + 1, query.after ? 0 : query.offset) as {
      rowid: number;
      value: string | number | null;
      id: string;
    }[];
    const last = rows.length > query.limit ? rows[query.limit - 1] : undefined;
    return { rowids: rows.slice(0, query.limit).map((row) => row.rowid), ...(last ? { next: [last.value, last.id] } : {}) };
  }

  /** One page of a ranked set: a slice in relevance order (ascending is the exact reverse), or the set sorted by a field. */
  private pageOfRanking<K extends ResourceKind>(plan: FilterPlan, query: ListQuery, ranking: Ranking): IndexPage<K> {
    const total = ranking.rowids.length;
    const facets = this.memory.facets.ofRanking(plan.kind, query, (ranking.facets ??= new Map()), { rowids: ranking.rowids }, this.rankOf(plan.kind));
    if (query.countOnly || (!query.after && total <= query.offset)) return { total, results: [], ...facets };
    let page: ArrayLike<number>;
    let positionOfResult: (i: number) => number;
    let next: PagePosition | undefined;
    if (query.sort.field === 'relevance') {
      // A cursor's place, or a page counted from the worst, needs the whole set in order; a page counted from the best, the set down to it.
      sortedThrough(ranking, query.after || query.sort.order === 'asc' ? total : query.offset + query.limit);
      const keys: RankingKeys = { scores: ranking.scores, idAt: (i) => this.memory.recordIds[plan.kind].get(ranking.rowids[i]!)! };
      const { positions, next: after } = relevancePage(keys, ranking.rowids.length, query);
      page = positions.map((position) => ranking.rowids[position]!);
      positionOfResult = (i) => positions[i]!;
      next = after;
    } else {
      ranking.bits ??= bitmapOfRows(ranking.rowids);
      const rows =
        this.orderedPages.page(plan.kind, query, ranking.bits) ??
        this.rowPage(
          plan.kind,
          query,
          { where: ['r.rowid IN (SELECT value FROM json_each(?))'], params: [JSON.stringify(Array.from(ranking.rowids))] },
          orderSql(plan.kind, query),
        );
      page = rows.rowids;
      next = rows.next;
      // Only results with a relevance need their place in the set: keyword sets have none.
      const positionOf = ranking.relevanceOf ? (ranking.positionOf ??= new Map(Array.from(ranking.rowids, (rowid, i) => [rowid, i]))) : undefined;
      positionOfResult = (i) => positionOf!.get(page[i]!)!;
    }
    const docs = this.readDocs(plan.kind, page);
    const { relevanceOf, scores } = ranking;
    const paged = { ...facets, ...(next ? { next } : {}) };
    if (!relevanceOf) return { total, results: docs as unknown as IndexedResult<K>[], ...paged };
    return {
      total,
      results: docs.map((doc, i) => ({ ...doc, relevance: roundedRelevance(relevanceOf(scores[positionOfResult(i)]!)) }) as unknown as IndexedResult<K>),
      ...paged,
    };
  }

  /** The plan's filters as a bitmap over rowids (made once a query); undefined when there are none. */
  private filterBits(plan: FilterPlan): RowBitmap | undefined {
    if (plan.filters.where.length === 0 || plan.kind === 'funder') return undefined;
    plan.bits ??= this.memory.filterColumns[plan.kind].maskBits(plan.query.filters, plan.query.today);
    return plan.bits;
  }

  /** How many records pass the plan's filters: a population count of the bitmap, where SQLite would scan rows or an index range. */
  private countOf(plan: FilterPlan): number {
    const bits = this.filterBits(plan);
    return bits ? countBits(bits) : this.memory.recordIds[plan.kind].size;
  }

  private readDocs<K extends ResourceKind>(kind: K, rowids: ArrayLike<number>): RecordByKind[K][] {
    return this.docs.read(kind, rowids);
  }

  async upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]): Promise<void> {
    const first = records[0];
    if (!first) return;
    const rowOf = (record: AnyRecord) => (kind === 'funder' ? funderRow(record as Funder) : opportunityRow(record as Grant | Contract));
    const columns = Object.keys(rowOf(first));
    const upsertRow = this.statement(
      `INSERT INTO ${kind}_rows (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})
       ON CONFLICT(id) DO UPDATE SET ${columns
         .filter((c) => c !== 'id')
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')}
       RETURNING rowid`,
    );
    const putDoc = this.statement(`INSERT OR REPLACE INTO ${kind}_docs (rowid, doc) VALUES (?, ?)`);
    const dropText = this.statement(`DELETE FROM ${kind}_fts WHERE rowid = ?`);
    const putText = this.statement(`INSERT INTO ${kind}_fts (rowid, ${TEXT_COLUMNS.join(', ')}) VALUES (?, ${TEXT_COLUMNS.map(() => '?').join(', ')})`);
    const putVector = this.statement(`INSERT OR REPLACE INTO ${kind}_vectors (rowid, vector) VALUES (?, ?)`);
    const dropIdentifiers = this.statement(`DELETE FROM ${kind}_identifiers WHERE rowid = ?`);
    const putLengths = this.statement(
      `INSERT OR REPLACE INTO ${kind}_lengths (rowid, ${KEYWORD_FIELDS.join(', ')}) VALUES (?, ${KEYWORD_FIELDS.map(() => '?').join(', ')})`,
    );
    const putIdentifier = this.statement(`INSERT INTO ${kind}_identifiers (key, field, rowid) VALUES (?, ?, ?)`);
    const dropVector = this.statement(`DELETE FROM ${kind}_vectors WHERE rowid = ?`);
    const rowids: number[] = [];
    for (const vector of vectors ?? []) {
      if (vector && vector.length !== this.space.dimensions)
        throw new Error(`a ${vector.length}-dimension vector cannot go into an index of ${this.space.dimensions}`);
    }
    this.invalidateCaches();
    this.db.transaction(() => {
      (records as readonly AnyRecord[]).forEach((record, i) => {
        const row = rowOf(record);
        const { rowid } = upsertRow.get(row) as { rowid: number };
        this.memory.setRow(kind, rowid, record.id, row as unknown as FilterRow & FacetRow);
        putDoc.run(rowid, JSON.stringify(record));
        dropText.run(rowid);
        const text = textColumnsOf(kind, record);
        putText.run(rowid, ...text);
        const lengths = Object.fromEntries(KEYWORD_FIELDS.map((field, i) => [field, analysedLength(text[i]!)])) as Record<KeywordField, number>;
        putLengths.run(rowid, ...KEYWORD_FIELDS.map((field) => lengths[field]));
        this.memory.fieldLengths.set(kind, rowid, lengths);
        dropIdentifiers.run(rowid);
        for (const [field, keys] of Object.entries(identifierKeysOf(kind, record as RecordByKind[K])))
          for (const key of keys) putIdentifier.run(key, field, rowid);
        const vector = vectors?.[i];
        if (vector) putVector.run(rowid, bytesOfVector(vector));
        else dropVector.run(rowid);
        rowids.push(rowid);
      });
    })();
    this.memory.setVectors(kind, rowids, vectors ?? []);
  }

  async remove(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    const find = this.statement(`SELECT rowid FROM ${kind}_rows WHERE id = ?`);
    this.invalidateCaches();
    this.db.transaction(() => {
      for (const id of ids) {
        const row = find.get(id) as { rowid: number } | undefined;
        if (!row) continue;
        for (const table of ['rows', 'docs', 'fts', 'vectors', 'identifiers', 'lengths'])
          this.statement(`DELETE FROM ${kind}_${table} WHERE rowid = ?`).run(row.rowid);
        this.memory.deleteRow(kind, row.rowid);
      }
    })();
  }

  private invalidateCaches(): void {
    this.counts.clear();
    this.memory.facets.clear();
    this.pages.clear();
    this.docs.clear();
    this.rankings.clear();
    this.keywordMatcher.clear();
    this.orderedPages.invalidate();
  }

  /** Writes the WAL into the database file and syncs it (synchronous=NORMAL syncs at checkpoints): what is committed survives a power cut. */
  checkpoint(): void {
    this.db.pragma('wal_checkpoint(FULL)');
  }

  close(): void {
    this.db.close();
    void this.memory.vectors.close();
  }
}
