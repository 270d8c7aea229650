import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN_MARKERS, adminSection } from '../../bench/admin-report';
import { knnSection } from '../../bench/knn-report';
import { LOAD_MARKERS } from '../../bench/load-report';
import type { MachineInfo } from '../../bench/machine';
import { headingAnchors, markdownTables, slugOf } from '../../bench/markdown-tables';
import { BENCH_PARTS, parseBenchOptions } from '../../bench/options';
import { ADMIN_AREA, KNN_AREA } from '../../bench/summary-bench-rows';
import {
  refreshSummary,
  SUMMARY_AREAS,
  SUMMARY_MARKERS,
  type SummaryRow,
  summaryRows,
  withoutSummary,
  writeReportWithSummary,
} from '../../bench/summary-table';

// The summary table docs/benchmarks.md opens with (bench/summary-table.ts): rows read back from the
// report's own sections, placed under the title, one row changed by one section's rewrite.

const machine: MachineInfo = {
  cpus: 2,
  cpuModel: 'Test CPU',
  memoryBytes: 2 ** 34,
  node: 'v20.0.0',
  loadAverage: [1, 1, 1],
  startedAt: new Date('2026-11-26T18:46:00Z'),
  code: 'commit abc1234',
};

const scenarioTable = (rows: string[][]) =>
  [
    '| scenario | req/s | p50 ms | p99 ms | vs bare node:http | RSS MB | req/s per round |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

const apiSize = (grants: string, scale: number) => `## ${grants} grants

${grants} grants in the catalogue.

${scenarioTable([
  ['baseline (bare node:http)', `${30 * scale},000`, '0.25', '0.94', '100%', '83', '-'],
  ['filtered', '5,267', '1.70', '4.09', '16.6%', '530', '-'],
  ['filtered-distinct', `${2 * scale},406`, '3.75', '9.33', '7.5%', '531', '-'],
  ['search-distinct', '1,918', '3.92', '16.91', '6.0%', '520', '-'],
  ['semantic-distinct', '1,230', '6.13', '22.44', '3.9%', '543', '-'],
  ['hybrid-distinct', '500', '17.25', '45.80', '1.6%', '555', '-'],
])}`;

const adminFixture = (running: string) => `${ADMIN_MARKERS.start}
## Admin commands: running server and stopped folder

The floor is \`admin --help\` in the same rounds (895 ms): the CLI's own start, which both ways pay.

| command | stopped ms | running ms | stopped / running | stopped above floor | running above floor |
| --- | --- | --- | --- | --- | --- |
| \`keys list --json\` | 1,613 | ${running} | 1.5x | 718 | 194 |
| \`local stats --json\` | 1,574 | 1,040 | 1.5x | 679 | 145 |

Machine: \`nproc\` 2. Run 2026-11-26 18:46 UTC.
${ADMIN_MARKERS.end}`;

const loadFixture = `${LOAD_MARKERS.start}
## Mixed load

Every kind of request at once against one API server (\`bin/local.ts\` on \`bench/.data/grants-100000\`, 100,000 grants,
71,601 open), for 60 s: each kind from its own autocannon instance.

| kind | connections | requests | p50 ms | p99 ms | req/s | errors | bare node:http req/s | vs bare node:http |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| list | 3 | 1,657 | 105.68 | 236.25 | 27.6 | 0 | 3,644 | 0.76% |
| **all** | 12 | 4,383 | 120.27 | 705.93 | 73.0 | 0 | 14,549 | 0.50% |

**Errors: 0** (API 0, baseline 0); the run fails on any. Result: pass.

Server RSS: 866 MB before the run, 830 MB at the end of the first minute, 839 MB at the end (60 s); growth not checked. Peak (VmHWM) 976 MB; samples 797-866 MB.

Run 2026-11-26 06:48 UTC.
${LOAD_MARKERS.end}`;

const header =
  'Written by `npm run bench` (`bench/run.ts`); rerun it rather than editing by hand.\n\nRun 2026-11-27 21:43 UTC with `npm run bench -- --parts api`.';
const targets = `## Targets (100,000 grants, 10 connections)

| target | measured | result |
| --- | --- | --- |
| filtered: p99 < 25 ms | 4.1 ms | pass |
| search-new-text: p50 <= 10 ms and req/s >= 500 (issue 24) | p50 46.6 ms | **short** |
| search-new-text: p99 < 25 ms | 85.0 ms | **short** |`;

const report = (admin = adminFixture('1,090'), load = loadFixture) =>
  [`# Benchmarks`, header, targets, apiSize('5,000', 1), apiSize('100,000', 2), load, admin].join('\n\n');

const rowOf = (rows: SummaryRow[], area: string) => rows.find((row) => row.area === area)!;
const blockOf = (text: string) => text.slice(text.indexOf(SUMMARY_MARKERS.start), text.indexOf(SUMMARY_MARKERS.end));

describe('markdown read back', () => {
  it('reads pipe tables, with escaped pipes kept in their cell', () => {
    const [first, second] = markdownTables('text\n\n| a | b |\n| --- | --- |\n| 1 \\| 2 | 3 |\n\n| c |\n| :---: |\n| 4 |\n');
    expect(first).toEqual({ header: ['a', 'b'], rows: [['1 | 2', '3']] });
    expect(second).toEqual({ header: ['c'], rows: [['4']] });
  });

  it('anchors headings as GitHub does, numbering repeats and skipping fenced code', () => {
    expect(slugOf('Search quality on ../shared/data')).toBe('search-quality-on-shareddata');
    expect(slugOf('Targets (100,000 grants, 10 connections)')).toBe('targets-100000-grants-10-connections');
    const anchors = headingAnchors('## Mixed load\n```sh\n# Mixed load\n```\n### Mixed load\n## 5,000 grants');
    expect([...anchors.entries()]).toEqual([
      ['## Mixed load', 'mixed-load'],
      ['### Mixed load', 'mixed-load-1'],
      ['## 5,000 grants', '5000-grants'],
    ]);
  });
});

describe('summary rows, read from the sections', () => {
  it('reads the api part from its biggest catalogue, its targets and the run header', () => {
    const api = rowOf(summaryRows(report()).rows, 'API on the embedded index');
    expect(api).toEqual({
      area: 'API on the embedded index',
      heading: '## 100,000 grants',
      headline: '100,000 grants, distinct queries, req/s (p50 ms): list 4,406 (3.75), keyword 1,918 (3.92), semantic 1,230 (6.13), hybrid 500 (17.25)',
      baseline: 'bare node:http 60,000 req/s; list 7.5%, keyword 6.0%, semantic 3.9%, hybrid 1.6% of it',
      target: '1 of 3 met; short: search-new-text',
      run: '2026-11-27',
    });
  });

  it('reads the mixed load and admin sections', () => {
    const { rows, problems } = summaryRows(report());
    expect(problems).toEqual([]);
    expect(rowOf(rows, 'Mixed load')).toMatchObject({
      headline: '100,000 grants, every kind at once for 60 s: 73.0 req/s, p50 120.27 ms, p99 705.93 ms; peak RSS 976 MB',
      baseline: 'bare node:http 14,549 req/s; 0.50% of it',
      target: 'no errors: met',
      run: '2026-11-26',
    });
    expect(rowOf(rows, 'Admin commands')).toMatchObject({
      headline: 'server running: keys list 1,090 ms, local stats 1,040 ms; stopped: 1,613 and 1,574 ms',
      baseline: "admin --help 895 ms (the CLI's own start)",
    });
  });

  it('reads what the admin and k-NN renderers write', () => {
    const admin = adminSection({
      machine,
      grants: 5000,
      rounds: 1,
      samplesPerRound: 3,
      floorMs: [900],
      stoppedMs: { 'keys list': [1600], 'local stats': [1500] },
      runningMs: { 'keys list': [1000], 'local stats': [950] },
      seconds: 60,
    });
    expect(ADMIN_AREA.read(ADMIN_AREA.section(admin)!, admin)).toEqual({
      headline: 'server running: keys list 1,000 ms, local stats 950 ms; stopped: 1,600 and 1,500 ms',
      baseline: "admin --help 900 ms (the CLI's own start)",
      target: 'none stated',
      run: '2026-11-26',
    });
    const knn = knnSection({
      vectors: 100_000,
      dimensions: 384,
      queries: 16,
      floor: 0.6,
      bareMs: [48],
      scanMs: [8],
      batchMs: [1.5],
      int8ProductMs: [7],
      floatProductMs: [7],
      pageMs: [0.4],
      sortMs: [0.5],
      matches: [5000],
      recall: { reference: 10, found: 10, missed: 0, extra: 0, withinMillionthOfFloor: 0 },
      pruning: { int8Band: [0.03], clusters: 256, clusterSkipped: [0] },
    });
    expect(KNN_AREA.read(KNN_AREA.section(knn)!, knn)).toEqual({
      headline: '100,000 vectors: index scan 8.00 ms a query, 1.50 ms each of 8 in one product; recall 1.0000',
      baseline: 'bare dot-product loop 48.00 ms a query; one scan 0.17x of it',
      target: 'none stated',
      run: new Date().toISOString().slice(0, 10),
    });
  });

  it('gives an absent section, or a placeholder of a run that left it out, a row saying what writes it', () => {
    const rows = summaryRows(
      report(`${ADMIN_MARKERS.start}\n## Admin commands: running server and stopped folder\n\nNot measured in this run.\n${ADMIN_MARKERS.end}`),
    ).rows;
    expect(rowOf(rows, 'Admin commands')).toEqual({
      area: 'Admin commands',
      heading: null,
      headline: 'not measured yet: `npm run bench -- --parts admin`',
      baseline: '-',
      target: '-',
      run: '-',
    });
    expect(rowOf(rows, 'Search quality').headline).toBe('not measured yet: `npm run eval:search`');
  });

  it('names a section it cannot read, and still reads the others', () => {
    const { rows, problems } = summaryRows(report(adminFixture('1,090').replace('| running ms |', '| with server ms |')));
    expect(problems).toEqual(['Admin commands: no table with the columns "command", "stopped ms", "running ms"']);
    expect(rowOf(rows, 'Admin commands').headline).toMatch(/^figures not read/);
    expect(rowOf(rows, 'Mixed load').headline).toMatch(/^100,000 grants, every kind at once/);
  });
});

describe('the summary block in the report', () => {
  it('is created under the title when absent, before the run header, with every area in a fixed order', () => {
    const { report: refreshed } = refreshSummary(report());
    const lines = refreshed.split('\n');
    expect(lines.slice(0, 4)).toEqual(['# Benchmarks', '', SUMMARY_MARKERS.start, '## Summary']);
    expect(refreshed.indexOf(SUMMARY_MARKERS.end)).toBeLessThan(refreshed.indexOf('Written by `npm run bench`'));
    const areas = blockOf(refreshed)
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| area') && !line.startsWith('| ---'))
      .map((line) => line.split(' | ')[0]!.slice(2));
    expect(areas.map((area) => area.replace(/^\[(.*)\]\(.*\)$/, '$1'))).toEqual(SUMMARY_AREAS.map((area) => area.area));
    expect(areas.slice(0, 1)).toEqual(['[API on the embedded index](#100000-grants)']);
    expect(withoutSummary(refreshed)).toBe(report());
  });

  it('keeps its order whatever order the sections come in', () => {
    const swapped = [`# Benchmarks`, header, targets, apiSize('100,000', 2), adminFixture('1,090'), loadFixture].join('\n\n');
    expect(blockOf(refreshSummary(swapped).report)).toBe(blockOf(refreshSummary(report()).report));
  });

  it('changes only the row of a rewritten section, in place, and once', () => {
    const before = refreshSummary(report()).report;
    const rewritten = before.replace(adminFixture('1,090'), adminFixture('2,222'));
    const after = refreshSummary(rewritten).report;
    const changed = after.split('\n').filter((line, i) => line !== before.split('\n')[i]);
    expect(changed).toEqual([
      expect.stringMatching(/^\| \[Admin commands\]\(#admin-commands-running-server-and-stopped-folder\) \| server running: keys list 2,222 ms/),
      '| `keys list --json` | 1,613 | 2,222 | 1.5x | 718 | 194 |',
    ]);
    expect(after.split(SUMMARY_MARKERS.start)).toHaveLength(2);
    expect(refreshSummary(after).report).toBe(after);
  });

  it('is rebuilt alone by `--parts summary`, a part no default run asks for', () => {
    expect(parseBenchOptions(['--parts', 'summary'], {}).parts).toEqual(['summary']);
    expect(parseBenchOptions([], {}).parts).toEqual([...BENCH_PARTS]);
    expect(() => parseBenchOptions(['--parts', 'summaries'], {})).toThrow(/--parts takes api, .*, load, summary; got "summaries"/);
  });

  it('adds a title to a report without one', () => {
    expect(refreshSummary(loadFixture).report.split('\n').slice(0, 3)).toEqual(['# Benchmarks', '', SUMMARY_MARKERS.start]);
  });

  it('is written with the sections even when a row cannot be read, the problem logged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcf-summary-'));
    try {
      const logged: string[] = [];
      writeReportWithSummary(join(dir, 'benchmarks.md'), report(adminFixture('1,090').replace('| running ms |', '| with server ms |')), (line) =>
        logged.push(line),
      );
      expect(logged).toEqual(['summary table: Admin commands: no table with the columns "command", "stopped ms", "running ms"']);
      expect(readFileSync(join(dir, 'benchmarks.md'), 'utf8')).toContain('| with server ms |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/benchmarks.md', () => {
  const committed = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8');
  const body = withoutSummary(committed);
  const numbers = (text: string) => text.match(/\d+(?:,\d{3})*(?:\.\d+)?/g) ?? [];

  it('opens with its summary, rebuilt from its sections as committed, every section read', () => {
    const { report: rebuilt, problems } = refreshSummary(committed);
    expect(problems).toEqual([]);
    expect(rebuilt).toBe(committed);
  });

  it('states in the summary only figures its sections state', () => {
    for (const area of SUMMARY_AREAS) {
      const section = area.section(body);
      if (!section) continue;
      const row = rowOf(summaryRows(committed).rows, area.area);
      const own = `${section.heading}\n${section.text}`;
      for (const figure of numbers(`${row.headline} ${row.baseline}`)) expect(own, `${area.area}: ${figure}`).toContain(figure);
      for (const figure of numbers(`${row.target.replace(/\d+ of \d+ met/, '')} ${row.run}`)) expect(body, `${area.area}: ${figure}`).toContain(figure);
    }
  });
});
