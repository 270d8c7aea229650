import type { APIGatewayRequestAuthorizerEvent, Context, ScheduledEvent } from 'aws-lambda';
import type { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { createAwsServices } from '../../lambdas/composition/aws';
import { createAwsDeadlineScanPorts } from '../../lambdas/composition/aws-deadline-scan';
import {
  createAwsBackfillPorts,
  createAwsIndexerPorts,
  createAwsSearchServices,
  type EmbeddingSource,
  openSearchIndexFor,
} from '../../lambdas/composition/aws-search';
import { awsTelemetry } from '../../lambdas/composition/aws-telemetry';
import { createAwsDeliveryPorts, createAwsFanOutPorts, createAwsWebhookAdapters } from '../../lambdas/composition/aws-webhooks';
import { unauthorized } from '../../lambdas/core/auth/api-keys';
import type { TierName } from '../../lambdas/core/auth/tiers';
import type { IndexerPorts } from '../../lambdas/core/use-cases/index-record-changes';
import { type BootstrapEvent, bootstrapSearchIndices } from '../../lambdas/handlers/bootstrap-search-index';
import type { ApiEvent, ApiResult } from '../../lambdas/http/api-gateway';
import { changeFanOutHandler } from '../../lambdas/http/change-fan-out';
import { CORS_ORIGINS_ENV, parseCorsOrigins } from '../../lambdas/http/cors';
import { deadlineScanHandler } from '../../lambdas/http/deadline-scan';
import { docsPageRoute } from '../../lambdas/http/docs-page';
import { apiHandler, lambdaHandler } from '../../lambdas/http/lambda-handler';
import { openApiRoute } from '../../lambdas/http/openapi';
import { requestAuthorizerHandler } from '../../lambdas/http/request-authorizer';
import { getRoute, listRoute, matchGrantsRoute, semanticSearchRoute } from '../../lambdas/http/routes';
import { streamIndexerHandler } from '../../lambdas/http/stream-indexer';
import { vectorBackfillHandler } from '../../lambdas/http/vector-backfill';
import { webhookSenderHandler } from '../../lambdas/http/webhook-sender';
import type { CursorKeySource } from '../../lambdas/ports/cursor-key';
import type { Embedder } from '../../lambdas/ports/embedder';
import type { SecretSealer } from '../../lambdas/ports/secret-sealer';
import type { Services } from '../../lambdas/ports/services';
import { API_ROUTES } from '../../lib/api-routes';
import { type LocalRoute, localDocsAssetRoute } from '../api-routes';
import type { LocalAuthorizer } from '../http-server';
import { lambdaContext } from './lambda-context';
import type { SqsLambdaHandler } from './sqs-event-source';
import type { StreamHandler } from './table-stream';

/**
 * The service's functions as the local AWS mode runs them: each built by the Lambdas' composition
 * roots (lambdas/composition) from the environment they read in AWS, wrapped by the same handler
 * wrapper, one warm instance each. The substitutions are the embedder (the local sentence model
 * in place of Bedrock, which cannot be reached from here) and the list cursors' key (the state
 * folder's, in place of the Secrets Manager secret), and the webhook secrets' sealer (the state
 * folder's key, in place of KMS). Webhook destinations follow the local
 * policy (http to loopback allowed), so a receiver on this machine can be subscribed.
 */

export interface LocalAwsFunctions {
  /** API_ROUTES (lib/api-routes.ts), each calling its function's handler with a Lambda context; and the docs page's script, CloudFront's on AWS. */
  routes: LocalRoute[];
  /** The REQUEST authorizer function, its answer read as API Gateway reads it. */
  authorize: LocalAuthorizer;
  indexer: StreamHandler;
  fanOut: StreamHandler;
  sender: SqsLambdaHandler;
  deadlineScan: (event: ScheduledEvent, context: Context) => Promise<void>;
  vectorBackfill: (event: ScheduledEvent, context: Context) => Promise<void>;
  bootstrap: (event: BootstrapEvent) => Promise<unknown>;
  /** A search function's services: the record store (seeding writes through it), keys, the index. */
  services: Services;
  /** The indexer's ports (a fresh index is filled from the table with them). */
  indexerPorts: IndexerPorts;
  /** The search indices themselves, for their rebuild from the table. */
  indices: OpenSearchIndex;
  /** The Lambda context of one invocation of the named function. */
  context(functionName: string, timeoutMs?: number): () => Context;
}

/** As API Gateway's UNAUTHORIZED gateway response says it (lib/constructs/api.ts). */
const GATEWAY_UNAUTHORIZED = 'Missing or invalid API key';

export function buildLocalAwsFunctions(
  env: NodeJS.ProcessEnv,
  embedder: Embedder,
  region: string,
  cursorKeys: CursorKeySource,
  webhookSecrets: SecretSealer,
): LocalAwsFunctions {
  const embeddings: EmbeddingSource = { space: () => embedder.space, queryEmbedder: () => embedder, recordEmbedder: () => embedder };
  const recordServices = createAwsServices(env);
  const searchServices = createAwsSearchServices(env, embeddings, () => cursorKeys);
  const indexerPorts = createAwsIndexerPorts(env, embeddings);
  const backfillPorts = createAwsBackfillPorts(env, embeddings);
  const webhookAdapters = createAwsWebhookAdapters(env, webhookSecrets);
  const deliveryPorts = createAwsDeliveryPorts(webhookAdapters);
  // As the fan-out and deadline-scan functions compose them (aws-fan-out.ts, aws-deadline-scan.ts): saved searches through the list's services.
  const fanOutPorts = { ...createAwsFanOutPorts(webhookAdapters), savedSearch: searchServices };
  const deadlinePorts = createAwsDeadlineScanPorts(webhookAdapters, openSearchIndexFor(env, embedder.space), searchServices);
  const context = (functionName: string, timeoutMs = 30_000) => lambdaContext(`gcf-local-${functionName}`, region, timeoutMs);

  const records = () => recordServices;
  const search = () => searchServices;
  // What each route's entry (lib/api-routes.ts) exports as its handler, bound to these services.
  const routeFunctions: Record<string, (event: ApiEvent) => Promise<ApiResult>> = {
    'lambdas/handlers/list-grants.ts': listRoute('grant', search),
    'lambdas/handlers/get-grant.ts': getRoute('grant', records),
    'lambdas/handlers/list-contracts.ts': listRoute('contract', search),
    'lambdas/handlers/get-contract.ts': getRoute('contract', records),
    'lambdas/handlers/list-funders.ts': listRoute('funder', search),
    'lambdas/handlers/get-funder.ts': getRoute('funder', records),
    'lambdas/handlers/semantic-search.ts': semanticSearchRoute(search),
    'lambdas/handlers/match-grants.ts': matchGrantsRoute(search),
    'lambdas/handlers/openapi.ts': openApiRoute(),
    // Without DOCS_ASSET_BASE_URL, as here, the page loads its script from its own origin.
    'lambdas/handlers/docs-page.ts': docsPageRoute(),
  };
  // As the API functions' composition root reads it (composition/aws-cors.ts).
  const corsOrigins = parseCorsOrigins(env[CORS_ORIGINS_ENV], CORS_ORIGINS_ENV);
  const routes = API_ROUTES.map((route): LocalRoute => {
    const fn = routeFunctions[route.entry];
    if (!fn) throw new Error(`the local AWS mode has no function for ${route.entry}: add it to local/aws-mode/lambda-functions.ts`);
    const name = `${route.method} ${route.path}`;
    const handler = apiHandler(name, awsTelemetry, fn, corsOrigins);
    const invocation = context(route.entry.replace(/^.*\//, '').replace(/\.ts$/, ''));
    return {
      method: route.method as LocalRoute['method'],
      resource: route.path,
      authenticated: !route.public,
      handler: (event) => handler(event, invocation()),
    };
  });
  routes.push(localDocsAssetRoute());

  const authorizer = lambdaHandler('authorizer', awsTelemetry, requestAuthorizerHandler(records));
  const authorizerContext = context('authorizer');
  const authorize: LocalAuthorizer = async (authorization) => {
    const event = {
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:${region}:000000000000:local/functions/GET/`,
      headers: authorization?.length ? { Authorization: authorization[authorization.length - 1]! } : {},
      multiValueHeaders: authorization?.length ? { Authorization: [...authorization] } : {},
    } as unknown as APIGatewayRequestAuthorizerEvent;
    try {
      const result = await authorizer(event, authorizerContext());
      const { keyId, tier } = result.context as { keyId: string; tier: TierName };
      return { keyId, tier };
    } catch (error) {
      // API Gateway answers a function that says "Unauthorized" with its UNAUTHORIZED gateway response.
      if ((error as Error).message === 'Unauthorized') throw unauthorized(GATEWAY_UNAUTHORIZED);
      throw error;
    }
  };

  return {
    routes,
    authorize,
    indexer: lambdaHandler(
      'indexer',
      awsTelemetry,
      streamIndexerHandler(() => indexerPorts, awsTelemetry.metrics),
    ) as StreamHandler,
    fanOut: lambdaHandler(
      'webhook-fan-out',
      awsTelemetry,
      changeFanOutHandler(() => fanOutPorts),
    ) as StreamHandler,
    sender: lambdaHandler(
      'webhook-sender',
      awsTelemetry,
      webhookSenderHandler(() => deliveryPorts, { mode: 'local' }, awsTelemetry.metrics),
    ) as SqsLambdaHandler,
    deadlineScan: lambdaHandler(
      'deadline-scan',
      awsTelemetry,
      deadlineScanHandler(() => deadlinePorts),
    ) as LocalAwsFunctions['deadlineScan'],
    vectorBackfill: lambdaHandler(
      'vector-backfill',
      awsTelemetry,
      vectorBackfillHandler(() => backfillPorts),
    ) as LocalAwsFunctions['vectorBackfill'],
    bootstrap: lambdaHandler('search-index-bootstrap', awsTelemetry, (event: BootstrapEvent) =>
      bootstrapSearchIndices(event, (space) => openSearchIndexFor(env, space)),
    ),
    services: searchServices,
    indexerPorts,
    indices: openSearchIndexFor(env, embedder.space),
    context,
  };
}
