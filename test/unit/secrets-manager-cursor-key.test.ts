import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { secretsManagerCursorKey } from '../../lambdas/adapters/aws/secrets-manager-cursor-key';
import { secretCursorKeys } from '../../lambdas/composition/aws-search';

describe('the cursor key from Secrets Manager', () => {
  const SECRET = 'q'.repeat(64);

  it("reads the secret once, by the id it was given, and uses its string's bytes as the key", async () => {
    const sent: unknown[] = [];
    const client = {
      send: async (command: unknown) => {
        sent.push(command);
        return { SecretString: SECRET };
      },
    };
    const source = secretsManagerCursorKey(client as never, 'arn:aws:secretsmanager:us-east-1:1:secret:cursor');
    expect(Buffer.from(await source.key()).toString()).toBe(SECRET);
    await source.key();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(GetSecretValueCommand);
    expect((sent[0] as GetSecretValueCommand).input).toEqual({ SecretId: 'arn:aws:secretsmanager:us-east-1:1:secret:cursor' });
  });

  it('refuses a secret with no string, or too short to sign with, and reads again next time', async () => {
    const answers = [{}, { SecretString: 'short' }, { SecretString: SECRET }];
    const source = secretsManagerCursorKey({ send: async () => answers.shift() } as never, 'cursor');
    await expect(source.key()).rejects.toThrow(/holds no string/);
    await expect(source.key()).rejects.toThrow(/at least 32 bytes/);
    expect(Buffer.from(await source.key()).toString()).toBe(SECRET);
  });

  it('needs CURSOR_KEY_SECRET_ARN only when a key is asked for', async () => {
    const source = secretCursorKeys({});
    await expect(source.key()).rejects.toThrow(/CURSOR_KEY_SECRET_ARN is not set/);
  });
});
