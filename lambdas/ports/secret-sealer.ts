/** What a sealed secret is bound to: a sealed value copied to another subscription does not open. */
export interface SealContext {
  readonly subscriptionId: string;
}

/**
 * Seals the webhook signing secrets before they are stored, and opens them for the functions that
 * sign (the sender) or rotate (the admin path): KMS in AWS (adapters/aws/kms-secret-sealer.ts), a
 * local AES key for `npm start` and tests (adapters/embedded/local-secret-sealer.ts).
 */
export interface SecretSealer {
  seal(secret: string, context: SealContext): Promise<string>;
  /** The secret; a value stored before secrets were sealed (plaintext) comes back as it is. */
  unseal(stored: string, context: SealContext): Promise<string>;
  /** Whether a stored value is sealed already; a plaintext one is sealed on the subscription's next write. */
  isSealed(stored: string): boolean;
}

export class SecretsWithheld extends Error {}

/**
 * For functions without the key (the fan-out, the deadline scan): subscriptions are read with
 * their secrets still sealed, which these functions never use, and writing a secret is refused.
 */
export const SECRETS_WITHHELD: SecretSealer = {
  seal: async () => {
    throw new SecretsWithheld('this function may not seal webhook secrets');
  },
  unseal: async (stored) => stored,
  // Never asks to re-seal a plaintext value: it could not.
  isSealed: () => true,
};
