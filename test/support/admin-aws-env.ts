import type { EmbeddedStack } from '../../local/embedded-stack';

/**
 * The environment of an admin CLI child run with `--target aws` against an embedded stack's table
 * over loopback (its `tableEndpoint` credential), no profile, plus the stand-ins' endpoints.
 */
export function adminAwsEnv(stack: EmbeddedStack, endpoints: Record<string, string> = {}): NodeJS.ProcessEnv {
  const table = stack.tableEndpoint;
  if (!table) throw new Error('adminAwsEnv needs a stack started with tableEndpoint: true');
  return {
    ...process.env,
    AWS_ACCESS_KEY_ID: table.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: table.credentials.secretAccessKey,
    AWS_REGION: 'us-east-1',
    AWS_PROFILE: '',
    AWS_ENDPOINT_URL_DYNAMODB: table.url,
    ...endpoints,
  };
}
