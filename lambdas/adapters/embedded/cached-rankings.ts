import { LRUCache } from 'lru-cache';
import type { ListQuery } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import { answersHybrid, fixedQueryFloor, type QueryFloor } from '../../core/search/query-floor';
import type { SemanticQuery } from '../../ports/search-index';
import { narrowedRanking, type Ranking } from './ranked-set';
import { countBits, type RowBitmap } from './row-bitmap';
import { type FloorMatches, type SearchRankers, scanFloorOf } from './search-rankers';

/**
 * The embedded index's rankings, cached until the next write: the whole catalogue's ranking of a
 * text in each mode, and each filtered one narrowed from it (search-rankers.ts says why the order
 * carries over). A user narrowing a search with one filter after another has the text scored
 * once; a text never searched before pays for its whole-catalogue ranking once.
 */

/** Which records a ranking is over: a kind's, all of them or those passing filters (their bitmap, and a key naming them). */
export interface RankingScope {
  kind: ResourceKind;
  filters?: { key: string; bits: RowBitmap };
}

/** A ranking, and (semantic and hybrid) the query floor it was made at. */
export interface RankedAnswer {
  ranking: Ranking;
  floor?: QueryFloor;
}

/** The largest share of a kind's records the filters may keep for a new keyword text to be scored among them alone. */
const FILTERED_SCORING_SHARE = 0.1;

// Rankings and scans hold every match (8 bytes a record), so they are kept by size, not by count as counts and pages are: enough for the
// last few dozen texts, each paged through or tried with other filters or modes.
const MAX_RANKINGS = 64;
const MAX_RANKING_BYTES = 16 * 1024 * 1024;
const MAX_SCAN_BYTES = 8 * 1024 * 1024;

const rankingBytes = (ranking: Ranking) => ranking.rowids.byteLength + ranking.scores.byteLength + 64;
const floorMatchesBytes = ({ found, bits }: FloorMatches) => found.rowids.byteLength + found.cosines.byteLength + bits.byteLength + 64;

export class CachedRankings {
  private readonly cache = new LRUCache<string, Ranking>({ max: MAX_RANKINGS, maxSize: MAX_RANKING_BYTES, sizeCalculation: rankingBytes });
  /** Each text's scan of every vector, for its floor and its rankings in both vector modes. */
  private readonly scans = new LRUCache<string, FloorMatches>({ max: MAX_RANKINGS, maxSize: MAX_SCAN_BYTES, sizeCalculation: floorMatchesBytes });
  /** Scans under way, shared: concurrent searches for one text scan once. */
  private readonly scanning = new Map<string, Promise<FloorMatches>>();
  /** Each text's floor (query-floor.ts), from its scan and its words over the whole kind. */
  private readonly floors = new LRUCache<string, QueryFloor>({ max: 1000 });
  /** Bumped by every write, so a ranking made across a write is not kept. */
  private generation = 0;

  constructor(private readonly rankers: SearchRankers) {}

  clear(): void {
    this.generation++;
    this.cache.clear();
    this.scans.clear();
    this.scanning.clear();
    this.floors.clear();
  }

  async of(scope: RankingScope, search: NonNullable<ListQuery['search']>, semantic?: SemanticQuery): Promise<RankedAnswer> {
    const { mode, text } = search;
    if (mode === 'keyword') return { ranking: this.keyword(scope, text) };
    if (!semantic) throw new Error(`a ${mode} query needs the query vector`);
    const generation = this.generation;
    const floor = await this.queryFloor(scope.kind, text, semantic);
    const key = rankingKey(scope, mode, text, semantic);
    let ranking = this.cache.get(key);
    if (ranking) return { ranking, floor };
    const narrowed = (whole: Ranking) => (scope.filters ? narrowedRanking(whole, scope.filters.bits) : whole);
    if (mode === 'semantic') {
      ranking = narrowed(await this.semanticWhole(scope.kind, text, semantic, floor));
    } else if (!semantic.vector) {
      // The model did not answer (list-records.ts): the keyword matches alone, ranked as hybrid ranks them.
      ranking = this.rankers.hybrid(scope.kind, this.keyword(scope, text), emptyRanking(), semantic);
    } else if (!answersHybrid(floor)) {
      // Off topic: whatever its words match, hybrid search answers nothing.
      ranking = this.rankers.hybrid(scope.kind, emptyRanking(), emptyRanking(), semantic);
    } else {
      // Fusion reads both lists as the filters narrow them.
      const keyword = this.keyword(scope, text);
      const similar = narrowed(await this.semanticWhole(scope.kind, text, semantic, floor));
      ranking = this.rankers.hybrid(scope.kind, keyword, similar, semantic);
    }
    // A write while the vectors were scanned may have changed the answer: not kept for others.
    if (generation === this.generation) this.cache.set(key, ranking);
    return { ranking, floor };
  }

