import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How the OpenSearch adapter protects a busy domain: vector work (k-NN) is shed before lists, and
 * retries are rationed. Each function instance decides from what its own requests meet.
 */

/** How long vector work stays shed after the domain said it was overloaded (429, 503). */
export const DEFAULT_SHED_MS = 10_000;

/**
 * After the domain answers 429 or 503 (its search queue is full, or it is failing), semantic
 * search and the semantic half of hybrid search are shed for a while: a semantic query is a 503
 * at once and a hybrid query answers from its keyword half, so the domain's threads go to lists
 * and keyword searches, which are cheaper and which every client relies on. Every overload
 * answer met while shedding extends it.
 */
export class VectorLoadShedder {
  private shedUntil = 0;

  constructor(private readonly shedMs = DEFAULT_SHED_MS, private readonly now: () => number = Date.now) {}

  /** The domain said it is overloaded: shed vector work from now for shedMs. */
  overloaded(): void {
    this.shedUntil = Math.max(this.shedUntil, this.now() + this.shedMs);
  }

  /** Milliseconds of shedding left; 0 when vector work goes to the domain. */
  remainingMs(): number {
    return Math.max(0, this.shedUntil - this.now());
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
