import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type CursorKeySource, onceKeySource } from '../../ports/cursor-key';

/**
 * The list cursors' signing key from Secrets Manager (lib/constructs/cursor-key-secret.ts
 * generates it): read once per cold start, on the first list call. The key is the secret string's
 * UTF-8 bytes: Secrets Manager generates 64 random letters and digits (about 380 bits).
 */
export function secretsManagerCursorKey(client: Pick<SecretsManagerClient, 'send'>, secretId: string): CursorKeySource {
  return onceKeySource(async () => {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!answer.SecretString) throw new Error(`the cursor key secret ${secretId} holds no string`);
    return Buffer.from(answer.SecretString, 'utf8');
  });
}
