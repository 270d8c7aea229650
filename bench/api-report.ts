import type { CatalogueResult } from './bench-catalogue';
import { duration, int, megabytes, ms, percent, table } from './format';
import type { BenchRun } from './report';
import { checkTargets, TARGET_GRANTS } from './targets';

/**
 * The api part's sections of the report: how it measures, the targets, a section a catalogue size
 * (with bad input at its costliest), and where a request's time goes.
 */

function firstStartNote(result: CatalogueResult): string {
  const { seed, indexRebuildSeconds } = result.firstStart;
  const notes: string[] = [];
  if (!seed) notes.push('The data dir was seeded outside the bench; seeding time unknown.');
  else {
    const when = seed.inThisRun ? 'Seeded in this run' : `Seeded by an earlier run (${seed.seededAt.slice(0, 10)}) and reused here`;
    notes.push(`${when}: the first start took ${duration(seed.seconds)} to ready, seeding process peak RSS ${megabytes(seed.peakRssBytes)} MB.`);
  }
  if (indexRebuildSeconds !== null) {
    notes.push(
      `The search index was rebuilt from the record store at this run's first start (schema change; ${duration(indexRebuildSeconds)} to ready), then the server restarted.`,
    );
  }
  return notes.join(' ');
}

function catalogueSection(result: CatalogueResult): string {
  const rows = result.summaries.map((s) => [
    s.scenario.name === 'baseline' ? 'baseline (bare node:http)' : s.scenario.name,
    int(s.requestsPerSecond),
    ms(s.p50Ms),
    ms(s.p99Ms),
    s.ratioToBaseline === null ? '100%' : percent(s.ratioToBaseline),
    megabytes(s.rssBytes),
    s.requestsPerSecondByRound.map(int).join(' / '),
  ]);
  const scenarioLines = result.summaries.map(({ scenario }) => {
    const facts = result.facts[scenario.name];
    if (scenario.family === 'baseline') return `- **${scenario.name}**: ${scenario.label}; any path; ${int(facts.responseBytes)} bytes per response.`;
    const request = scenario.distinct ? `as above plus ${scenario.distinct.description}` : `\`GET ${scenario.path}\``;
    return `- **${scenario.name}**: ${scenario.label}; ${request}; ${int(facts.matches)} matching grants; ${int(facts.responseBytes)} bytes per response.`;
  });
  return [
    `## ${int(result.grants)} grants`,
    '',
    `${int(result.grants)} grants in the catalogue, ${int(result.openGrants)} of them open (the default listing). ${firstStartNote(result)}`,
    '',
    table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs bare node:http', 'RSS MB', 'req/s per round'], rows),
    '',
    ...scenarioLines,
    '',
    `API server memory: ${megabytes(result.apiMemory.idle.rssBytes)} MB idle after start, ` +
      `${megabytes(result.apiMemory.afterRuns.rssBytes)} MB after the runs, peak ${megabytes(result.apiMemory.afterRuns.peakRssBytes)} MB (VmHWM). ` +
      `Baseline server: ${megabytes(result.baselineMemory.rssBytes)} MB. Section took ${duration(result.seconds)}.`,
    '',
    worstCasesSection(result),
  ].join('\n');
}

/** Bad input at its costliest (bench/worst-cases.ts): one request at a time, after the rounds. */
function worstCasesSection(result: CatalogueResult): string {
  if (result.worstCases.length === 0) return '';
  const rows = result.worstCases.map((w) => [w.name, int(w.total), ms(w.firstMs), ms(w.p50Ms), ms(w.maxMs)]);
  const worst = result.worstCases.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
  return [
    `Bad input at its costliest, one request at a time (each distinct; the first apart, since it also pays for the text's ranking or a field order that later requests reuse; ${result.worstCases[0]!.requests} requests a case, the cursor walk one per page):`,
    '',
    table(['request', 'total', 'first ms', 'then p50 ms', 'then max ms'], rows),
    '',
    `Worst after the first: ${worst.name}, ${ms(worst.maxMs)} ms.`,
  ].join('\n');
}

