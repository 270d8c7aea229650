/**
 * Whether `relevance` tells a strong match from a weak one: the relevance the service gave the
 * results in its top 10, grouped by the judges' grade of each result. Computed over the labelled
 * queries' answers, semantic and hybrid mode (keyword mode carries no relevance).
 */
import { table } from '../format';
import { median } from '../summary';
import type { ScoredRun } from './judgements';
import type { SystemName } from './systems';

const MODES: readonly SystemName[] = ['semantic', 'hybrid'];
const GROUPS = ['3', '2', '1', '0', 'unjudged'] as const;

export function relevanceByGradeLines(run: ScoredRun, depth = 10): string[] {
  const rows = MODES.map((mode) => {
    const byGroup = new Map<string, number[]>(GROUPS.map((group) => [group, []]));
    for (const [queryId, answers] of run.answers) {
      const grades = run.grades.get(queryId)!;
      for (const hit of answers[mode].hits.slice(0, depth)) {
        if (hit.relevance === null) continue;
        const grade = grades.get(hit.id);
        byGroup.get(grade === undefined ? 'unjudged' : String(grade))!.push(hit.relevance);
      }
    }
    return [
      mode,
      ...GROUPS.map((group) => {
        const values = byGroup.get(group)!;
        return values.length === 0 ? '-' : `${median(values).toFixed(3)} (${values.length})`;
      }),
    ];
  });
  return [
    `Relevance of the top ${depth} results by the judges' grade (median, and how many results), labelled queries:`,
    '',
    table(['mode', 'graded 3', 'graded 2', 'graded 1', 'graded 0', 'unjudged'], rows),
  ];
}
