import { cellOf, type MarkdownTable, matchIn, rowOf, tableWithColumns } from './markdown-tables';
import { MATCH_QUALITY_MARKERS } from './match-report';
import { OPENSEARCH_MARKERS } from './opensearch-report';
import { ENGINE_COMPARISON_MARKERS } from './search-eval/engine-comparison';
import { EMBEDDING_MODEL_MARKERS, SEARCH_QUALITY_MARKERS } from './search-eval/report';
import { cellIn, firstOfPair, leadingNumber, NO_TARGET, runDateOf, type SummaryArea, sectionMarkedBy, targetsCell, targetTableVerdicts } from './summary-cells';

/**
 * The summary rows of search and matching quality (`npm run eval:*`) and of search on OpenSearch
 * (`npm run bench -- --parts opensearch`), each read from its own section of the report.
 */

const MODES = ['hybrid', 'keyword', 'semantic'] as const;

export const SEARCH_QUALITY_AREA: SummaryArea = {
  area: 'Search quality',
  command: 'npm run eval:search',
  section: sectionMarkedBy(SEARCH_QUALITY_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['queries', 'system', 'nDCG@10']);
    // Held-out queries first: the targets are theirs, and tuning figures were looked at while search changed.
    const sets = [...new Set(table.rows.map((row) => row[0]!))].sort((a, b) => Number(b.startsWith('held out')) - Number(a.startsWith('held out')));
    const ndcg = (set: string, system: string) => {
      const row = table.rows.find((r) => r[0] === set && cellOf(table, r, 'system') === system);
      if (!row) throw new Error(`no ${system} row for the ${set} queries`);
      return cellOf(table, row, 'nDCG@10');
    };
    return {
      headline: `nDCG@10 on ../shared/data, ${sets.map((set) => `${set}: ${MODES.map((mode) => `${mode} ${ndcg(set, mode)}`).join(', ')}`).join('; ')}`,
      baseline: `independent BM25: ${sets.map((set) => `${ndcg(set, 'baseline')} ${set.replace(/ \(\d+\)$/, '')}`).join(', ')}`,
      target: targetsCell(targetTableVerdicts(text, (name, value) => `${name} ${value}`)),
      run: runDateOf(text),
    };
  },
};

export const ENGINES_QUALITY_AREA: SummaryArea = {
  area: 'Search quality on OpenSearch',
  command: 'npm run eval:search -- --index opensearch',
  section: sectionMarkedBy(ENGINE_COMPARISON_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['mode', 'nDCG@10 embedded', 'nDCG@10 OpenSearch']);
    const each = (column: string) => MODES.map((mode) => `${mode} ${cellIn(table, mode, column)}`).join(', ');
    const [wanted, verdict, lowest10, lowest100] = matchIn(
      text,
      /Targets: (recall@10 at least [\d.]+ and recall@100 at least [\d.]+) for every filter set: (\w+) \(lowest means ([\d.]+) and ([\d.]+)\)/,
    );
    return {
      headline: `nDCG@10 on OpenSearch: ${each('nDCG@10 OpenSearch')}`,
      baseline: `embedded index, same queries: ${each('nDCG@10 embedded')}`,
      target: `k-NN window ${wanted}: ${verdict === 'PASS' ? 'met' : 'short'} (lowest ${lowest10}, ${lowest100})`,
      run: runDateOf(text),
    };
  },
};

/** The opensearch part's scenario rows, by the first word of their label, as the summary names them. */
const OPENSEARCH_SCENARIOS = [
  ['filtered', 'list'],
  ['keyword', 'keyword'],
  ['semantic', 'semantic'],
  ['hybrid', 'hybrid'],
] as const;

