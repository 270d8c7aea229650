import { CORS_ORIGINS_ENV } from '../http/cors';
import { WEBHOOK_QUEUE_ENV } from './webhook-env';

/**
 * Environment variables the handlers' composition root reads, as ServiceFunction's bind* helpers
 * set them. Kept free of CDK imports: the local AWS mode (`npm start -- --engines`) sets the same
 * names without loading aws-cdk-lib.
 */
export const FUNCTION_ENV = {
  recordsTableName: 'RECORDS_TABLE_NAME',
  searchDomainEndpoint: 'SEARCH_DOMAIN_ENDPOINT',
  searchIndexReplicas: 'SEARCH_INDEX_REPLICAS',
  /** The k-NN graph and window of the search indices, a JSON object (lambdas/adapters/aws/opensearch-vector-search.ts). */
  searchVectorSettings: 'SEARCH_VECTOR_SETTINGS',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  embeddingModel: 'EMBEDDING_MODEL',
  embeddingDimensions: 'EMBEDDING_DIMENSIONS',
  semanticFloor: 'SEMANTIC_FLOOR',
  cursorKeySecretArn: 'CURSOR_KEY_SECRET_ARN',
  /** The authorizer's tier keys: API Gateway key ids by tier, a JSON object (lib/constructs/api-access.ts). */
  tierApiKeyIds: 'TIER_API_KEY_IDS',
  webhookQueueUrl: WEBHOOK_QUEUE_ENV.queueUrl,
  webhookDeadLetterQueueUrl: WEBHOOK_QUEUE_ENV.deadLetterQueueUrl,
  /** The API functions' allowed CORS origins, a JSON array (lambdas/http/cors.ts). */
  corsAllowedOrigins: CORS_ORIGINS_ENV,
  /** The docs page's script origin, `https://<id>.cloudfront.net` (lib/constructs/docs-assets.ts); unset: same origin. */
  docsAssetBaseUrl: 'DOCS_ASSET_BASE_URL',
  /** The docs page's script's Subresource Integrity (`sha384-…` of the uploaded body), required with DOCS_ASSET_BASE_URL. */
  docsAssetIntegrity: 'DOCS_ASSET_INTEGRITY',
  /** The account API's OIDC issuer and the ID tokens' audience (the dashboard's app client id). */
  accountTokenIssuer: 'ACCOUNT_TOKEN_ISSUER',
  accountTokenAudience: 'ACCOUNT_TOKEN_AUDIENCE',
  /** Optional: the issuer's key set, which skips discovery (Cognito's is `<issuer>/.well-known/jwks.json`). */
  accountTokenJwksUri: 'ACCOUNT_TOKEN_JWKS_URI',
} as const;

/** A variable the stack sets on a function; its absence means the function is not bound to the resource. */
export function requireEnv(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: bind this function to the resource in lib/api-routes.ts`);
  return value;
}
