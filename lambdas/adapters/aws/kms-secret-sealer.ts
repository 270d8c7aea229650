import { DecryptCommand, EncryptCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SealContext, SecretSealer } from '../../ports/secret-sealer';

/** Marks a value sealed by this adapter: `kms:v1:<base64 ciphertext blob>`. */
export const KMS_SEALED_PREFIX = 'kms:v1:';

const encryptionContextOf = (context: SealContext) => ({ subscription_id: context.subscriptionId });

/** Opened secrets a warm function keeps: the sender signs many deliveries to few subscriptions. */
const OPENED_CACHE_SIZE = 500;

/**
 * Direct KMS encryption of each secret (a signing secret is far below KMS's 4 KB limit, so no
 * envelope is needed) under the stage's customer-managed key, bound to its subscription by the
 * encryption context, which CloudTrail also records with every Decrypt.
 */
export class KmsSecretSealer implements SecretSealer {
  private keyArn: Promise<string> | undefined;
  /** By subscription and sealed value, so a rotated secret or a value copied elsewhere is a miss. */
  private readonly opened = new Map<string, Promise<string>>();

  /** `keyId` may be looked up (the admin CLI reads it from the stack), once and only when a secret is sealed or opened. */
  constructor(
    private readonly kms: Pick<KMSClient, 'send'>,
    private readonly keyId: string | (() => Promise<string>),
  ) {}

  private key(): Promise<string> {
    const { keyId } = this;
    this.keyArn ??= typeof keyId === 'string' ? Promise.resolve(keyId) : keyId();
    return this.keyArn;
  }

  async seal(secret: string, context: SealContext): Promise<string> {
    const { CiphertextBlob } = await this.kms.send(
      new EncryptCommand({ KeyId: await this.key(), Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: encryptionContextOf(context) }),
    );
    if (!CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
    return `${KMS_SEALED_PREFIX}${Buffer.from(CiphertextBlob).toString('base64')}`;
  }

  async unseal(stored: string, context: SealContext): Promise<string> {
    if (!this.isSealed(stored)) return stored;
    const cacheKey = `${context.subscriptionId}\u0000${stored}`;
    let opening = this.opened.get(cacheKey);
    if (!opening) {
      if (this.opened.size >= OPENED_CACHE_SIZE) this.opened.delete(this.opened.keys().next().value!);
      opening = this.decrypt(stored, context);
      this.opened.set(cacheKey, opening);
      opening.catch(() => this.opened.delete(cacheKey));
    }
    return opening;
  }

  private async decrypt(stored: string, context: SealContext): Promise<string> {
    const { Plaintext } = await this.kms.send(
      new DecryptCommand({
        // Naming the key makes KMS refuse a blob sealed under any other key.
        KeyId: await this.key(),
        CiphertextBlob: Buffer.from(stored.slice(KMS_SEALED_PREFIX.length), 'base64'),
        EncryptionContext: encryptionContextOf(context),
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt returned no plaintext');
    return Buffer.from(Plaintext).toString('utf8');
  }

  isSealed(stored: string): boolean {
    return stored.startsWith(KMS_SEALED_PREFIX);
  }
}
