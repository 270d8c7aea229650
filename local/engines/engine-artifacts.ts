import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPENDENCY_PLUGIN } from '../sentence-model-files';

/**
 * The real engines the AWS adapters are tested against on one machine (`npm run engines`), built
 * from Maven Central through mvn into a gitignored cache. Each has its own pom.xml under
 * test/engines/<name>/ that pins every version; this module resolves it to a Java classpath.
 */
export type EngineName = 'opensearch' | 'elasticmq';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Gitignored, like the models' cache; ~/.m2 holds the downloads themselves. */
export const ENGINES_CACHE_DIR = join(PROJECT_ROOT, '.cache', 'engines');

/** What it takes to run an engine: a classpath and the class whose main starts it. */
export interface EngineRuntime {
  name: EngineName;
  classpath: string;
  mainClass: string;
}

/** An artifact mvn could not fetch, a launcher that did not compile: the engine cannot run here. */
export class EngineArtifactsUnavailable extends Error {
  constructor(
    readonly engine: EngineName,
    detail: string,
  ) {
    super(`engine ${engine} is unavailable: ${detail}`);
  }
}

const pomOf = (name: EngineName) => join(PROJECT_ROOT, 'test', 'engines', name, 'pom.xml');
const cacheOf = (name: EngineName, cacheDir: string) => join(cacheDir, name);

/** mvn's ERROR lines that say what failed (they name the artifact it could not resolve), without its advice on re-running. */
function mavenErrors(output: string): string {
  // mvn colours some lines even in batch mode.
  const errors = output
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.startsWith('[ERROR]'))
    .map((line) => line.replace(/^\[ERROR\]\s*/, '').trim())
    .filter((line) => line !== '' && !/^(To see the full|Re-run Maven|For more information|\[Help 1\])/.test(line));
  return errors.slice(0, 3).join(' | ');
}

function runMaven(engine: EngineName, args: string[]): void {
  const run = spawnSync('mvn', ['--batch-mode', '--quiet', '-f', pomOf(engine), ...args], { encoding: 'utf8', cwd: PROJECT_ROOT });
  if (run.error) throw new EngineArtifactsUnavailable(engine, `mvn could not be run (${run.error.message}); Maven 3 and a JDK 17 are needed`);
  if (run.status !== 0) throw new EngineArtifactsUnavailable(engine, mavenErrors(`${run.stdout}${run.stderr}`) || `mvn exited with ${run.status}`);
}

/** The pom's dependencies as a classpath file, resolved (and downloaded into ~/.m2) by mvn. */
function resolvedClasspath(engine: EngineName, cache: string): string[] {
  const file = join(cache, 'classpath.txt');
  // The pom is the key: a changed version resolves again.
  const stamp = join(cache, 'pom.xml.resolved');
  const pom = readFileSync(pomOf(engine), 'utf8');
  if (!existsSync(file) || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== pom) {
    mkdirSync(cache, { recursive: true });
    runMaven(engine, [`${DEPENDENCY_PLUGIN}:build-classpath`, `-Dmdep.outputFile=${file}`]);
    if (engine === 'opensearch') runMaven(engine, [`${DEPENDENCY_PLUGIN}:unpack`, `-Dknn.dir=${join(cache, 'knn')}`]);
    writeFileSync(stamp, pom);
  }
  const entries = readFileSync(file, 'utf8')
    .trim()
    .split(delimiter)
    .filter((entry) => entry !== '');
  const missing = entries.find((entry) => !existsSync(entry));
  if (missing) {
    rmSync(stamp, { force: true });
    throw new EngineArtifactsUnavailable(engine, `${missing} is gone from the Maven cache; run the command again to fetch it`);
  }
  return entries;
}

/** The k-NN plugin's jars, unpacked from its plugin zip beside the classpath. */
function knnPluginJars(cache: string): string[] {
  const dir = join(cache, 'knn');
  const jars = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.jar'))
        .map((name) => join(dir, name))
    : [];
  if (!jars.some((jar) => /opensearch-knn-[\d.]+\.jar$/.test(jar))) {
    throw new EngineArtifactsUnavailable('opensearch', 'org.opensearch.plugin:opensearch-knn (zip) was not unpacked');
  }
  return jars;
}

/** Compiles the node launcher (test/engines/opensearch/src) against the classpath, once per source. */
function compiledLauncher(cache: string, classpath: string): string {
  const source = join(PROJECT_ROOT, 'test', 'engines', 'opensearch', 'src', 'OpenSearchTestNode.java');
  const classes = join(cache, 'classes');
  const stamp = join(classes, 'OpenSearchTestNode.java.compiled');
  const text = readFileSync(source, 'utf8');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === text) return classes;
  rmSync(classes, { recursive: true, force: true });
  mkdirSync(classes, { recursive: true });
  const run = spawnSync('javac', ['-d', classes, '-cp', classpath, source], { encoding: 'utf8' });
  if (run.error) throw new EngineArtifactsUnavailable('opensearch', `javac could not be run (${run.error.message}); a JDK 17 is needed`);
  if (run.status !== 0) throw new EngineArtifactsUnavailable('opensearch', `the launcher did not compile: ${run.stderr.split('\n').slice(0, 3).join(' ')}`);
  writeFileSync(stamp, text);
  return classes;
}

/** Resolves (fetching what is missing) everything an engine needs to start. */
export function engineRuntime(engine: EngineName, cacheDir = ENGINES_CACHE_DIR): EngineRuntime {
  const cache = cacheOf(engine, cacheDir);
  const dependencies = resolvedClasspath(engine, cache);
  if (engine === 'elasticmq') return { name: engine, classpath: dependencies.join(delimiter), mainClass: 'org.elasticmq.server.Main' };
  const libraries = [...dependencies, ...knnPluginJars(cache)].join(delimiter);
  const classes = compiledLauncher(cache, libraries);
  return { name: engine, classpath: [classes, libraries].join(delimiter), mainClass: 'OpenSearchTestNode' };
}
