import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ServiceError } from '../core/errors';
import { authenticate } from '../core/use-cases/authenticate';
import type { Clock } from '../ports/clock';
import type { KeyStore } from '../ports/key-store';
import type { TierUsageKeys } from '../ports/tier-usage-keys';
import { keyIdPrefixOf, logger } from './api-gateway';
import { headerOf } from './headers';

/** Every value sent for a header, whatever its case. */
function authorizationValues(event: APIGatewayRequestAuthorizerEvent): string[] | undefined {
  const multi = Object.entries(event.multiValueHeaders ?? {})
    .filter(([name]) => name.toLowerCase() === 'authorization')
    .flatMap(([, values]) => values ?? []);
  if (multi.length > 0) return multi;
  const single = headerOf(event.headers, 'authorization');
  return single ? [single] : undefined;
}

/** The policy covers every method of the stage: API Gateway caches it per Authorization header for all routes. */
function stageWideResource(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*/*`;
}

/**
 * The REQUEST authorizer in front of every data route: the same `authenticate` the local server
 * runs. It allows a known key with its principal (key id, tier) as context and its tier's API
 * Gateway key as usageIdentifierKey (none locally, where `tierKeys` is absent); anything else is "Unauthorized", which API Gateway
 * answers with its UNAUTHORIZED gateway response (401, our error body). Keys are never logged.
 */
export function requestAuthorizerHandler(ports: () => { keys: KeyStore; clock: Clock; tierKeys?: TierUsageKeys }) {
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const { keys, clock, tierKeys } = ports();
    try {
      const principal = await authenticate(authorizationValues(event), keys, clock.now());
      const usageKey = tierKeys ? await tierKeys.valueOf(principal.tier) : undefined;
      logger.info('authorized', { keyIdPrefix: keyIdPrefixOf(principal.keyId), tier: principal.tier });
      return {
        principalId: principal.keyId,
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWideResource(event.methodArn) }] },
        context: { keyId: principal.keyId, tier: principal.tier },
        ...(usageKey ? { usageIdentifierKey: usageKey } : {}),
      };
    } catch (error) {
      if (error instanceof ServiceError && error.status === 401) {
        logger.info('refused a request', { reason: error.message, path: event.path });
        throw new Error('Unauthorized');
      }
      throw error;
    }
  };
}
