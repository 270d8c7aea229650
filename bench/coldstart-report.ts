import { BUNDLE_BUDGET_BYTES, bundleBudgetOf, OWN_BUNDLE_BUDGETS_BYTES } from './bundles';
import { type ColdStartBenchResult, summariseColdStart } from './coldstart';
import { int, machineLines, ms, table } from './format';

/** The "Bundles and cold start" section of docs/benchmarks.md (`npm run bench -- --parts coldstart`). */

export const COLDSTART_MARKERS = { start: '<!-- coldstart section: npm run bench -- --parts coldstart -->', end: '<!-- end of coldstart section -->' } as const;

const kb = (bytes: number) => (bytes / 1000).toFixed(1);

export function coldStartSection(result: ColdStartBenchResult | null): string {
  const heading = '## Bundles and cold start';
  if (!result) return `${COLDSTART_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${COLDSTART_MARKERS.end}`;
  const empty = summariseColdStart(result, result.empty);
  const ratio = (n: number) => `${n.toFixed(1)}x`;
  const rows = result.bundles.map(({ lambda, bundle, ...timings }) => {
    const s = summariseColdStart(result, { bundle, ...timings });
    const ownBudget = OWN_BUNDLE_BUDGETS_BYTES[lambda.entry];
    const budget = lambda.api ? `${Math.round((bundle.bytes / bundleBudgetOf(lambda.entry)) * 100)}%${ownBudget ? ` of ${kb(ownBudget)} KB` : ''}` : '-';
    const largest = bundle.contributions
      .slice(0, 3)
      .map(([owner, bytes]) => `${owner} ${kb(bytes)}`)
      .join(', ');
    return [
      `\`${lambda.name}\``,
      lambda.role,
      kb(bundle.bytes),
      budget,
      kb(bundle.mapBytes),
      ms(s.importMs),
      ratio(s.ratioToEmpty),
      int(s.processMs),
      ratio(s.processRatioToEmpty),
      largest,
    ];
  });
  for (const reference of result.references) {
    const s = summariseColdStart(result, reference);
    rows.push([
      `*${reference.description}*`,
      'reference',
      kb(reference.bundle.bytes),
      '-',
      kb(reference.bundle.mapBytes),
      ms(s.importMs),
      ratio(s.ratioToEmpty),
      int(s.processMs),
      ratio(s.processRatioToEmpty),
      '',
    ]);
  }
  const dynamo = result.references.find((r) => r.name === 'dynamodb-client-only');
  const dynamoMs = dynamo ? summariseColdStart(result, dynamo).importMs : null;
  const openapi = result.bundles.find((b) => b.lambda.name === 'openapi');
  const openapiMs = openapi ? summariseColdStart(result, openapi).importMs : null;
  const apiBundles = result.bundles.filter((b) => b.lambda.api && OWN_BUNDLE_BUDGETS_BYTES[b.lambda.entry] === undefined);
  const largestApi = apiBundles.reduce((a, b) => (b.bundle.bytes > a.bundle.bytes ? b : a));
  const { machine } = result;
  const own = Object.entries(OWN_BUNDLE_BUDGETS_BYTES).map(([entry, bytes]) => `\`${entry}\` (${kb(bytes)} KB)`);
  const ownBudgets = own.length === 0 ? '' : ` Held to a budget of its own (bench/bundles.ts says why): ${own.join(', ')}.`;
  return [
    COLDSTART_MARKERS.start,
    heading,
    '',
    `Every Lambda entry (\`lambdas/handlers/*.ts\`) bundled as a deployment bundles it: esbuild with ServiceFunction's own`,
    'options (`FUNCTION_BUNDLING` in lib/constructs/service-function.ts: minified ESM for Node 22, the AWS SDK external as',
    'the runtime ships it), by `bench/bundles.ts`, which a test checks against the asset CDK synthesizes. Each API',
    `function (the routes and the authorizer) must stay at or under ${kb(BUNDLE_BUDGET_BYTES)} KB: \`test/infra/bundle-budget.test.ts\` fails when one`,
    `goes over. The largest is \`${largestApi.lambda.name}\`, ${kb(largestApi.bundle.bytes)} KB.${ownBudgets}`,
    '',
    `- **index.mjs KB**: the code Lambda loads (decimal KB); **budget**: its share of ${kb(BUNDLE_BUDGET_BYTES)} KB (API functions only);`,
    '  **.map KB**: the source map shipped beside it (read only to print a stack trace).',
    `- **init ms**: median over ${result.runs} runs of \`await import('index.mjs')\` in a fresh \`node\` process: reading, compiling and running`,
    "  the bundle's module scope, including the AWS SDK modules it imports at load (from node_modules here; Lambda has them",
    "  in the runtime). The environment is Lambda's as far as the code looks (`AWS_EXECUTION_ENV`, so Tracer loads the X-Ray",
    '  SDK; `NODE_OPTIONS=--enable-source-maps`, as deployed). Clients and adapters are built on first use, so a first',
    '  request adds its own connections on top.',
    `- **x empty**: that median over the median of an empty handler (\`bench/empty-handler.ts\`) bundled and imported the same way,`,
    `  interleaved in the same runs: ${ms(empty.importMs)} ms. **process ms** is the whole child from spawn to exit (Node's own start, about`,
    `  ${int(empty.processMs)} ms for the empty handler here), and its **x empty** the median of run-by-run ratios.`,
    '',
    table(['function', 'serves', 'index.mjs KB', 'budget', '.map KB', 'init ms', 'x empty', 'process ms', 'x empty', 'largest parts (KB)'], rows),
    '',
    '- What the sizes are: every bundle carries Powertools Logger, Metrics and Tracer; Tracer brings the X-Ray SDK',
    '  (aws-xray-sdk-core and semver, about 100 KB, loaded in Lambda only). The search functions talk to OpenSearch through',
    '  a thin SigV4 client (lambdas/adapters/aws/opensearch-client.ts, node:https and @smithy/signature-v4, about 20 KB);',
    '  @opensearch-project/opensearch, which they bundled before, was 250 KB of minified code on its own and put',
    '  match-grants at 412 KB and semantic-search at 401 KB before Powertools Metrics and Tracer were added.',
    ...(dynamoMs !== null && openapiMs !== null
      ? [
          `- Where init time goes: the DynamoDB client alone takes ${ms(dynamoMs)} ms to import here, and \`openapi\`, the one function that`,
          `  imports no AWS SDK client (but the same Powertools, the X-Ray SDK and zod), ${ms(openapiMs)} ms. Every other function imports`,
          "  the DynamoDB client at load (the search functions Bedrock's too, the webhook functions SQS's), so most of its init is",
          "  the SDK's, which a smaller bundle cannot remove.",
        ]
      : []),
    "- Node here is the machine's, not the runtime's Node 22, and a shared machine's figures swing by tens of percent",
    '  between runs: compare the ratios, within one run.',
    '',
    ...machineLines(machine, result.seconds),
    COLDSTART_MARKERS.end,
  ].join('\n');
}
