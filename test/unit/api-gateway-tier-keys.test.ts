import { GetApiKeyCommand } from '@aws-sdk/client-api-gateway';
import { describe, expect, it } from 'vitest';
import { ApiGatewayTierKeys } from '../../lambdas/adapters/aws/api-gateway-tier-keys';
import { tierKeyIdsFromEnv } from '../../lambdas/composition/aws';

const IDS = { free: 'id-free', basic: 'id-basic', pro: 'id-pro', developer: 'id-developer' };

/** GetApiKey as API Gateway answers it with includeValue; counts the calls and can fail the next one. */
function fakeClient() {
  const calls: Array<{ apiKey?: string; includeValue?: boolean }> = [];
  let failNext = false;
  const client = {
    send: async (command: unknown) => {
      if (!(command instanceof GetApiKeyCommand)) throw new Error('only GetApiKey');
      calls.push(command.input);
      if (failNext) {
        failNext = false;
        throw new Error('throttled');
      }
      return { id: command.input.apiKey, value: `value-of-${command.input.apiKey}` };
    },
  };
  return { calls, client: client as unknown as ConstructorParameters<typeof ApiGatewayTierKeys>[0], failNext: () => (failNext = true) };
}

describe('the tier keys the authorizer names', () => {
  it("reads each tier key's value once (with includeValue), then answers from memory", async () => {
    const { calls, client } = fakeClient();
    const keys = new ApiGatewayTierKeys(client, IDS);
    expect(await Promise.all([keys.valueOf('pro'), keys.valueOf('pro'), keys.valueOf('basic')])).toEqual([
      'value-of-id-pro',
      'value-of-id-pro',
      'value-of-id-basic',
    ]);
    expect(await keys.valueOf('pro')).toBe('value-of-id-pro');
    expect(calls).toEqual([
      { apiKey: 'id-pro', includeValue: true },
      { apiKey: 'id-basic', includeValue: true },
    ]);
  });

  it('does not keep a failed read: the next request reads again', async () => {
    const fake = fakeClient();
    const keys = new ApiGatewayTierKeys(fake.client, IDS);
    fake.failNext();
    await expect(keys.valueOf('free')).rejects.toThrow('throttled');
    expect(await keys.valueOf('free')).toBe('value-of-id-free');
    expect(fake.calls).toHaveLength(2);
  });

  it('takes the ids from TIER_API_KEY_IDS and fails the cold start when a tier is missing', () => {
    expect(tierKeyIdsFromEnv({ TIER_API_KEY_IDS: JSON.stringify(IDS) })).toEqual(IDS);
    expect(() => tierKeyIdsFromEnv({ TIER_API_KEY_IDS: JSON.stringify({ ...IDS, developer: '' }) })).toThrow(/tier developer/);
    expect(() => tierKeyIdsFromEnv({})).toThrow(/TIER_API_KEY_IDS is not set/);
  });
});
