import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, EncryptCommand } from '@aws-sdk/client-kms';
import { afterAll, describe, expect, it } from 'vitest';
import { KMS_SEALED_PREFIX, KmsSecretSealer } from '../../lambdas/adapters/aws/kms-secret-sealer';
import { LOCAL_SEALED_PREFIX, LocalSecretSealer, WEBHOOK_SECRET_KEY_FILE } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { SECRETS_WITHHELD, SecretsWithheld } from '../../lambdas/ports/secret-sealer';

const KEY_ARN = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const SECRET = 'whsec_0123456789abcdef';

/**
 * A stand-in for KMS's Encrypt/Decrypt: the blob is the plaintext XOR-ed and tagged with the key
 * and context it was made under, and Decrypt refuses another key or context, as KMS does.
 */
function fakeKms() {
  const sent: Array<EncryptCommand | DecryptCommand> = [];
  const tagOf = (keyId: string | undefined, context: Record<string, string> | undefined) => `${keyId}|${JSON.stringify(context)}|`;
  return {
    sent,
    async send(command: EncryptCommand | DecryptCommand) {
      sent.push(command);
      if (command instanceof EncryptCommand) {
        const { KeyId, Plaintext, EncryptionContext } = command.input;
        const masked = Buffer.from(Plaintext!).map((byte) => byte ^ 0x5a);
        return { CiphertextBlob: Buffer.concat([Buffer.from(tagOf(KeyId, EncryptionContext)), masked]) };
      }
      const { KeyId, CiphertextBlob, EncryptionContext } = command.input;
      const tag = Buffer.from(tagOf(KeyId, EncryptionContext));
      const blob = Buffer.from(CiphertextBlob!);
      if (!blob.subarray(0, tag.length).equals(tag)) throw Object.assign(new Error('InvalidCiphertextException'), { name: 'InvalidCiphertextException' });
      return { Plaintext: blob.subarray(tag.length).map((byte) => byte ^ 0x5a) };
    },
  };
}

describe('KmsSecretSealer', () => {
  it('encrypts under the stage key with the subscription as encryption context, and opens it again', async () => {
    const kms = fakeKms();
    const sealer = new KmsSecretSealer(kms as never, KEY_ARN);
    const sealed = await sealer.seal(SECRET, { subscriptionId: 'whk_1' });
    expect(sealed.startsWith(KMS_SEALED_PREFIX)).toBe(true);
    expect(sealed).not.toContain(SECRET);
    expect(sealer.isSealed(sealed)).toBe(true);
    expect(kms.sent[0]).toBeInstanceOf(EncryptCommand);
    expect(kms.sent[0]!.input).toMatchObject({ KeyId: KEY_ARN, EncryptionContext: { subscription_id: 'whk_1' } });

    expect(await sealer.unseal(sealed, { subscriptionId: 'whk_1' })).toBe(SECRET);
    expect(kms.sent[1]).toBeInstanceOf(DecryptCommand);
    expect(kms.sent[1]!.input).toMatchObject({ KeyId: KEY_ARN, EncryptionContext: { subscription_id: 'whk_1' } });
  });

  it('refuses a sealed secret copied to another subscription', async () => {
    const sealer = new KmsSecretSealer(fakeKms() as never, KEY_ARN);
    const sealed = await sealer.seal(SECRET, { subscriptionId: 'whk_1' });
    await expect(sealer.unseal(sealed, { subscriptionId: 'whk_2' })).rejects.toThrow('InvalidCiphertextException');
  });

  it('reads a secret stored before sealing as it is, without calling KMS', async () => {
    const kms = fakeKms();
    const sealer = new KmsSecretSealer(kms as never, KEY_ARN);
    expect(sealer.isSealed(SECRET)).toBe(false);
    expect(await sealer.unseal(SECRET, { subscriptionId: 'whk_1' })).toBe(SECRET);
    expect(kms.sent).toEqual([]);
  });

  it('opens a sealed value once per warm function, and again for another subscription or after a failure', async () => {
    const kms = fakeKms();
    const sealer = new KmsSecretSealer(kms as never, KEY_ARN);
    const sealed = await sealer.seal(SECRET, { subscriptionId: 'whk_1' });
    for (let i = 0; i < 3; i++) expect(await sealer.unseal(sealed, { subscriptionId: 'whk_1' })).toBe(SECRET);
    await expect(sealer.unseal(sealed, { subscriptionId: 'whk_2' })).rejects.toThrow('InvalidCiphertextException');
    await expect(sealer.unseal(sealed, { subscriptionId: 'whk_2' })).rejects.toThrow('InvalidCiphertextException');
    expect(kms.sent.filter((command) => command instanceof DecryptCommand)).toHaveLength(3);
  });

  it('looks a key up once, and only when a secret is sealed or opened', async () => {
    let lookups = 0;
    const sealer = new KmsSecretSealer(fakeKms() as never, async () => {
      lookups++;
      return KEY_ARN;
    });
    await sealer.unseal(SECRET, { subscriptionId: 'whk_1' });
    expect(lookups).toBe(0);
    const sealed = await sealer.seal(SECRET, { subscriptionId: 'whk_1' });
    expect(await sealer.unseal(sealed, { subscriptionId: 'whk_1' })).toBe(SECRET);
    expect(lookups).toBe(1);
  });
});

describe('LocalSecretSealer', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-sealer-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('seals with AES-GCM bound to the subscription, under a key kept owner-only in the state folder', async () => {
    const sealed = await new LocalSecretSealer(dataDir).seal(SECRET, { subscriptionId: 'whk_1' });
    expect(sealed.startsWith(LOCAL_SEALED_PREFIX)).toBe(true);
    expect(sealed).not.toContain(SECRET);
    expect(statSync(join(dataDir, WEBHOOK_SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    // A restart reads the same key.
    expect(await new LocalSecretSealer(dataDir).unseal(sealed, { subscriptionId: 'whk_1' })).toBe(SECRET);
    await expect(new LocalSecretSealer(dataDir).unseal(sealed, { subscriptionId: 'whk_2' })).rejects.toThrow();
    // Another state folder's key does not open it.
    const other = mkdtempSync(join(tmpdir(), 'gcf-sealer-'));
    try {
      await expect(new LocalSecretSealer(other).unseal(sealed, { subscriptionId: 'whk_1' })).rejects.toThrow();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('passes a plaintext value through and marks it for re-sealing', async () => {
    const sealer = new LocalSecretSealer();
    expect(sealer.isSealed(SECRET)).toBe(false);
    expect(await sealer.unseal(SECRET, { subscriptionId: 'whk_1' })).toBe(SECRET);
  });
});

describe('SECRETS_WITHHELD', () => {
  it('refuses to seal and leaves stored values as they are', async () => {
    await expect(SECRETS_WITHHELD.seal(SECRET, { subscriptionId: 'whk_1' })).rejects.toBeInstanceOf(SecretsWithheld);
    expect(await SECRETS_WITHHELD.unseal('kms:v1:abc', { subscriptionId: 'whk_1' })).toBe('kms:v1:abc');
    expect(SECRETS_WITHHELD.isSealed(SECRET)).toBe(true);
  });
});
