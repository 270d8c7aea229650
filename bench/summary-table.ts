import { writeFileSync } from 'node:fs';
import { headingAnchors } from './markdown-tables';
import { ADMIN_AREA, API_AREA, COLDSTART_AREA, INGEST_AREA, KNN_AREA, LOAD_AREA, LONG_LOAD_AREA, MATCH_SPEED_AREA, WEBHOOK_AREA } from './summary-bench-rows';
import type { SummaryArea, SummaryCells } from './summary-cells';
import {
  EMBEDDING_MODEL_AREA,
  ENGINES_QUALITY_AREA,
  MATCH_QUALITY_AREA,
  OPENSEARCH_AREA,
  OPENSEARCH_BIGGER_AREA,
  SEARCH_QUALITY_AREA,
} from './summary-search-rows';

/**
 * The summary table docs/benchmarks.md opens with: one row an area, rebuilt from the sections
 * below it whenever any writer (`npm run bench`, `bench:load`, `eval:*`) rewrites the report. A
 * writer changes only its own section, so only that section's row can change; the rows come from
 * the report alone, so the table never states a figure the sections do not.
 */

export const SUMMARY_MARKERS = {
  start: '<!-- summary: rebuilt from the sections below by every writer of this file; alone: npm run bench -- --parts summary -->',
  end: '<!-- end of summary -->',
} as const;

/** The rows in the order a reader meets them: the API, search, matching, then the rest of the service. */
export const SUMMARY_AREAS: readonly SummaryArea[] = [
  API_AREA,
  SEARCH_QUALITY_AREA,
  ENGINES_QUALITY_AREA,
  OPENSEARCH_AREA,
  OPENSEARCH_BIGGER_AREA,
  MATCH_SPEED_AREA,
  MATCH_QUALITY_AREA,
  INGEST_AREA,
  KNN_AREA,
  WEBHOOK_AREA,
  ADMIN_AREA,
  COLDSTART_AREA,
  LOAD_AREA,
  LONG_LOAD_AREA,
  EMBEDDING_MODEL_AREA,
];

export interface SummaryRow extends SummaryCells {
  area: string;
  /** The heading line of the section the row comes from; null while the section is absent. */
  heading: string | null;
}

const SUMMARY_HEADING = '## Summary';

/**
 * One row an area, read from `report` (the summary block itself ignored); a section that is
 * absent gives a "not measured yet" row, one that cannot be read a row saying so and a problem.
 */
export function summaryRows(report: string, areas: readonly SummaryArea[] = SUMMARY_AREAS): { rows: SummaryRow[]; problems: string[] } {
  const body = withoutSummary(report);
  const problems: string[] = [];
  const rows = areas.map((area): SummaryRow => {
    const section = area.section(body);
    const absent = {
      area: area.area,
      heading: section?.heading ?? null,
      headline: `not measured yet: \`${area.command}\``,
      baseline: '-',
      target: '-',
      run: '-',
    };
    if (!section) return absent;
    try {
      const cells = area.read(section, body);
      return cells ? { area: area.area, heading: section.heading, ...cells } : { ...absent, heading: null };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      problems.push(`${area.area}: ${message}`);
      return { ...absent, headline: 'figures not read: its section changed shape (bench/summary-*-rows.ts reads it)' };
    }
  });
  return { rows, problems };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The summary block, markers included, linking each row to its section's anchor in `report`. */
export function renderSummaryBlock(rows: readonly SummaryRow[], report: string): string {
  // The block's own heading comes first, so it cannot shift the anchors of headings that repeat.
  const anchors = headingAnchors(`${SUMMARY_HEADING}\n${withoutSummary(report)}`);
  const areaCell = (row: SummaryRow) => {
    const anchor = row.heading ? anchors.get(row.heading) : undefined;
    return anchor ? `[${cell(row.area)}](#${anchor})` : cell(row.area);
  };
  return [
    SUMMARY_MARKERS.start,
    SUMMARY_HEADING,
    '',
    'Each row repeats figures from the section its area links to, beside the baseline measured in the same run; "run" is the date that run measured them.',
    'Every writer of this file rebuilds the table from the sections below (`bench/summary-table.ts`; alone: `npm run bench -- --parts summary`); rerun rather than edit by hand.',
    '',
    '| area | headline | same-run baseline | target | run |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${[areaCell(row), row.headline, row.baseline, row.target, row.run].map(cell).join(' | ')} |`),
    SUMMARY_MARKERS.end,
  ].join('\n');
}

/** `report` without its summary block (and the blank lines after it), or as it is when it has none. */
export function withoutSummary(report: string): string {
  const start = report.indexOf(SUMMARY_MARKERS.start);
  const end = report.indexOf(SUMMARY_MARKERS.end, start);
  if (start === -1 || end === -1) return report;
  return report.slice(0, start) + report.slice(end + SUMMARY_MARKERS.end.length).replace(/^\n+/, '');
}

/**
 * `report` with its summary rebuilt from its sections, right under its title (`# ...`, which is
 * added when missing); everything else is kept as it is.
 */
export function refreshSummary(report: string): { report: string; problems: string[] } {
  const body = withoutSummary(report);
  const { rows, problems } = summaryRows(body);
  const block = renderSummaryBlock(rows, body);
  const title = /^# .*$/m.exec(body);
  if (!title) return { report: `# Benchmarks\n\n${block}\n${body.trim() ? `\n${body.trimStart()}` : ''}`, problems };
  const afterTitle = title.index + title[0].length;
  const rest = body.slice(afterTitle).replace(/^\n+/, '');
  return { report: `${body.slice(0, afterTitle)}\n\n${block}\n${rest ? `\n${rest}` : ''}`, problems };
}

/**
 * Writes `report` to `path` with its summary rebuilt. A summary that cannot be built never costs
 * the sections a long run measured: they are written as they are, and the problem is logged.
 */
export function writeReportWithSummary(path: string, report: string, log: (line: string) => void = console.error): void {
  let written = report;
  try {
    const refreshed = refreshSummary(report);
    written = refreshed.report;
    for (const problem of refreshed.problems) log(`summary table: ${problem}`);
  } catch (error) {
    log(`summary table not rebuilt: ${error instanceof Error ? error.message : String(error)}`);
  }
  writeFileSync(path, written);
}
