import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { KeyStore } from '../lambdas/ports/key-store';
import { STACK_OUTPUTS } from '../lib/stack-names';
import { type AwsTargetOptions, awsKeyPorts, stackOutput } from './aws-target';

/** The stage's key store and the synthetic canary's key secret (`admin canary provision --target aws`). */
export interface AwsCanaryKeyPorts {
  keys: KeyStore;
  /** The secret's ARN (or the id given with --secret-id). */
  secretId: string;
  /** The secret's current value, as the canary reads it. */
  readSecret(): Promise<string | undefined>;
  /** A new current version of the secret. */
  writeSecret(value: string): Promise<void>;
  close(): void;
}

export async function awsCanaryKeyPorts(options: AwsTargetOptions & { secretId?: string }): Promise<AwsCanaryKeyPorts> {
  const secretId = await stackOutput(options, 'stateless', STACK_OUTPUTS.canaryKeySecretArn, 'canary key secret', '--secret-id', options.secretId);
  const { keys, close } = await awsKeyPorts(options);
  const secrets = new SecretsManagerClient({ region: options.region });
  return {
    keys,
    secretId,
    async readSecret() {
      return (await secrets.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
    },
    async writeSecret(value) {
      await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
    },
    close() {
      secrets.destroy();
      close();
    },
  };
}
