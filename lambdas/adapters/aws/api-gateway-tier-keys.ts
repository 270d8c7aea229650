import { type APIGatewayClient, GetApiKeyCommand } from '@aws-sdk/client-api-gateway';
import type { TierName } from '../../core/auth/tiers';
import type { TierUsageKeys } from '../../ports/tier-usage-keys';

/**
 * The tier keys' values, read with GetApiKey (includeValue) on first use and kept for the life of
 * the Lambda environment: the CDK creates the keys and passes only their ids.
 */
export class ApiGatewayTierKeys implements TierUsageKeys {
  private readonly values = new Map<TierName, Promise<string>>();

  constructor(
    private readonly client: APIGatewayClient,
    private readonly keyIds: Readonly<Record<TierName, string>>,
  ) {}

  valueOf(tier: TierName): Promise<string> {
    let value = this.values.get(tier);
    if (!value) {
      value = this.read(tier);
      this.values.set(tier, value);
      // A failed read is retried by the next request, not cached.
      value.catch(() => this.values.delete(tier));
    }
    return value;
  }

  private async read(tier: TierName): Promise<string> {
    const keyId = this.keyIds[tier];
    if (!keyId) throw new Error(`no gateway key id for tier ${tier}`);
    const key = await this.client.send(new GetApiKeyCommand({ apiKey: keyId, includeValue: true }));
    if (!key.value) throw new Error(`gateway key ${keyId} of tier ${tier} has no value`);
    return key.value;
  }
}
