import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { ACCOUNT_ROUTES, API_ROUTES } from '../lib/api-routes';
import { FUNCTION_BUNDLING } from '../lib/constructs/service-function';
import { PROJECT_ROOT } from '../lib/project-root';

/**
 * The Lambda bundles as a deployment makes them: every entry in lambdas/handlers, built with
 * esbuild's API from ServiceFunction's own bundling options (FUNCTION_BUNDLING) mapped the way
 * CDK's NodejsFunction maps them to esbuild's command line. The bundle budget test
 * (test/infra/bundle-budget.test.ts) and the cold-start bench (bench/coldstart.ts) both use it.
 */

/** Each API function's minified bundle (index.mjs, the source map aside) stays at or under this. */
export const BUNDLE_BUDGET_BYTES = 400_000;

/**
 * API functions held to a budget of their own instead: none since the API reference renderer's
 * multi-megabyte bundle moved from a Lambda response to CloudFront (lib/constructs/docs-assets.ts).
 */
export const OWN_BUNDLE_BUDGETS_BYTES: Readonly<Record<string, number>> = {};

/** The budget of an API function's bundle (`entry` relative to the project root). */
export function bundleBudgetOf(entry: string): number {
  return OWN_BUNDLE_BUDGETS_BYTES[entry] ?? BUNDLE_BUDGET_BYTES;
}

const HANDLERS_DIR = 'lambdas/handlers';
/** The REQUEST authorizer runs before every API request, so it counts as an API function. */
export const AUTHORIZER_ENTRY = `${HANDLERS_DIR}/authorize-request.ts`;

export interface LambdaEntry {
  /** Relative to the project root, e.g. `lambdas/handlers/get-grant.ts`. */
  entry: string;
  /** The file name without `.ts`, e.g. `get-grant`. */
  name: string;
  /** A route's function or the authorizer: held to BUNDLE_BUDGET_BYTES (or its own, bundleBudgetOf). */
  api: boolean;
  /** What it serves: the route (`GET /grants-api/{id}`), `authorizer`, or `background`. */
  role: string;
}

/** Every Lambda entry (each file in lambdas/handlers exports a `handler`), API functions first. */
export function lambdaEntries(): LambdaEntry[] {
  const routes = new Map([...API_ROUTES, ...ACCOUNT_ROUTES].map((route) => [route.entry, `${route.method} ${route.path}`]));
  const entries = readdirSync(join(PROJECT_ROOT, HANDLERS_DIR))
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file): LambdaEntry => {
      const entry = `${HANDLERS_DIR}/${file}`;
      const route = routes.get(entry);
      const role = route ?? (entry === AUTHORIZER_ENTRY ? 'authorizer' : 'background');
      return { entry, name: basename(file, '.ts'), api: role !== 'background', role };
    });
  return [...entries.filter((e) => e.api), ...entries.filter((e) => !e.api)];
}

/**
 * esbuild's options for one entry, as CDK's NodejsFunction bundling passes them (`esbuild
 * --bundle <entry> --target --platform=node --format --outfile=<dir>/index.mjs --minify
 * --sourcemap --sources-content=false --external:… --banner:js=… --main-fields=…`).
 */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  const b = FUNCTION_BUNDLING;
  return {
    entryPoints: [join(PROJECT_ROOT, entry)],
    bundle: true,
    target: b.target,
    platform: 'node',
    format: b.format,
    outfile: join(outdir, 'index.mjs'),
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    external: [...b.externalModules],
    banner: { js: b.banner },
    mainFields: [...b.mainFields],
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'error',
  };
}

export interface Bundle {
  entry: string;
  /** Bytes of index.mjs, the code Lambda loads. */
  bytes: number;
  /** Bytes of index.mjs.map (deployed with it, never loaded unless a stack trace is printed). */
  mapBytes: number;
  /** Bytes in index.mjs by package (`@scope/name`) or project folder (`lambdas/core`), largest first. */
  contributions: [string, number][];
  /** Where index.mjs was written, when it was. */
  file?: string;
}

function contributionsOf(metafile: Metafile): [string, number][] {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs'))?.[1];
  const totals = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const modules = input.lastIndexOf('node_modules/');
    let owner: string;
    if (modules >= 0) {
      const parts = input.slice(modules + 'node_modules/'.length).split('/');
      owner = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
    } else {
      owner = input.split('/').slice(0, 2).join('/');
    }
    totals.set(owner, (totals.get(owner) ?? 0) + bytesInOutput);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/**
 * Bundles one entry. With `outdir` the files are written there (to be imported: put it under the
 * project so the external `@aws-sdk/*` imports resolve from node_modules); without, in memory.
 */
export async function bundleEntry(entry: string, outdir?: string): Promise<Bundle> {
  const dir = outdir ?? join(PROJECT_ROOT, '.bundles-in-memory');
  const result = await build({ ...esbuildOptions(entry, dir), write: outdir !== undefined, metafile: true });
  const file = join(dir, 'index.mjs');
  let bytes: number;
  let mapBytes: number;
  if (outdir) {
    const outputs = result.metafile.outputs;
    bytes = Object.entries(outputs).find(([path]) => path.endsWith('index.mjs'))?.[1].bytes ?? 0;
    mapBytes = Object.entries(outputs).find(([path]) => path.endsWith('index.mjs.map'))?.[1].bytes ?? 0;
  } else {
    bytes = result.outputFiles?.find((f) => f.path.endsWith('index.mjs'))?.contents.length ?? 0;
    mapBytes = result.outputFiles?.find((f) => f.path.endsWith('index.mjs.map'))?.contents.length ?? 0;
  }
  return { entry, bytes, mapBytes, contributions: contributionsOf(result.metafile), ...(outdir ? { file } : {}) };
}