function openSearchFigures(text: string) {
  const table = tableWithColumns(text, ['scenario', 'OpenSearch req/s', 'p50 / p99 ms', 'OpenSearch / embedded']);
  const [seeded] = matchIn(text, /^([\d,]+) grants, the bench's synthetic catalogue/m);
  const derived = table.header.map((column) => /^req\/s at ([\d,]+)$/.exec(column)?.[1]).find(Boolean) ?? null;
  const scenarios = OPENSEARCH_SCENARIOS.map(([first, label]) => ({ first, label, row: rowOf(table, (cell) => cell.startsWith(first)) }));
  return { table, seeded: seeded!, derived, scenarios };
}

/** The lowest mean recall@10 of the k-NN window over the filter sets at `size` (`0.970 (0.60)`: mean, then worst query). */
function lowestWindowRecall(text: string, size: string): string {
  const column = `recall@10 at ${size}`;
  const table: MarkdownTable = tableWithColumns(text, ['filter set', column]);
  const means = table.rows.map((row) => cellOf(table, row, column).split(' ')[0]!);
  return means.reduce((a, b) => (leadingNumber(b) < leadingNumber(a) ? b : a));
}

export const OPENSEARCH_AREA: SummaryArea = {
  area: 'Search speed on OpenSearch',
  command: 'npm run bench -- --parts opensearch',
  section: sectionMarkedBy(OPENSEARCH_MARKERS),
  read({ text }) {
    const { table, seeded, scenarios } = openSearchFigures(text);
    return {
      headline:
        `${seeded} grants, distinct queries, req/s (p50 ms): ${scenarios.map(({ label, row }) => `${label} ${cellOf(table, row, 'OpenSearch req/s')} (${firstOfPair(cellOf(table, row, 'p50 / p99 ms', 1))})`).join(', ')}; ` +
        `k-NN window recall@10 ${lowestWindowRecall(text, seeded)} at the lowest`,
      baseline: `embedded index on the same grants; OpenSearch / embedded req/s: ${scenarios.map(({ label, row }) => `${label} ${cellOf(table, row, 'OpenSearch / embedded')}`).join(', ')}`,
      target: targetsCell(
        targetTableVerdicts(
          text,
          (name, value) => `${name.slice(seeded.length + 2)} ${value}`,
          (name) => name.startsWith(`${seeded}: `),
        ),
      ),
      run: runDateOf(text),
    };
  },
};

export const OPENSEARCH_BIGGER_AREA: SummaryArea = {
  area: 'Search speed on OpenSearch, bigger catalogue',
  command: 'npm run bench -- --parts opensearch',
  section: sectionMarkedBy(OPENSEARCH_MARKERS),
  read({ text }) {
    const { table, seeded, derived, scenarios } = openSearchFigures(text);
    if (!derived) return null;
    const verdicts = targetTableVerdicts(
      text,
      (name, value) => `${name.slice(derived.length + 2)} ${value}`,
      (name) => name.startsWith(`${derived}: `),
    );
    const ratio = (first: string) => cellIn(tableWithColumns(text, ['target', 'value']), (cell) => cell.startsWith(`${derived}: ${first}`), 'value');
    const wanted = [...new Set(verdicts.map((v) => v.wanted))];
    return {
      headline:
        `${derived} grants derived from the ${seeded}, req/s (p50 ms): ${scenarios.map(({ label, row }) => `${label} ${cellOf(table, row, `req/s at ${derived}`)} (${firstOfPair(cellOf(table, row, 'p50 / p99 ms', 2))})`).join(', ')}; ` +
        `k-NN window recall@10 ${lowestWindowRecall(text, derived)} at the lowest`,
      baseline: `p50 over its own at ${seeded}: ${scenarios.map(({ first, label }) => `${label} ${ratio(first)}`).join(', ')}`,
      target: `${targetsCell(verdicts)}${wanted.length === 1 ? `, each wanted ${wanted[0]}` : ''}`,
      run: runDateOf(text),
    };
  },
};

export const MATCH_QUALITY_AREA: SummaryArea = {
  area: 'Grant matching quality',
  command: 'npm run eval:match',
  section: sectionMarkedBy(MATCH_QUALITY_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['measure', 'value']);
    const measure = (start: string) => rowOf(table, (cell) => cell.startsWith(start));
    const precision = measure('mean precision@');
    const [depth] = matchIn(precision[0]!, /precision@(\d+)/);
    const [profiles] = matchIn(precision[0]!, /over the (\d+) profiles/);
    return {
      headline: `precision@${depth} ${precision[1]} over ${profiles} profiles on ../shared/data; eligibility violations ${measure('eligibility violations on ../shared/data')[1]}; no-fit profiles answered ${measure('no-fit profiles answered')[1]}`,
      baseline: `independent BM25 ranking ${measure('the same for an independent BM25 baseline')[1]}`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};

export const EMBEDDING_MODEL_AREA: SummaryArea = {
  area: 'Embedding model',
  command: 'npm run eval:models',
  section: sectionMarkedBy(EMBEDDING_MODEL_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['model', 'records/s', 'query ms', 'floor', 'nDCG@10 at the floor']);
    const chosen = rowOf(table, (cell) => cell.endsWith('(default)'));
    const others = table.rows.filter((row) => row !== chosen);
    const best = others.reduce((a, b) =>
      leadingNumber(cellOf(table, b, 'nDCG@10 at the floor')) > leadingNumber(cellOf(table, a, 'nDCG@10 at the floor')) ? b : a,
    );
    return {
      headline: `${chosen[0]}: nDCG@10 ${cellOf(table, chosen, 'nDCG@10 at the floor')} at its floor ${cellOf(table, chosen, 'floor')}; ${cellOf(table, chosen, 'records/s')} records/s, ${cellOf(table, chosen, 'query ms')} ms a query`,
      baseline: `the best other model in the same run: ${cellOf(table, best, 'nDCG@10 at the floor')} (${best[0]})`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};
