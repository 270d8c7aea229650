import { FUNCTION_ENV } from '../../lambdas/composition/function-env';
import type { CorsOrigins } from '../../lambdas/http/cors';
import type { TableCredentials } from '../table-credentials';

/**
 * Every environment variable the functions read in the local AWS mode, in one place. The
 * service's own are the names ServiceFunction's bind* helpers set (FUNCTION_ENV); the rest are the
 * AWS SDK's: the region and credentials Lambda gives a function, and the service endpoints
 * (AWS_ENDPOINT_URL_<SERVICE>, which the SDK honours) that point `new DynamoDBClient({})` and
 * `new SQSClient({})` at dynalite and ElasticMQ. Not set, as in AWS for these functions:
 * EMBEDDING_MODEL and EMBEDDING_DIMENSIONS (the local embedder is passed in, not Bedrock),
 * SEARCH_INDEX_REPLICAS (a one-node engine: the default of none), TIER_QUOTAS (the built-in tiers).
 */

/** The service name the CDK app gives every function (lib/config.ts, serviceName). */
const SERVICE_NAME = 'gcf-data-service';

export interface LocalAwsResources {
  region: string;
  tableName: string;
  /** The table's endpoint: the stream proxy in front of dynalite. */
  dynamoEndpoint: string;
  /**
   * The credentials Lambda would give the functions: the table's random one of this start, which
   * the stream proxy checks on every request (ElasticMQ takes any signed request).
   */
  credentials: TableCredentials;
  sqsEndpoint: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  searchEndpoint: string;
  semanticFloor?: number;
  /** The API functions' allowed CORS origins (default: any). */
  corsOrigins?: CorsOrigins;
}

export function lambdaEnvironment(resources: LocalAwsResources): Record<string, string> {
  return {
    [FUNCTION_ENV.serviceName]: SERVICE_NAME,
    [FUNCTION_ENV.recordsTableName]: resources.tableName,
    [FUNCTION_ENV.searchDomainEndpoint]: resources.searchEndpoint,
    [FUNCTION_ENV.webhookQueueUrl]: resources.queueUrl,
    [FUNCTION_ENV.webhookDeadLetterQueueUrl]: resources.deadLetterQueueUrl,
    ...(resources.semanticFloor === undefined ? {} : { [FUNCTION_ENV.semanticFloor]: String(resources.semanticFloor) }),
    // As ServiceApi sets it on every API function (lib/stateless-stack.ts).
    ...(resources.corsOrigins === undefined ? {} : { [FUNCTION_ENV.corsAllowedOrigins]: JSON.stringify(resources.corsOrigins) }),
    AWS_REGION: resources.region,
    AWS_DEFAULT_REGION: resources.region,
    AWS_ACCESS_KEY_ID: resources.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: resources.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: resources.dynamoEndpoint,
    AWS_ENDPOINT_URL_SQS: resources.sqsEndpoint,
    // The pinned SDK's notice that its 2027 releases need Node 22 (Lambda's runtime) is not for each start.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * Sets the functions' environment on this process, as Lambda sets it before a function's code
 * loads: the SDK clients the composition roots create read it from process.env. A value already
 * set by the user for one of these names is replaced (it would point a client elsewhere), except
 * AWS_SESSION_TOKEN and AWS_PROFILE, which are removed for the same reason.
 */
export function applyLambdaEnvironment(env: Record<string, string>): void {
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  Object.assign(process.env, env);
}
