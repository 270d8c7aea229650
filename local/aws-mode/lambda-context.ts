import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * The Lambda context of one invocation on this machine. Passing one makes the handler wrapper
 * (lambdas/http/lambda-handler.ts) do what it does in Lambda: the logger's function and request
 * keys, the request log line of an API route, and the EMF metrics flushed after each invocation.
 */
export function lambdaContext(functionName: string, region: string, timeoutMs: number): () => Context {
  return () => {
    const deadline = Date.now() + timeoutMs;
    const unsupported = () => {
      throw new Error('the handlers of this service are async');
    };
    return {
      callbackWaitsForEmptyEventLoop: false,
      functionName,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${functionName}`,
      logStreamName: 'local',
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: unsupported,
      fail: unsupported,
      succeed: unsupported,
    };
  };
}