  /** The keyword ranking in scope: scored among the filtered rows alone when they are few and the whole ranking is not made yet. */
  private keyword(scope: RankingScope, text: string): Ranking {
    const key = rankingKey(scope, 'keyword', text);
    let ranking = this.cache.get(key);
    if (ranking) return ranking;
    const { kind, filters } = scope;
    if (!filters) ranking = this.rankers.keyword(kind, text);
    else if (!this.cache.has(rankingKey({ kind }, 'keyword', text)) && countBits(filters.bits) <= FILTERED_SCORING_SHARE * this.rankers.size(kind)) {
      ranking = this.rankers.keyword(kind, text, filters.bits);
    } else {
      ranking = narrowedRanking(this.keyword({ kind }, text), filters.bits);
    }
    this.cache.set(key, ranking);
    return ranking;
  }

  private async semanticWhole(kind: ResourceKind, text: string, semantic: SemanticQuery, floor: QueryFloor): Promise<Ranking> {
    const key = rankingKey({ kind }, 'semantic', text, semantic);
    const generation = this.generation;
    let ranking = this.cache.get(key);
    if (ranking) return ranking;
    ranking = this.rankers.semantic(kind, semantic, await this.scan(kind, semantic), floor);
    if (generation === this.generation) this.cache.set(key, ranking);
    return ranking;
  }

  /** The text's floor over the whole kind, from its scan and its words. */
  async queryFloor(kind: ResourceKind, text: string, semantic: SemanticQuery): Promise<QueryFloor> {
    if (semantic.fixedFloor !== undefined) return fixedQueryFloor(semantic.fixedFloor);
    const key = rankingKey({ kind }, 'floor', text, semantic);
    const known = this.floors.get(key);
    if (known) return known;
    const generation = this.generation;
    const floor = this.rankers.queryFloor(kind, text, semantic, await this.scan(kind, semantic));
    if (generation === this.generation) this.floors.set(key, floor);
    return floor;
  }

  /** The text's scan over the whole kind: one, shared by the floor and the rankings of both vector modes. */
  private scan(kind: ResourceKind, semantic: SemanticQuery): Promise<FloorMatches> {
    const key = scanKey(kind, semantic);
    const done = this.scans.get(key);
    if (done) return Promise.resolve(done);
    let scan = this.scanning.get(key);
    if (!scan) {
      const generation = this.generation;
      const started = this.rankers.floorMatches(kind, semantic);
      const settled = () => {
        if (this.scanning.get(key) === started) this.scanning.delete(key);
      };
      // A failed scan, or one a write overtook, is not kept.
      started.then((found) => {
        settled();
        if (generation === this.generation) this.scans.set(key, found);
      }, settled);
      this.scanning.set(key, started);
      scan = started;
    }
    return scan;
  }
}

const emptyRanking = (): Ranking => ({
  rowids: new Int32Array(0),
  scores: new Float32Array(0),
  sortedTo: 0,
  ids: { rankOf: new Int32Array(0), rowidAt: new Int32Array(0) },
});

const vectorKeyOf = (vector: Float32Array | null) => (vector ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : '');

function scanKey(kind: ResourceKind, semantic: SemanticQuery): string {
  return JSON.stringify([kind, vectorKeyOf(semantic.vector), scanFloorOf(semantic)]);
}

/** What identifies a ranking: its scope, the mode and text, and the query vector with its scale. */
function rankingKey(scope: RankingScope, mode: string, text: string, semantic?: SemanticQuery): string {
  return JSON.stringify([
    scope.kind,
    scope.filters?.key ?? null,
    mode,
    text,
    semantic ? [vectorKeyOf(semantic.vector), semantic.scale, semantic.fixedFloor ?? null] : null,
  ]);
}
