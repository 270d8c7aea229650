import type { Clock } from '../../lambdas/ports/clock';

/**
 * The date every search evaluation runs on: "open" depends on it (deadlines, archive dates, stale
 * listings), so without a pinned date the collection, and every figure, would drift day by day.
 */
export const EVAL_DATE = '2026-11-25';

export const pinnedClock = (date: string): Clock => ({ now: () => new Date(`${date}T12:00:00Z`) });
