import { betweenMarkers, cellOf, type MarkdownTable, rowOf, tableWithColumns } from './markdown-tables';

/**
 * What the summary table's rows are made of, and the helpers their readers share. A reader gets a
 * section's text as the report holds it and copies figures out of it verbatim, so a summary cell
 * can only repeat what its section says.
 */

/** One row's cells after the area: the figures, the same-run baseline, the target and the run's date. */
export interface SummaryCells {
  headline: string;
  baseline: string;
  target: string;
  run: string;
}

export interface SummarySection {
  /** The section's text, without its markers. */
  text: string;
  /** The heading line the row links to (`## Mixed load`). */
  heading: string;
}

export interface SummaryArea {
  /** The row's first cell, and its key: fixed, whatever the run measured. */
  area: string;
  /** What writes the section, shown while it is absent. */
  command: string;
  section(report: string): SummarySection | null;
  /** Null when the section holds no measurement of this area (a run that left it out). */
  read(section: SummarySection, report: string): SummaryCells | null;
}

export const NO_TARGET = 'none stated';

/** The section between `markers`, or null when it is absent or a placeholder of a run that left the part out. */
export function sectionMarkedBy(markers: { start: string; end: string }) {
  return (report: string): SummarySection | null => {
    const text = betweenMarkers(report, markers);
    if (text === null || /^Not measured/m.test(text)) return null;
    const heading = text.match(/^## .+$/m)?.[0];
    return heading ? { text, heading } : null;
  };
}

/** The date of the run a section reports: its machine line's, else its "Written by ... on" line's. */
export function runDateOf(section: string): string {
  const date = /\bRun (\d{4}-\d{2}-\d{2}) \d{2}:\d{2} UTC/.exec(section) ?? /Written by [^\n]*? on (\d{4}-\d{2}-\d{2})/.exec(section);
  return date?.[1] ?? 'not stated';
}

/** The number a cell starts with (`0.970 (0.60)`, `1,918`), for choosing among cells; never printed. */
export const leadingNumber = (cell: string) => Number(cell.replace(/,/g, '').match(/-?[\d.]+/)?.[0] ?? Number.NaN);

/** A cell's text without its markdown emphasis and code marks. */
export const plain = (cell: string) => cell.replace(/\*\*|`/g, '');

/** The first `p50 / p99` figure of a cell such as `69.58 / 144.90`. */
export const firstOfPair = (cell: string) => cell.split(' / ')[0]!.trim();

export interface TargetVerdict {
  label: string;
  met: boolean;
}

/** A verdict cell as the sections write it (`pass`, `PASS`, `**short**`, `short`, `**FAIL**`). */
export const isMet = (verdict: string) => plain(verdict).trim().toLowerCase() === 'pass';

/** "2 of 3 met", naming what fell short when that fits in a cell (three or fewer). */
export function targetsCell(verdicts: readonly TargetVerdict[]): string {
  if (verdicts.length === 0) return NO_TARGET;
  const short = [...new Set(verdicts.filter((v) => !v.met).map((v) => v.label))];
  const met = verdicts.filter((v) => v.met).length;
  const count = `${met} of ${verdicts.length} met`;
  return short.length === 0 || short.length > 3 ? count : `${count}; short: ${short.join('; ')}`;
}

/** The verdicts of a `target | value | wanted | verdict` table, labelled by `label`. */
export function targetTableVerdicts(
  section: string,
  label: (name: string, value: string) => string,
  keep: (name: string) => boolean = () => true,
): (TargetVerdict & { wanted: string })[] {
  const table = tableWithColumns(section, ['target', 'value', 'wanted', 'verdict']);
  return table.rows
    .filter((row) => keep(cellOf(table, row, 'target')))
    .map((row) => ({
      label: label(cellOf(table, row, 'target'), cellOf(table, row, 'value')),
      met: isMet(cellOf(table, row, 'verdict')),
      wanted: cellOf(table, row, 'wanted'),
    }));
}

/** The cell of `column` in the row whose first cell passes `first`. */
export function cellIn(table: MarkdownTable, first: string | ((cell: string) => boolean), column: string, occurrence = 0): string {
  return cellOf(table, rowOf(table, first), column, occurrence);
}
