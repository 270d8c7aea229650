import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Builds the dashboard into dashboard/dist: one minified ES module and one stylesheet with hashed
 * names under assets/, and an index.html that loads them (no inline script or style, so the site
 * runs under a CSP of 'self'). `npm start` calls ensureDashboardBuilt(), which rebuilds only when
 * the sources or the pinned libraries changed, so a fresh `npm ci && npm start` serves it.
 */

export const DASHBOARD_DIR = dirname(fileURLToPath(import.meta.url));
export const DASHBOARD_DIST = join(DASHBOARD_DIR, 'dist');
const SOURCE_DIR = join(DASHBOARD_DIR, 'src');
/** Written last: a dist without it (an interrupted build) counts as missing. */
const BUILD_INFO = 'build-info.json';
const LIBRARIES = ['preact', 'uplot', 'oidc-client-ts', 'jwt-decode'];

export interface DashboardBuild {
  outDir: string;
  /** The site's files (relative paths) and their sizes in bytes. */
  files: { path: string; bytes: number }[];
  fingerprint: string;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** What the build depends on: its sources, this script and the libraries' versions. */
export function sourceFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of [...filesUnder(SOURCE_DIR), fileURLToPath(import.meta.url)]) {
    hash.update(relative(DASHBOARD_DIR, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  for (const library of LIBRARIES) {
    const manifest = resolve(DASHBOARD_DIR, '..', 'node_modules', library, 'package.json');
    hash.update(`${library}@${existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : 'missing'}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** A file of its own, as the CSP allows no data: URLs (and browsers ask for /favicon.ico without one). */
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#12355b"/><path d="M4 11V6h2v5zm3 0V4h2v7zm3 0V8h2v3z" fill="#fff"/></svg>\n';

function indexHtml(script: string, stylesheet: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Developer dashboard · Grants, Contracts and Funders Data Service</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
${stylesheet ? `<link rel="stylesheet" href="${stylesheet}">\n` : ''}<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><p>Loading the dashboard…</p></div>
<noscript>The dashboard needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Builds into a fresh folder beside outDir, then puts it in place: a server never serves half a build. */
export async function buildDashboard(outDir = DASHBOARD_DIST): Promise<DashboardBuild> {
  const fingerprint = sourceFingerprint();
  const staging = `${outDir}.building-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  try {
    const result = await build({
      entryPoints: { app: join(SOURCE_DIR, 'main.tsx') },
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: staging,
      entryNames: 'assets/[name]-[hash]',
      assetNames: 'assets/[name]-[hash]',
      metafile: true,
      legalComments: 'none',
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    const outputs = Object.keys(result.metafile.outputs).map((path) => relative(staging, resolve(path)));
    const script = outputs.find((path) => path.endsWith('.js'));
    const stylesheet = outputs.find((path) => path.endsWith('.css'));
    if (!script) throw new Error('the dashboard build wrote no script');
    writeFileSync(join(staging, 'index.html'), indexHtml(script, stylesheet));
    writeFileSync(join(staging, 'favicon.svg'), FAVICON);
    writeFileSync(join(staging, BUILD_INFO), `${JSON.stringify({ fingerprint })}\n`);
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const files = filesUnder(outDir).map((file) => ({ path: relative(outDir, file), bytes: readFileSync(file).byteLength }));
  return { outDir, files, fingerprint };
}

/** The fingerprint of the build in outDir, or null when there is none (or it is incomplete). */
export function builtFingerprint(outDir = DASHBOARD_DIST): string | null {
  try {
    return JSON.parse(readFileSync(join(outDir, BUILD_INFO), 'utf8')).fingerprint ?? null;
  } catch {
    return null;
  }
}

/** Builds the dashboard when dist is missing or older than its sources; says which it did. */
export async function ensureDashboardBuilt(outDir = DASHBOARD_DIST): Promise<'built' | 'up to date'> {
  if (builtFingerprint(outDir) === sourceFingerprint()) return 'up to date';
  await buildDashboard(outDir);
  return 'built';
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outDir, files } = await buildDashboard();
  for (const file of files) console.log(`${String(file.bytes).padStart(8)}  ${basename(outDir)}/${file.path}`);
}
