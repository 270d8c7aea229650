/**
 * The CloudWatch Synthetics canary's entry (bundled by lib/constructs/api-canary.ts): reads the
 * canary's API key from its secret, then runs the API check (api-check.ts) as Synthetics steps.
 * A thrown error fails the run, which is what the SuccessPercent alarm counts.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseCanaryKeySecret } from '../core/auth/canary-key';
import { ApiCheckFailure, masked, runApiCheck, runPlainStep, type StepRunner } from './api-check';
import { CANARY_ENV } from './canary-env';

/** The runtime's Synthetics library, when this runtime has one under a name we know; plain steps otherwise. */
function syntheticsStepRunner(): StepRunner {
  for (const name of ['@aws/synthetics-core', 'Synthetics']) {
    try {
      const library = require(name) as { executeStep?: unknown; synthetics?: { executeStep?: unknown } };
      const owner = library.synthetics ?? library;
      if (typeof owner.executeStep === 'function') return (owner.executeStep as StepRunner).bind(owner);
    } catch {
      // Not this runtime's library name.
    }
  }
  return runPlainStep;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`The canary's environment lacks ${name}`);
  return value;
}

export async function handler(): Promise<string> {
  const secretId = requiredEnv(CANARY_ENV.keySecretArn);
  const secrets = new SecretsManagerClient({});
  const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
  const stored = parseCanaryKeySecret(SecretString);
  if (!stored)
    throw new ApiCheckFailure('The canary key is not provisioned: run `npm run admin -- canary provision --target aws --stage <stage>` (docs/deploy.md).');
  try {
    const result = await runApiCheck(
      { baseUrl: requiredEnv(CANARY_ENV.apiBaseUrl), apiKey: stored.key, searchTerm: requiredEnv(CANARY_ENV.searchTerm) },
      syntheticsStepRunner(),
    );
    const summary = `API check passed: ${result.searchTotal} grants matched, grant ${result.grantId} read, OpenAPI ${result.openApiVersion}`;
    console.log(summary);
    return summary;
  } catch (error) {
    // Belt and braces: whatever failed, the key never reaches the run's log.
    throw error instanceof ApiCheckFailure ? error : new Error(masked(String((error as Error).message ?? error), stored.key));
  }
}
