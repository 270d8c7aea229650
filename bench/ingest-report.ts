import { int, megabytes, ms, percent, table } from './format';
import type { IngestBenchResult, IngestRound } from './ingest';
import type { MachineInfo } from './machine';
import { median, percentile } from './summary';

/** The "Ingest of ../shared/data" section of docs/benchmarks.md (`npm run bench -- --parts ingest`). */

/** The ingest section sits between these markers, so `--parts ingest` can rewrite it alone. */
const INGEST_START = '<!-- ingest section: npm run bench -- --parts ingest -->';
const INGEST_END = '<!-- end of ingest section -->';
export const INGEST_MARKERS = { start: INGEST_START, end: INGEST_END } as const;

export function ingestSection(run: { ingest: IngestBenchResult | null; machine: MachineInfo }): string {
  const { ingest, machine } = run;
  const heading = '## Ingest of ../shared/data';
  if (!ingest) return `${INGEST_START}\n${heading}\n\nNot measured in this run (\`--parts\` left it out, or ../shared/data was absent).\n${INGEST_END}`;
  const m = (pick: (r: IngestRound) => number) => median(ingest.rounds.map(pick));
  const records = ingest.rounds[0]!.records;
  const rate = (secondsOf: (r: IngestRound) => number) => median(ingest.rounds.map((r) => r.records / secondsOf(r)));
  const readAndMap = rate((r) => r.readAndMapSeconds);
  const firstImport = rate((r) => r.firstImportSeconds);
  const reimport = rate((r) => r.reimportSeconds);
  const changes = ingest.rounds.flatMap((r) => r.changeToSearchableMs);
  const cold = ingest.rounds[0]!.coldSample;
  const coldImport = median(ingest.rounds.map((r) => r.coldSample.records / r.coldSample.importSeconds));
  const embedderAlone = median(ingest.rounds.map((r) => r.coldSample.texts / r.coldSample.embedderSeconds));
  const rows = [
    ['read and map only (no store)', int(readAndMap), `${m((r) => r.readAndMapSeconds).toFixed(1)} s`, '100%'],
    [
      'first import (created, vectors cached)',
      int(firstImport),
      `${m((r) => r.firstImportSeconds).toFixed(1)} s`,
      percent(m((r) => r.readAndMapSeconds / r.firstImportSeconds)),
    ],
    ['re-import (all unchanged)', int(reimport), `${m((r) => r.reimportSeconds).toFixed(1)} s`, percent(m((r) => r.readAndMapSeconds / r.reimportSeconds))],
  ];
  return [
    INGEST_START,
    heading,
    '',
    `All ${int(records)} lines of ${ingest.files.join(', ')} through \`ingestFiles\` (what \`npm run admin -- ingest\`
runs) into a fresh file-backed embedded stack (dynalite + SQLite, as \`npm start\` keeps it), in the bench
process, ${ingest.rounds.length} rounds, medians. A first import creates ${int(ingest.rounds[0]!.created)} records and rejects ${int(ingest.rounds[0]!.rejected)};
each record is read, mapped, validated, hashed, compared with the stored version (one batched read),
written, indexed, and turned into a change event. "vs read and map" is the share of the
read-and-map-only rate the full pipeline keeps, measured side by side in the same round.`,
    '',
    table(['pass', 'records/s', 'time', 'vs read and map'], rows),
    '',
    `These passes find every record's vector in the bench's vector cache (\`bench/.data/ingest-embeddings.sqlite\`, filled once by an`,
    `unmeasured import), as a re-import or a restart does: the sentence model (${ingest.embedder}) is what a first import on a new`,
    `machine waits for, and it is measured apart, side by side in each round, on the first ${int(cold.records)} grants of grants.jsonl:`,
    '',
    table(
      ['pass (no vector cached)', 'per second', 'time'],
      [
        [`import of the ${int(cold.records)} grants into a fresh stack`, `${int(coldImport)} records`, `${m((r) => r.coldSample.importSeconds).toFixed(1)} s`],
        [
          `the embedder alone on their ${int(cold.texts)} distinct texts`,
          `${int(embedderAlone)} texts`,
          `${m((r) => r.coldSample.embedderSeconds).toFixed(1)} s`,
        ],
      ],
    ),
    '',
    `The import keeps ${percent(coldImport / embedderAlone)} of the embedder's own rate: the model is the bound. At that rate a first import of all`,
    `${int(records)} lines needs roughly ${Math.round(records / embedderAlone / 60)} minutes of model time (a rough bound: funders' and awards' texts differ from grants',`,
    `and rejected lines embed nothing); vectors are cached by text afterwards, and \`npm start\` prints progress.`,
    '',
    `- **Searchable:** the local change feed indexes each batch as it is written, so a record is`,
    `  searchable when its import returns. Rebuilding the whole search index from the record store`,
    `  (\`npm run admin -- local reindex\`, or a start after the index file was deleted) takes ${m((r) => r.rebuildIndexSeconds).toFixed(1)} s.`,
    `  One changed record, from the start of its import to a keyword search over HTTP returning it:`,
    `  p50 ${ms(percentile(changes, 0.5))} ms, p99 ${ms(percentile(changes, 0.99))} ms (${changes.length} changes).`,
    `- Peak RSS of the bench process, which runs the whole stack: ${megabytes(ingest.peakRssBytes)} MB. Machine: ${machine.cpus} CPUs, shared.`,
    `  Run ${machine.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC; code measured: ${machine.code}.`,
    `- Where a first import's time goes (\`--cpu-prof\`, 2026-11-22): the DynamoDB side (dynalite's request`,
    `  handling and LevelDB, and the SDK's serialisation) about 40%, SQLite FTS5 indexing about 14%,`,
    `  hashing about 5%, the importers under 10%. Each record is written twice, once as the record and`,
    `  once as its change event, and read once before the write; a re-import only reads.`,
    `- Per round (first import s): ${ingest.rounds.map((r) => r.firstImportSeconds.toFixed(1)).join(' / ')}.`,
    INGEST_END,
  ].join('\n');
}
