import type { ListQuery, SearchMode } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import type { SemanticQuery } from '../../ports/search-index';
import { LRUCache } from 'lru-cache';
import { countBits, type RowBitmap } from './row-bitmap';
import { rankingWithin, type Ranking, type SearchRankers } from './search-rankers';

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

// Rankings hold every match (8-12 bytes a record, a whole catalogue's up to 1.2 MB at 100,000
// grants), so they are kept by size, not by count as counts and pages are.
const MAX_RANKINGS = 64;
const MAX_RANKING_BYTES = 24 * 1024 * 1024;

const rankingBytes = (ranking: Ranking) => ranking.rowids.byteLength + ranking.scores.byteLength + (ranking.relevance?.byteLength ?? 0) + 64;

export class CachedRankings {
  private readonly cache = new LRUCache<string, Ranking>({ max: MAX_RANKINGS, maxSize: MAX_RANKING_BYTES, sizeCalculation: rankingBytes });
  /** Bumped by every write, so a ranking made across a write is not kept. */
  private generation = 0;

  constructor(private readonly rankers: SearchRankers) {}

  clear(): void {
    this.generation++;
    this.cache.clear();
  }

  async of(scope: RankingScope, search: NonNullable<ListQuery['search']>, semantic?: SemanticQuery): Promise<Ranking> {
    const { mode, text } = search;
    if (mode !== 'keyword' && !semantic) throw new Error(`a ${mode} query needs the query vector`);
    const key = rankingKey(scope, mode, text, semantic);
    let ranking = this.cache.get(key);
    if (ranking) return ranking;
    const generation = this.generation;
    const { kind, filters } = scope;
    const among = filters && this.scoresAmong(kind, mode, text, semantic, filters.bits) ? { among: filters.bits } : undefined;
    if (mode === 'hybrid') {
      let { keyword, similar } = among
        ? { keyword: this.rankers.keyword(kind, text, semantic, among), similar: await this.rankers.semantic(kind, semantic!, among) }
        : await this.keywordAndSemantic(kind, text, semantic!);
      if (filters && !among) [keyword, similar] = [rankingWithin(keyword, filters.bits), rankingWithin(similar, filters.bits)];
      ranking = this.rankers.hybrid(kind, keyword, similar, semantic!);
    } else if (among) {
      ranking = mode === 'keyword' ? this.rankers.keyword(kind, text, semantic, among) : await this.rankers.semantic(kind, semantic!, among);
    } else if (filters) {
      ranking = rankingWithin(await this.of({ kind }, search, semantic), filters.bits);
    } else if (mode === 'keyword') {
      ranking = this.rankers.keyword(kind, text, semantic);
    } else {
      ranking = await this.rankers.semantic(kind, semantic!);
    }
    // A write while the vectors were scanned may have changed the answer: not kept for others.
    if (generation === this.generation) this.cache.set(key, ranking);
    return ranking;
  }

  /**
   * Whether to score only the rows the filters keep, not narrow the whole catalogue's ranking:
   * when that ranking is not made yet and the filters keep at most FILTERED_SCORING_SHARE of the
   * records. A SIMD product per row costs about four times a row's share of the product over every
   * vector, so scoring a few rows beats scoring all; the whole ranking pays off when the same text
   * comes back with other filters.
   */
  private scoresAmong(kind: ResourceKind, mode: SearchMode, text: string, semantic: SemanticQuery | undefined, bits: RowBitmap): boolean {
    const whole = (wholeMode: SearchMode) => this.cache.has(rankingKey({ kind }, wholeMode, text, semantic));
    if (mode === 'hybrid' ? whole('keyword') && whole('semantic') : whole(mode)) return false;
    return countBits(bits) <= FILTERED_SCORING_SHARE * this.rankers.size(kind);
  }

  /** Hybrid search's two whole-catalogue lists: from the cache, or both from one product over the vectors. */
  private async keywordAndSemantic(kind: ResourceKind, text: string, semantic: SemanticQuery): Promise<{ keyword: Ranking; similar: Ranking }> {
    const keywordKey = rankingKey({ kind }, 'keyword', text, semantic);
    const semanticKey = rankingKey({ kind }, 'semantic', text, semantic);
    const [keyword, similar] = [this.cache.get(keywordKey), this.cache.get(semanticKey)];
    if (keyword && similar) return { keyword, similar };
    if (keyword || similar) {
      return {
        keyword: keyword ?? (await this.of({ kind }, { mode: 'keyword', text }, semantic)),
        similar: similar ?? (await this.of({ kind }, { mode: 'semantic', text }, semantic)),
      };
    }
    const generation = this.generation;
    const both = await this.rankers.keywordAndSemantic(kind, text, semantic);
    if (generation === this.generation) {
      this.cache.set(keywordKey, both.keyword);
      this.cache.set(semanticKey, both.semantic);
    }
    return { keyword: both.keyword, similar: both.semantic };
  }
}

/** What identifies a ranking: its scope, the mode and text, and the query vector with its scale. */
function rankingKey(scope: RankingScope, mode: SearchMode, text: string, semantic?: SemanticQuery): string {
  const vectorKey = semantic?.vector ? Buffer.from(semantic.vector.buffer, semantic.vector.byteOffset, semantic.vector.byteLength).toString('base64') : '';
  return JSON.stringify([scope.kind, scope.filters?.key ?? null, mode, text, semantic ? [vectorKey, semantic.scale] : null]);
}
