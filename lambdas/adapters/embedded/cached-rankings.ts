import type { ListQuery, SearchMode } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import type { SemanticQuery } from '../../ports/search-index';
import { LRUCache } from 'lru-cache';
import { countBits, type RowBitmap } from './row-bitmap';
import { narrowedRanking, type Ranking } from './ranked-set';
import type { FloorMatches, SearchRankers } from './search-rankers';

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

/** The largest share of a kind's records the filters may keep for a new text to be scored among them alone. */
const FILTERED_SCORING_SHARE = 0.1;

// Rankings and floor matches hold every match (8 bytes a record, a whole catalogue's up to 800 KB
// at 100,000 grants), so they are kept by size, not by count as counts and pages are: enough for
// the last few dozen texts, each paged through or tried with other filters or modes.
const MAX_RANKINGS = 64;
const MAX_RANKING_BYTES = 16 * 1024 * 1024;
const MAX_SCAN_BYTES = 8 * 1024 * 1024;

const rankingBytes = (ranking: Ranking) => ranking.rowids.byteLength + ranking.scores.byteLength + 64;
const floorMatchesBytes = ({ found, bits }: FloorMatches) => found.rowids.byteLength + found.cosines.byteLength + bits.byteLength + 64;

export class CachedRankings {
  private readonly cache = new LRUCache<string, Ranking>({ max: MAX_RANKINGS, maxSize: MAX_RANKING_BYTES, sizeCalculation: rankingBytes });
  /**
   * Each text's floor matches (a scan of every vector), for its rankings in every mode: a text
   * searched in keyword mode and then in hybrid or semantic mode is scanned once.
   */
  private readonly scans = new LRUCache<string, FloorMatches>({ max: MAX_RANKINGS, maxSize: MAX_SCAN_BYTES, sizeCalculation: floorMatchesBytes });
  /** Scans under way, shared: concurrent searches for one text scan once. */
  private readonly scanning = new Map<string, Promise<FloorMatches>>();
  /** Bumped by every write, so a ranking made across a write is not kept. */
  private generation = 0;

  constructor(private readonly rankers: SearchRankers) {}

  clear(): void {
    this.generation++;
    this.cache.clear();
    this.scans.clear();
    this.scanning.clear();
  }

  async of(scope: RankingScope, search: NonNullable<ListQuery['search']>, semantic?: SemanticQuery): Promise<Ranking> {
    const { mode, text } = search;
    if (mode !== 'keyword' && !semantic) throw new Error(`a ${mode} query needs the query vector`);
    const key = rankingKey(scope, mode, text, semantic);
    let ranking = this.cache.get(key);
    if (ranking) return ranking;
    const generation = this.generation;
    const { kind, filters } = scope;
    if (filters && this.scoresAmong(kind, mode, text, semantic, filters.bits)) {
      const among = { among: filters.bits };
      ranking = mode === 'hybrid'
        ? this.rankers.hybrid(kind, await this.rankers.keyword(kind, text, semantic, among), await this.rankers.semantic(kind, semantic!, among), semantic!)
        : mode === 'keyword' ? await this.rankers.keyword(kind, text, semantic, among) : await this.rankers.semantic(kind, semantic!, among);
    } else if (mode === 'hybrid') {
      // The semantic list needs the scan of every vector: made first, the keyword gate reads it too.
      await this.floorMatches(kind, semantic!);
      // Fusion scales BM25 by the best keyword match the filters keep: the two lists are narrowed, then fused.
      const narrowed = (whole: Ranking) => (filters ? narrowedRanking(whole, filters.bits) : whole);
      const keyword = narrowed(await this.of({ kind }, { mode: 'keyword', text }, semantic));
      const similar = narrowed(await this.of({ kind }, { mode: 'semantic', text }, semantic));
      ranking = this.rankers.hybrid(kind, keyword, similar, semantic!);
    } else if (filters) {
      ranking = narrowedRanking(await this.of({ kind }, search, semantic), filters.bits);
    } else if (mode === 'keyword') {
      const scanned = semantic?.vector ? this.scans.get(scanKey(kind, semantic)) : undefined;
      ranking = await this.rankers.keyword(kind, text, semantic, { ...(scanned ? { floor: scanned } : {}), ...(semantic ? { scanFloor: () => this.floorMatches(kind, semantic) } : {}) });
    } else {
      ranking = await this.rankers.semantic(kind, semantic!, { floor: await this.floorMatches(kind, semantic!) });
    }
    // A write while the vectors were scanned may have changed the answer: not kept for others.
    if (generation === this.generation) this.cache.set(key, ranking);
    return ranking;
  }

  /**
   * Whether to score only the rows the filters keep, not narrow the whole catalogue's ranking:
   * when that ranking is not made yet and the filters keep at most FILTERED_SCORING_SHARE of the
   * records. Scoring a few rows apart beats a scan of every vector; the whole ranking pays off when
   * the same text comes back with other filters.
   */
  private scoresAmong(kind: ResourceKind, mode: SearchMode, text: string, semantic: SemanticQuery | undefined, bits: RowBitmap): boolean {
    const whole = (wholeMode: SearchMode) => this.cache.has(rankingKey({ kind }, wholeMode, text, semantic));
    if (mode === 'hybrid' ? whole('keyword') && whole('semantic') : whole(mode)) return false;
    if (semantic?.vector && this.scans.has(scanKey(kind, semantic))) return false;
    return countBits(bits) <= FILTERED_SCORING_SHARE * this.rankers.size(kind);
  }

  /** The text's floor matches over the whole kind: one scan, shared by the rankings of every mode. */
  private floorMatches(kind: ResourceKind, semantic: SemanticQuery): Promise<FloorMatches> {
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

const vectorKeyOf = (vector: Float32Array | null) => (vector ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : '');

function scanKey(kind: ResourceKind, semantic: SemanticQuery): string {
  return JSON.stringify([kind, vectorKeyOf(semantic.vector), semantic.scale.floor]);
}

/** What identifies a ranking: its scope, the mode and text, and the query vector with its scale. */
function rankingKey(scope: RankingScope, mode: SearchMode, text: string, semantic?: SemanticQuery): string {
  return JSON.stringify([scope.kind, scope.filters?.key ?? null, mode, text, semantic ? [vectorKeyOf(semantic.vector), semantic.scale] : null]);
}