function targetsSection(run: BenchRun): string {
  const measured = run.catalogues.find((c) => c.grants === TARGET_GRANTS);
  const heading = `## Targets (${int(TARGET_GRANTS)} grants, ${run.options.connections} connections)`;
  if (!measured) return `${heading}\n\nNot evaluated: this run did not include ${int(TARGET_GRANTS)} grants.`;
  const checks = checkTargets(measured);
  return [
    heading,
    '',
    table(
      ['target', 'measured', 'result'],
      checks.map((c) => [c.target, c.measured, c.pass ? 'pass' : '**short**']),
    ),
  ].join('\n');
}

/** The targets and a section a catalogue size: the tables alone, as the bench prints them. */
export function renderSummary(run: BenchRun): string {
  return [targetsSection(run), ...run.catalogues.map(catalogueSection)].join('\n\n');
}

/** How the api part measures: servers, load, variants, and what each figure means. */
export function apiMethodSection(run: BenchRun): string {
  const { machine, options } = run;
  return `## API throughput and latency

What is measured: the local API (\`bin/local.ts\`: the Lambda handlers behind a \`node:http\` front,
reading the embedded SQLite FTS5 index) on deterministic synthetic catalogues, against a bare
\`node:http\` server on the same machine in the same run. The bare server answers every request
with the bytes of the API's own \`GET /grants-api?limit=20\`, so "vs bare node:http" is the share
of plain Node HTTP throughput the API keeps for the same response size. Every request carries the
local developer key (\`Authorization: Bearer\`, sent to the bare server too): the authorizer and the
usage counting are part of what is measured (the developer tier is unlimited, so its counts are
batched; a limited key adds one quota write per request).

How:

- Each catalogue size gets its own server, \`node --import tsx bin/local.ts --data-dir bench/.data/grants-<N> --grants <N>\`
  with the environment and Node options of \`npm start\` (package.json's start script: \`MALLOC_ARENA_MAX=2
  MALLOC_MMAP_THRESHOLD_=131072\`, \`--max-semi-space-size=2 --heap-growing-percent=30\`),
  started as a child of the bench so its pid is the serving process. A data dir is seeded on first
  start and reused afterwards; a start that had to seed (or rebuild the search index) is timed,
  then the server is restarted, so the measured process carries no heap from that work.
- Load comes from autocannon's programmatic API in the bench process: ${options.connections} connections, closed loop,
  ${options.durationSeconds} s per measurement, after ${options.warmupSeconds} s of unrecorded warm-up per scenario. Measurements are
  interleaved (each round runs every scenario once, in table order) for ${options.rounds} rounds. Every run must be
  all 200s with no errors or timeouts, or the bench fails.
- The filtered list and the keyword, semantic and hybrid searches each run twice: the same URL on
  every request, as a client polling one query (or paging through it) would send, and a "distinct"
  variant where every request carries a parameter that makes its query unique without changing
  the query plan (the bench checks that every request gets the same total and page; see the
  scenario notes for what it filters). A result cache in the index answers the repeated URL from
  memory after its first request (the code measured here has one); the distinct variant measures
  the query itself. The search text stays the same, so its vector comes from the stack's memo of
  recent query vectors (as in AWS), and the model's own time per new query (about 3 ms of a core,
  "Where the time goes" below) is not in the distinct figures; nor is reading a word's postings
  from FTS5 the first time it is searched, since the words repeat too. The three searches also run
  a "new-text" variant: every request a text never sent before (a topic users type and two more
  words, 54,432 texts before one repeats), so the model embeds each query and the index finds and
  ranks each text afresh; its words repeat, as a language's do, so their postings are read once.
  Keyword search keeps the lexical matches whose cosine reaches the floor and adds partial matches
  that do; semantic search is exact k-NN over every grant's vector (bge-small-en-v1.5, 384
  dimensions) and returns every match above the floor; hybrid fuses the two. The model runs in a
  worker thread and the vector scans in another (DESIGN.md's embedded stack, "Where the time goes"
  below), so the event loop only parses, filters, merges, orders the page and answers.
- req/s is autocannon's mean of per-second samples, median across rounds. p50/p99 are per-response
  latencies seen by the client, median across rounds. "vs bare node:http" is the median across rounds
  of scenario req/s divided by baseline req/s of the same round. RSS is the VmRSS of the process that
  served the scenario (the bare server for the baseline row) right after a run, highest over rounds;
  the API server's peak is its VmHWM over its life.
- The load generator shares the ${machine.cpus} CPUs with the server, so absolute req/s understate what the
  server would do alone; the ratio to the baseline, which pays the same tax, is the figure that
  carries across machines.`;
}

