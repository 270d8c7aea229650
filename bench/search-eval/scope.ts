import type { OpportunityKind } from './collection';

/**
 * What the evaluation searches. `catalogue` (the default): every opportunity that is not an
 * award, open or closed, so ranking is measured over the whole of ../shared/data (on the pinned
 * date only ~800 grants and ~30 contracts are still applyable, too few to tell rankings apart,
 * and most judged records have closed). `applyable`: the default listing, what a grant seeker
 * sees without filters.
 */
export const EVAL_SCOPES = ['catalogue', 'applyable'] as const;
export type EvalScope = (typeof EVAL_SCOPES)[number];

/** The list parameters that give a scope (added to every query of the run, the collection's listing included). */
export function scopeParams(kind: OpportunityKind, scope: EvalScope): Record<string, string[]> {
  if (scope === 'applyable') return {};
  return { status: [kind === 'grant' ? 'posted,forecasted,closed' : 'open,closed'] };
}
