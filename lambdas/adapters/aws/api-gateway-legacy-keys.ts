import { type APIGatewayClient, DeleteApiKeyCommand, NotFoundException } from '@aws-sdk/client-api-gateway';
import type { LegacyGatewayKeys } from '../../ports/gateway-keys';

/** Deletes per-customer API Gateway keys left by earlier versions (the usage plan drops them with the key). */
export class ApiGatewayLegacyKeys implements LegacyGatewayKeys {
  constructor(private readonly client: Pick<APIGatewayClient, 'send'>) {}

  async delete(apiKeyId: string): Promise<'deleted' | 'absent'> {
    try {
      await this.client.send(new DeleteApiKeyCommand({ apiKey: apiKeyId }));
      return 'deleted';
    } catch (error) {
      if (error instanceof NotFoundException || (error as { name?: string }).name === 'NotFoundException') return 'absent';
      throw error;
    }
  }
}
