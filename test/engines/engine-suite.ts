import { describe, it } from 'vitest';

/**
 * A suite that needs a real engine (`npm run test:engines` starts them and sets their variables).
 * Without the variable it is skipped inside `npm test`, and fails under test:engines
 * (GCF_ENGINES_REQUIRED), so an engine suite never skips silently where it must run.
 */
export function describeOnEngine(title: string, variable: 'OPENSEARCH_URL' | 'SQS_ENDPOINT', body: (url: string) => void): void {
  const url = process.env[variable];
  if (url) {
    describe(title, () => body(url));
    return;
  }
  const engine = variable === 'OPENSEARCH_URL' ? 'a real OpenSearch 2.19 node' : 'ElasticMQ';
  describe(title, () => {
    if (process.env.GCF_ENGINES_REQUIRED)
      it('runs against the engine npm run test:engines starts', () => {
        throw new Error(`${variable} is not set: npm run test:engines sets it to ${engine}`);
      });
    else it.skip(`skipped here: \`npm run test:engines\` runs it against ${engine} (or set ${variable})`, () => {});
  });
}
