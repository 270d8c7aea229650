import { randomBytes } from 'node:crypto';
import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { randomBase62 } from '../../core/auth/api-keys';
import type { TierName } from '../../core/auth/tiers';
import type { UsagePlanKeys } from '../../ports/usage-plans';

/**
 * Gateway keys in the stage's usage plans (one per tier, ids from the stateless stack's outputs).
 * A gateway key's value is random and never shown: the authorizer hands it to API Gateway.
 */
export class ApiGatewayUsagePlans implements UsagePlanKeys {
  constructor(
    private readonly client: APIGatewayClient,
    private readonly planIds: Readonly<Record<TierName, string>>,
  ) {}

  async issue(keyId: string, tier: TierName): Promise<{ usageKey: string; apiKeyId: string }> {
    const usageKey = `gcfu_${randomBase62(40, randomBytes)}`;
    const created = await this.client.send(new CreateApiKeyCommand({ name: keyId, value: usageKey, enabled: true, description: `usage-plan key of ${keyId}` }));
    const apiKeyId = created.id!;
    try {
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId: this.planIds[tier], keyId: apiKeyId, keyType: 'API_KEY' }));
    } catch (error) {
      await this.remove(apiKeyId);
      throw error;
    }
    return { usageKey, apiKeyId };
  }

  async changeTier(apiKeyId: string, from: TierName, to: TierName): Promise<void> {
    await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId: this.planIds[to], keyId: apiKeyId, keyType: 'API_KEY' }));
    await this.client.send(new DeleteUsagePlanKeyCommand({ usagePlanId: this.planIds[from], keyId: apiKeyId }));
  }

  async disable(apiKeyId: string): Promise<void> {
    await this.client.send(new UpdateApiKeyCommand({ apiKey: apiKeyId, patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }] }));
  }

  async remove(apiKeyId: string): Promise<void> {
    await this.client.send(new DeleteApiKeyCommand({ apiKey: apiKeyId }));
  }
}
