/**
 * Reading back what the report's writers wrote: pipe tables, sections under a heading, and the
 * anchors GitHub gives headings. The summary table is rebuilt from the sections with these, so it
 * can never state a figure the sections below it do not.
 */

export interface MarkdownTable {
  header: string[];
  rows: string[][];
}

/** A table row's cells, split on unescaped pipes and trimmed, escapes undone. */
function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

const isSeparator = (cells: string[]) => cells.length > 0 && cells.every((cell) => /^:?-{3,}:?$/.test(cell));

/** Every pipe table in `text`, in order: a header line, a separator line, then its rows. */
export function markdownTables(text: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trimStart().startsWith('|') || !isSeparator(cellsOf(lines[i + 1]!))) continue;
    const header = cellsOf(lines[i]!);
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.trimStart().startsWith('|'); j++) rows.push(cellsOf(lines[j]!));
    tables.push({ header, rows });
    i = j - 1;
  }
  return tables;
}

/** The first table whose header holds every one of `columns`; throws naming them when none does. */
export function tableWithColumns(text: string, columns: readonly string[]): MarkdownTable {
  const found = markdownTables(text).find((t) => columns.every((column) => t.header.includes(column)));
  if (!found) throw new Error(`no table with the columns ${columns.map((c) => `"${c}"`).join(', ')}`);
  return found;
}

/** The cell of `column` in `row` (the `occurrence`-th column of that name, for headers that repeat one). */
export function cellOf(table: MarkdownTable, row: readonly string[], column: string, occurrence = 0): string {
  const indexes = table.header.flatMap((name, index) => (name === column ? [index] : []));
  const index = indexes[occurrence];
  if (index === undefined) throw new Error(`no column "${column}" (${occurrence + 1})`);
  return row[index] ?? '';
}

/** The row whose first cell is `first` (or passes it, as a test); throws naming it when none is. */
export function rowOf(table: MarkdownTable, first: string | ((cell: string) => boolean)): string[] {
  const test = typeof first === 'string' ? (cell: string) => cell === first : first;
  const row = table.rows.find((r) => test(r[0] ?? ''));
  if (!row) throw new Error(`no row ${typeof first === 'string' ? `"${first}"` : 'passing the test'} in the table of ${table.header.join(' | ')}`);
  return row;
}

/** The capture groups of `pattern` in `text`; throws quoting the pattern when it does not match. */
export function matchIn(text: string, pattern: RegExp): string[] {
  const found = pattern.exec(text);
  if (!found) throw new Error(`no match for ${pattern}`);
  return found.slice(1).map((group) => group ?? '');
}

/** The text between two marker comments, markers excluded, or null when either is missing. */
export function betweenMarkers(report: string, markers: { start: string; end: string }): string | null {
  const start = report.indexOf(markers.start);
  const end = report.indexOf(markers.end, start);
  return start === -1 || end === -1 ? null : report.slice(start + markers.start.length, end);
}

/**
 * The text under a heading line (exact, e.g. `## 5,000 grants`) up to the next heading of the same
 * or a higher level or the next marker comment, or null when the heading is absent.
 */
export function underHeading(report: string, heading: string): string | null {
  const lines = report.split('\n');
  const at = lines.indexOf(heading);
  if (at === -1) return null;
  const level = heading.match(/^#+/)?.[0].length ?? 1;
  let end = at + 1;
  while (end < lines.length && !isHeadingUpTo(lines[end]!, level) && !lines[end]!.startsWith('<!--')) end++;
  return lines.slice(at + 1, end).join('\n');
}

const isHeadingUpTo = (line: string, level: number) => {
  const hashes = line.match(/^(#+) /)?.[1];
  return hashes !== undefined && hashes.length <= level;
};

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(headingText: string): string {
  return headingText
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/**
 * Every heading's anchor in document order, keyed by its line (`## Mixed load`); a repeated
 * heading gets GitHub's `-1`, `-2` suffixes. Lines in fenced code are not headings.
 */
export function headingAnchors(report: string): Map<string, string> {
  const anchors = new Map<string, string>();
  const used = new Map<string, number>();
  let fenced = false;
  for (const line of report.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : line.match(/^#{1,6} (.+)$/);
    if (!heading) continue;
    const slug = slugOf(heading[1]!);
    const seen = used.get(slug) ?? 0;
    used.set(slug, seen + 1);
    if (!anchors.has(line)) anchors.set(line, seen === 0 ? slug : `${slug}-${seen}`);
  }
  return anchors;
}
