import { AsyncLocalStorage } from 'node:async_hooks';
import { ServiceError } from '../../core/errors';
import type { SearchMode } from '../../core/query/list-query';
import type { SemanticQuery } from '../../ports/search-index';
import { statusOf } from './opensearch-responses';

/**
 * How the OpenSearch adapter protects a busy domain: vector work (k-NN) is shed before lists, and
 * retries are rationed. Each function instance decides from what its own requests meet.
 */

/** How long vector work stays shed after the domain said it was overloaded (429, 503). */
export const DEFAULT_SHED_MS = 10_000;

/** Retries one query may make in all: enough to ride out a blip, too few to pile onto a busy domain. */
export const QUERY_RETRY_BUDGET = 2;

/** Whether the domain said it is overloaded: a full search queue or tripped breaker (429), or a 503. */
export function isOverload(error: unknown): boolean {
  const status = statusOf(error);
  return status === 429 || status === 503;
}

/**
 * After the domain answers 429 or 503 (its search queue is full, or it is failing), semantic
 * search and the semantic half of hybrid search are shed for a while: a semantic query is a 503
 * at once and a hybrid query answers from its keyword half, so the domain's threads go to lists
 * and keyword searches, which are cheaper and which every client relies on. Every overload
 * answer met while shedding extends it.
 */
export class VectorLoadShedder {
  private shedUntil = 0;

  constructor(
    private readonly shedMs = DEFAULT_SHED_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The domain said it is overloaded: shed vector work from now for shedMs. */
  overloaded(): void {
    this.shedUntil = Math.max(this.shedUntil, this.now() + this.shedMs);
  }

  /** Milliseconds of shedding left; 0 when vector work goes to the domain. */
  remainingMs(): number {
    return Math.max(0, this.shedUntil - this.now());
  }

  /**
   * A query's vector, unless vector work is being shed: then a semantic query is a 503 at once
   * (with Retry-After), and a hybrid one goes on without its vector (its keyword half) and says
   * why. `onShed` hears of each shed search.
   */
  vectorOf(
    mode: SearchMode | undefined,
    semantic: SemanticQuery | undefined,
    onShed: (mode: 'semantic' | 'hybrid') => void,
  ): { semantic?: SemanticQuery; degraded?: string } {
    const remainingMs = this.remainingMs();
    if (remainingMs === 0 || !semantic || mode === 'keyword' || mode === undefined) return { semantic };
    const seconds = Math.ceil(remainingMs / 1_000);
    onShed(mode);
    if (mode === 'semantic') {
      throw new ServiceError(
        503,
        'SEARCH_UNAVAILABLE',
        `The search service is overloaded, so semantic search is paused for ${seconds} s; keyword search (search_mode=keyword) and lists still work: try again shortly`,
        undefined,
        { 'Retry-After': String(seconds) },
      );
    }
    return {
      semantic: { ...semantic, vector: null },
      degraded: `The search service is overloaded, so these are the keyword matches alone, ranked as hybrid search ranks them; semantic matching resumes within ${seconds} s.`,
    };
  }
}

/**
 * The retries one API request may spend on the domain, over all its calls (term counts, the
 * floor, the search, the page): without it, each of a query's calls retrying its own way would
 * multiply the load on a domain that is already refusing work.
 */
export class RetryBudget {
  constructor(private left: number) {}

  /** Whether a retry may be made; takes one from the budget when it may. */
  take(): boolean {
    if (this.left <= 0) return false;
    this.left--;
    return true;
  }
}

const budgets = new AsyncLocalStorage<RetryBudget>();

/** Runs `work` with a retry budget that every OpenSearchHttpClient call inside it draws from. */
export function withRetryBudget<T>(retries: number, work: () => Promise<T>): Promise<T> {
  return budgets.run(new RetryBudget(retries), work);
}

/** The budget of the request under way, if the caller set one (withRetryBudget). */
export function currentRetryBudget(): RetryBudget | undefined {
  return budgets.getStore();
}
