import type { IndexCheck, OpenSearchIndex } from '../adapters/aws/opensearch-index';
import { statusOf } from '../adapters/aws/opensearch-responses';
import { openSearchIndexFor } from '../composition/aws-search';
import { awsTelemetry } from '../composition/aws-telemetry';
import { RESOURCE_KINDS } from '../core/records';
import { type BackoffCeiling, fullJitterDelayMs, sleepMs } from '../core/retry/full-jitter';
import { logger } from '../http/api-gateway';
import { lambdaHandler } from '../http/lambda-handler';
import type { VectorSpace } from '../ports/embedder';

/**
 * The search indices' deploy-time bootstrap: the onEvent handler of a CloudFormation custom
 * resource (CDK Provider framework). On Create and Update it makes each kind's versioned index and
 * alias where missing, in the vector space of the resource's properties, and checks the ones that
 * exist. An index that records another vector space fails the deployment with the remedy, so a
 * new embedder is never deployed against old vectors. A 403 is retried for about 30 s (IAM
 * propagation to a domain created in the same deployment). Delete does nothing: the indices are data
 * (retained with the domain), and the stream and the admin CLI can always rebuild them.
 */

export const PHYSICAL_RESOURCE_ID = 'gcf-search-indices';

export interface BootstrapEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  PhysicalResourceId?: string;
  /** CloudFormation passes every property as a string. */
  ResourceProperties: { Embedder?: string; Dimensions?: string | number; ServiceToken?: string };
}

export interface BootstrapResponse {
  PhysicalResourceId: string;
  /** One attribute per kind, e.g. `grant: "found gcf-grants-v1"`. */
  Data?: Record<string, string>;
}

export function vectorSpaceOfProperties(properties: BootstrapEvent['ResourceProperties']): VectorSpace {
  const embedder = properties.Embedder;
  const dimensions = Number(properties.Dimensions);
  if (!embedder) throw new Error('the search index bootstrap needs the Embedder property');
  if (!Number.isInteger(dimensions) || dimensions <= 0)
    throw new Error(`the search index bootstrap needs Dimensions as a positive integer, got "${properties.Dimensions}"`);
  return { embedder, dimensions };
}

/**
 * How long the bootstrap retries a 403. The function's role and the domain's access policy are
 * created in the same deployment, and IAM takes some seconds to reach the domain's nodes; until
 * then every signed request is refused. Only here: at run time a 403 is a real misconfiguration.
 */
export interface ForbiddenRetry {
  forMs: number;
  backoff: BackoffCeiling;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  random: () => number;
}

export const FORBIDDEN_RETRY: ForbiddenRetry = { forMs: 30_000, backoff: { baseMs: 500, maxMs: 5_000 }, sleep: sleepMs, now: Date.now, random: Math.random };

async function retriedWhileForbidden<T>(attempt: () => Promise<T>, retry: ForbiddenRetry): Promise<T> {
  const deadline = retry.now() + retry.forMs;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (statusOf(error) !== 403 || retry.now() >= deadline) throw error;
      logger.warn('the search domain refused the bootstrap (403); IAM may still be reaching it, trying again', { tries });
      await retry.sleep(fullJitterDelayMs(tries, retry.backoff, retry.random));
    }
  }
}

function describeCheck(check: IndexCheck): string {
  return `${check.status} ${check.indices.join(', ')}`;
}

export async function bootstrapSearchIndices(
  event: BootstrapEvent,
  indexFor: (space: VectorSpace) => Pick<OpenSearchIndex, 'ensureIndices'>,
  retry: ForbiddenRetry = FORBIDDEN_RETRY,
): Promise<BootstrapResponse> {
  if (event.RequestType === 'Delete') {
    logger.info('search indices retained on delete');
    return { PhysicalResourceId: event.PhysicalResourceId ?? PHYSICAL_RESOURCE_ID };
  }
  const space = vectorSpaceOfProperties(event.ResourceProperties);
  const index = indexFor(space);
  const checks = await retriedWhileForbidden(() => index.ensureIndices(RESOURCE_KINDS), retry);
  logger.info('search indices checked', { space, checks });
  const mismatches = checks.filter((check) => check.status === 'mismatch');
  if (mismatches.length > 0) {
    // The Provider framework reports the message to CloudFormation, which fails and rolls back.
    throw new Error(mismatches.map((check) => check.message).join(' '));
  }
  return { PhysicalResourceId: PHYSICAL_RESOURCE_ID, Data: Object.fromEntries(checks.map((check) => [check.kind, describeCheck(check)])) };
}

export const handler = lambdaHandler(
  'search-index-bootstrap',
  awsTelemetry,
  (event: BootstrapEvent): Promise<BootstrapResponse> => bootstrapSearchIndices(event, (space) => openSearchIndexFor(process.env, space)),
);
