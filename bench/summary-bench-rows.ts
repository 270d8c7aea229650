import { ADMIN_MARKERS } from './admin-report';
import { COLDSTART_MARKERS } from './coldstart-report';
import { INGEST_MARKERS } from './ingest-report';
import { KNN_MARKERS } from './knn-report';
import { LOAD_LONG_MARKERS, LOAD_MARKERS } from './load-report';
import { cellOf, matchIn, rowOf, tableWithColumns, underHeading } from './markdown-tables';
import { MATCH_MARKERS } from './match-report';
import { cellIn, isMet, leadingNumber, NO_TARGET, plain, runDateOf, type SummaryArea, type SummaryCells, sectionMarkedBy, targetsCell } from './summary-cells';
import { WEBHOOK_MARKERS } from './webhook-report';

/**
 * The summary rows of the `npm run bench` parts other than OpenSearch, each read from its own
 * section of the report (the tables and sentences its `*-report.ts` writes).
 */

/** The api part's distinct-query scenarios (the query itself, no result cache), as the summary names them. */
const API_SCENARIOS = [
  ['filtered-distinct', 'list'],
  ['search-distinct', 'keyword'],
  ['semantic-distinct', 'semantic'],
  ['hybrid-distinct', 'hybrid'],
] as const;

export const API_AREA: SummaryArea = {
  area: 'API on the embedded index',
  command: 'npm run bench',
  // The api part has no markers: its sections are the report's own, one a catalogue size; the biggest is the headline.
  section(report) {
    const sizes = [...report.matchAll(/^## ([\d,]+) grants$/gm)].map((m) => m[1]!);
    if (sizes.length === 0) return null;
    const heading = `## ${sizes.reduce((a, b) => (leadingNumber(b) > leadingNumber(a) ? b : a))} grants`;
    return { text: underHeading(report, heading) ?? '', heading };
  },
  read({ text, heading }, report) {
    const table = tableWithColumns(text, ['scenario', 'req/s', 'p50 ms', 'vs bare node:http']);
    const rows = API_SCENARIOS.map(([name, label]) => ({ label, row: rowOf(table, name) }));
    const baseline = rowOf(table, (cell) => cell.startsWith('baseline'));
    const targetsHeading = report.match(/^## Targets \(.+\)$/m)?.[0];
    const targets = targetsHeading ? (underHeading(report, targetsHeading) ?? '') : '';
    let target = NO_TARGET;
    if (targets.includes('| target |')) {
      const checks = tableWithColumns(targets, ['target', 'measured', 'result']);
      target = targetsCell(checks.rows.map((row) => ({ label: cellOf(checks, row, 'target').split(':')[0]!, met: isMet(cellOf(checks, row, 'result')) })));
    } else if (targetsHeading) target = 'not evaluated at this size';
    return {
      headline: `${heading.slice(3)}, distinct queries, req/s (p50 ms): ${rows.map(({ label, row }) => `${label} ${cellOf(table, row, 'req/s')} (${cellOf(table, row, 'p50 ms')})`).join(', ')}`,
      baseline: `bare node:http ${cellOf(table, baseline, 'req/s')} req/s; ${rows.map(({ label, row }) => `${label} ${cellOf(table, row, 'vs bare node:http')}`).join(', ')} of it`,
      target,
      run: /\bRun (\d{4}-\d{2}-\d{2}) \d{2}:\d{2} UTC with `npm run bench/.exec(report)?.[1] ?? 'not stated',
    };
  },
};

export const MATCH_SPEED_AREA: SummaryArea = {
  area: 'Grant matching speed',
  command: 'npm run bench -- --parts match',
  section: sectionMarkedBy(MATCH_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['scenario', 'req/s', 'p50 ms', 'vs bare node:http']);
    const [grants] = matchIn(text, /on the ([\d,]+)-grant synthetic catalogue/);
    const distinct = rowOf(table, 'match-distinct');
    return {
      headline: `${grants} grants, a new text each request: ${cellOf(table, distinct, 'req/s')} req/s, p50 ${cellOf(table, distinct, 'p50 ms')} ms; one connection: p50 ${cellIn(table, 'match-distinct-1', 'p50 ms')} ms`,
      baseline: `bare node:http ${cellIn(table, (cell) => cell.startsWith('baseline'), 'req/s')} req/s; ${cellOf(table, distinct, 'vs bare node:http')} of it`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};

export const INGEST_AREA: SummaryArea = {
  area: 'Ingest of ../shared/data',
  command: 'npm run bench -- --parts ingest',
  section: sectionMarkedBy(INGEST_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['pass', 'records/s', 'time', 'vs read and map']);
    const [lines] = matchIn(text, /All ([\d,]+) lines/);
    const pass = (start: string) => rowOf(table, (cell) => cell.startsWith(start));
    const first = pass('first import');
    const again = pass('re-import');
    return {
      headline: `${lines} lines: first import ${cellOf(table, first, 'records/s')} records/s (${cellOf(table, first, 'time')}), re-import ${cellOf(table, again, 'records/s')} records/s (${cellOf(table, again, 'time')})`,
      baseline: `read and map only ${cellOf(table, pass('read and map'), 'records/s')} records/s; first import ${cellOf(table, first, 'vs read and map')}, re-import ${cellOf(table, again, 'vs read and map')} of it`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};

export const KNN_AREA: SummaryArea = {
  area: 'Exact k-NN',
  command: 'npm run bench -- --parts knn',
  section: sectionMarkedBy(KNN_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['ms per query', 'vs bare loop']);
    const [vectors] = matchIn(text, /the ([\d,]+) grant vectors/);
    const [recall] = matchIn(text, /\(recall ([\d.]+)\)/);
    const scan = rowOf(table, (cell) => cell.startsWith('index scan, one query'));
    const batch = rowOf(table, (cell) => /^index scan, \d+ queries/.test(cell));
    const [batchSize] = matchIn(batch[0]!, /(\d+) queries/);
    return {
      headline: `${vectors} vectors: index scan ${cellOf(table, scan, 'ms per query')} ms a query, ${cellOf(table, batch, 'ms per query')} ms each of ${batchSize} in one product; recall ${recall}`,
      baseline: `bare dot-product loop ${cellIn(table, (cell) => cell.startsWith('bare'), 'ms per query')} ms a query; one scan ${cellOf(table, scan, 'vs bare loop')} of it`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};

export const WEBHOOK_AREA: SummaryArea = {
  area: 'Webhook delivery',
  command: 'npm run bench -- --parts webhooks',
  section: sectionMarkedBy(WEBHOOK_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['scenario', 'deliveries/s', 'bare POSTs/s, all at once', 'vs bare', 'p50 ms write→delivery']);
    const each = (column: string) => table.rows.map((row) => cellOf(table, row, column)).join(' and ');
    return {
      headline: table.rows
        .map((row) => `${row[0]}: ${cellOf(table, row, 'deliveries/s')} deliveries/s, p50 ${cellOf(table, row, 'p50 ms write→delivery')} ms write→delivery`)
        .join('; '),
      baseline: `bare POST loop ${each('bare POSTs/s, all at once')} POSTs/s; deliveries ${each('vs bare')} of it`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};

export const ADMIN_AREA: SummaryArea = {
  area: 'Admin commands',
  command: 'npm run bench -- --parts admin',
  section: sectionMarkedBy(ADMIN_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['command', 'stopped ms', 'running ms']);
    const name = (row: string[]) => plain(row[0]!).replace(/ --json$/, '');
    const [floor] = matchIn(text, /The floor is `admin --help` in the same rounds \(([\d,]+) ms\)/);
    return {
      headline: `server running: ${table.rows.map((row) => `${name(row)} ${cellOf(table, row, 'running ms')} ms`).join(', ')}; stopped: ${table.rows.map((row) => cellOf(table, row, 'stopped ms')).join(' and ')} ms`,
      baseline: `admin --help ${floor} ms (the CLI's own start)`,
      target: NO_TARGET,
      run: runDateOf(text),
    };
  },
};

export const COLDSTART_AREA: SummaryArea = {
  area: 'Bundles and cold start',
  command: 'npm run bench -- --parts coldstart',
  section: sectionMarkedBy(COLDSTART_MARKERS),
  read({ text }) {
    const table = tableWithColumns(text, ['function', 'index.mjs KB', 'init ms', 'x empty']);
    const [budget] = matchIn(text, /must stay at or under ([\d.]+) KB/);
    const [largest, largestKb] = matchIn(text, /The largest is `([^`]+)`, ([\d.]+) KB/);
    const functions = table.rows.filter((row) => row[0]!.startsWith('`'));
    const range = (column: string) => {
      const cells = functions.map((row) => cellOf(table, row, column)).sort((a, b) => leadingNumber(a) - leadingNumber(b));
      return `${cells[0]} to ${cells.at(-1)}`;
    };
    return {
      headline: `largest API bundle ${largest} ${largestKb} KB; init ${range('init ms')} ms (every function)`,
      baseline: `empty handler ${cellIn(table, (cell) => cell.startsWith('*empty handler'), 'init ms')} ms init; the functions ${range('x empty')} of it`,
      target: `API bundles at most ${budget} KB: ${leadingNumber(largestKb!) <= leadingNumber(budget!) ? 'met' : 'short'}`,
      run: runDateOf(text),
    };
  },
};

/** The `**all**` row of a load section's table, and the figures every load row states. */
function loadFigures(text: string) {
  const table = tableWithColumns(text, ['kind', 'p50 ms', 'p99 ms', 'req/s', 'errors', 'bare node:http req/s', 'vs bare node:http']);
  const all = rowOf(table, (cell) => plain(cell) === 'all');
  const [grants, duration] = matchIn(text, /([\d,]+) grants,\s+[\d,]+ open\), for ([^:]+):/);
  const [peak] = matchIn(text, /Peak \(VmHWM\) (\d+) MB/);
  const [errors] = matchIn(text, /\*\*Errors: (\d+)\*\*/);
  return { table, all, grants: grants!, duration: duration!, peak: peak!, errors: errors! };
}

export const LOAD_AREA: SummaryArea = {
  area: 'Mixed load',
  command: 'npm run bench:load',
  section: sectionMarkedBy(LOAD_MARKERS),
  read({ text }): SummaryCells {
    const { table, all, grants, duration, peak, errors } = loadFigures(text);
    const [result] = matchIn(text, /Result: \**(pass|FAIL)/);
    return {
      headline: `${grants} grants, every kind at once for ${duration}: ${cellOf(table, all, 'req/s')} req/s, p50 ${cellOf(table, all, 'p50 ms')} ms, p99 ${cellOf(table, all, 'p99 ms')} ms; peak RSS ${peak} MB`,
      baseline: `bare node:http ${cellOf(table, all, 'bare node:http req/s')} req/s; ${cellOf(table, all, 'vs bare node:http')} of it`,
      target: errors === '0' && result === 'pass' ? 'no errors: met' : `no errors: short (${errors} errors, result ${result})`,
      run: runDateOf(text),
    };
  },
};

export const LONG_LOAD_AREA: SummaryArea = {
  area: 'Memory over a long run',
  command: 'npm run bench:load -- --duration 600',
  section: sectionMarkedBy(LOAD_LONG_MARKERS),
  read({ text }): SummaryCells {
    const { table, all, duration, peak, errors } = loadFigures(text);
    const [firstMinute, end, growth, limit, verdict] = matchIn(
      text,
      /(\d+) MB at the end of the first minute, (\d+) MB at the end \([^)]+\); growth \*\*([^*]+)\*\* \(limit ([^)]+)\): \**(pass|FAIL)/,
    );
    return {
      headline: `${duration} of mixed load: RSS ${end} MB at the end, growth ${growth}; peak ${peak} MB; ${cellOf(table, all, 'req/s')} req/s, ${errors} errors`,
      baseline: `${firstMinute} MB at the end of its first minute`,
      target: `growth under ${limit}: ${verdict === 'pass' ? 'met' : 'short'}`,
      run: runDateOf(text),
    };
  },
};