/** Where a request's time goes once the cache cannot answer it (profiled, not rerun by the bench). */
export function apiTimeSection(): string {
  return `## Where the time goes without the cache

Profiled at 100,000 grants on 2026-11-27: the V8 profiler on the server's event loop and each
thread's CPU time (\`/proc/<pid>/task\`) under 10 s of the bench's new-text load, and steps timed
in process. A request's own work on the event loop (parsing, the key check, reading and
serialising 20 records, the log line, HTTP) is about 0.5 ms.

- **Three kinds of thread.** The event loop serves requests; the sentence model runs in a pool of
  worker threads (\`embedder-pool.ts\`, one on two cores, \`GCF_EMBEDDER_WORKERS\` to change),
  since ONNX Runtime's \`run\` is synchronous in its caller and each query's 3 ms held every other
  request back on the event loop; and each served index keeps its vectors in a worker of its own
  (\`worker-vector-scans.ts\`) that scores every scan asked while it was busy in one product. A
  search for a new text costs, in CPU per request under load: about 4 ms in the model (2.8 ms is
  ONNX Runtime's run of a 14-token query on one thread, the rest tokenising, pooling and messages),
  3-7 ms in the vector worker and 2-4 ms on the event loop. Two cores shared with the load
  generator run out there: those are the -new-text rows above, and why they fall short of issue
  24's latency targets.
- **A text is scanned once, exactly.** A scan is the product of the query with all 100,000 vectors
  (150 MB of floats read from memory, about 9.4 ms on one core), and the product of two to eight
  queries takes hardly longer (14.4 ms for eight), so the vector worker scores the scans that
  arrived together in one product; every product has at least two query columns, so a record's
  cosine is the same float whatever it was scored with, and keyword, semantic and hybrid agree.
  The scan returns every record at or above the floor (\`pagination.total\` counts them all, as
  DESIGN.md says); a broad query has a fifth of the catalogue there. Exact pruning was measured and
  dropped: bounds from 1,024 k-means clusters prune nothing (cluster radii are about 0.5, cosines
  span 0.5-0.9), int8 vectors with a guaranteed error bound leave up to 22,000 records of a query
  within the bound of the floor to score again, and ONNX Runtime's int8 product was no faster
  than the float one for two query columns (the exact-k-NN section below has the recall).
- **Results are ordered only as far as a page needs** (\`ranked-set.ts\`): the matches of a search
  are its whole result set from the start (its total, facets and field orders need every member),
  and a page in relevance order selects the best entries down to it (quickselect over packed
  score-and-id keys) and sorts only those; a deeper page sorts on from there. Sorting every match
  took 1.2 ms of each semantic request on the event loop.
- **A search text is ranked once.** Keyword and semantic rankings are made over the whole
  catalogue and narrowed to a query's filters by their bitmap (\`cached-rankings.ts\`,
  \`rankingWithin\`): a record's place depends on its own score and id alone, so the filtered
  ranking is the whole one with the others left out, and a user narrowing a search filter by
  filter has the text scored once (about 20 µs a step for the narrowing). Hybrid narrows both
  lists and fuses them (fusion scales BM25 by the best match among those kept). A text never
  searched before, with filters that keep at most a tenth of the catalogue, is scored among those
  rows alone instead: the kept rows copied out and scored by the same product, so both routes give
  the same cosines. Property tests hold both routes to the same answer (\`filtered-scoring.test.ts\`,
  \`search-rankers.test.ts\`).
- **Filters** are bitmaps over rowids, kept as rows are written, for the values with few choices
  (type, status, every state, national; liveness is computed once a day), and a range-encoded
  bitmap index for deadlines and amounts (\`range-index.ts\`: the rows with a value in sorted
  order, cut into 64 runs, with the bitmap of the rows before each cut; a range is two bitmaps'
  difference plus at most two partial runs). A range took a 170 µs pass over every row; it now
  takes tens of microseconds. The index is rebuilt on first use after a write (about 15 ms), at
  most once a second while writes keep coming, and the pass answers in between. Everything is
  property-tested against the SQL it stands in for (\`filter-columns.ts\`, \`row-bitmap.ts\`,
  \`range-index.ts\`). \`pagination.total\` is a population count of the bitmap.
- **Pages in a field order** (deadline, amount, title, posted date) walk every row of the kind in
  that order, read once from SQLite after a write (\`field-orders.ts\`), testing each row's bit in
  the filter's bitmap, or in the ranking's for a search sorted by a field. A page at offset 10,000
  by deadline took 130 ms in SQLite (an index walk testing the filters row by row); it takes
  1.4 ms. A cursor finds its place through its record's position in the order; SQL answers when
  that record has changed, and while an order waits to be read again.
- **Keyword search counts its matches and scores only those it keeps.** FTS5's BM25 is a sum over
  the query's words, so each word's scored postings are read from FTS5 once and kept in memory
  with a bitmap of their records when the word is in one record in 32 or more (a rarer word's
  rowids serve as they are; LRU, 32 MB, cleared by every write). A query finds its full and
  partial matches from the bitmaps (\`keyword-match-sets.ts\`: each word's bitmap added into a
  bit-sliced count of the words a record holds, compared with the minimum 32 records at a time),
  narrows them by the filters' bitmap and the floor's gate, and only then gives the matches left
  their BM25, finding each in each word's postings by galloping search. The dense pass it replaced
  summed every posting of every match (about 1.1 ms on the event loop for a new text of four
  words); a new text's kept full matches were a median of 313 in the bench's load. The records
  where the words stand near each other (FTS5's NEAR, for the phrase boost; about 0.3-0.5 ms for a
  new text) are read only when a kept match holds every word, since no other record can have them
  near: 2% of the bench's new texts needed them. Side by side under the new-text load (two runs
  each), the event loop's CPU fell from 3.2 to 2.3 ms a keyword search, and requests a second rose
  11% for keyword and 16% for hybrid. A property test holds the tiers and scores to a dense pass
  over every posting (\`keyword-match-sets.test.ts\`). A word's first search pays for its
  postings: 166 ms for "community" (in 53,778 grants). The floor's gate reads the text's scan when
  there is one, or when the matches to test are more than a quarter of the catalogue; fewer are
  copied out and scored alone.
- **Memory** (RSS at 100,000 grants): about 460-480 MB idle, of which the vectors are 150 MB (in the
  vector worker), the model's session about 60 MB (in its worker), each worker's own runtime about
  20 MB (an esbuild bundle of its module: tsx's loader in a worker cost another 25 MB), Node, ONNX
  Runtime and SQLite's code about 80 MB, and the index's rows (ids, filter bitmaps, facet codes,
  field orders) about 40 MB of live JavaScript heap. Under load the caches fill (postings 32 MB,
  rankings 16 MB, scans 8 MB, phrases 8 MB), and the event loop's heap grows with garbage and what
  the allocator keeps of freed memory. \`npm start\` bounds that growth (docs/local-development.md, "Memory
  settings"): a 2 MB young generation, a full collection once the old generation grows 30% past
  its last live size, two malloc arenas instead of one a thread, and a mapping of its own for every
  allocation of 128 KB or more, so that freed buffers go back to the system. Side by side, the peak
  of a mixed load fell from 801-882 MB to 538-547 MB, with requests a second within the runs'
  spread. Facet values were an object and three arrays a row (64 MB); they are codes in typed
  columns now. Vectors are read at
  start as hex text decoded into the load's slices: read as blobs, each a Buffer outside the
  JavaScript heap, they left about 100 MB of freed memory in the process. The index file is read
  through a 16 MB SQLite page cache, not memory-mapped.
- A repeated query (paging through results, a dashboard polling one filter) is answered from the
  index's cache of counts and rankings, which every write clears.`;
}
