import { DeleteMessageCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * Lambda's SQS event source, as it feeds a function on one machine: receive up to a batch of
 * messages, hand them to the handler as one SQSEvent, then delete every message the handler did
 * not report as a batch item failure. What SQS itself does (delays, visibility timeouts, receive
 * counts, the redrive to the dead-letter queue) stays the queue's. The local AWS mode runs it
 * against ElasticMQ, and the engine tests use one poll at a time.
 */

// biome-ignore lint/suspicious/noConfusingVoidType: the Lambda handler type, whose result is optional
export type SqsLambdaHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsQueueSource {
  sqs: SQSClient;
  queueUrl: string;
  /** The queue's ARN, as Lambda puts it on every record (eventSourceARN). */
  queueArn: string;
  region: string;
}

export interface PollResult {
  messages: Message[];
  /** Message ids the handler reported as failed: left on the queue. */
  failures: string[];
}

function sqsRecordOf(message: Message, source: SqsQueueSource): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body!,
    md5OfBody: message.MD5OfBody!,
    messageAttributes: {},
    attributes: message.Attributes as unknown as SQSRecord['attributes'],
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
}

/** One poll: receive (long-polling up to waitSeconds), run the handler, delete what it did not report. */
export async function pollSqsOnce(
  source: SqsQueueSource,
  handler: SqsLambdaHandler,
  context: () => Context,
  options: { batchSize?: number; waitSeconds?: number; abortSignal?: AbortSignal } = {},
): Promise<PollResult> {
  const { Messages: messages = [] } = await source.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: source.queueUrl,
      MaxNumberOfMessages: options.batchSize ?? 10,
      WaitTimeSeconds: options.waitSeconds ?? 5,
      MessageSystemAttributeNames: ['All'],
    }),
    { abortSignal: options.abortSignal },
  );
  if (messages.length === 0) return { messages, failures: [] };
  const response = await handler({ Records: messages.map((m) => sqsRecordOf(m, source)) }, context());
  const failures = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
  for (const m of messages) {
    if (!failures.includes(m.MessageId!)) await source.sqs.send(new DeleteMessageCommand({ QueueUrl: source.queueUrl, ReceiptHandle: m.ReceiptHandle! }));
  }
  return { messages, failures };
}

/**
 * Polls until stopped, as the event source mapping does for as long as it is enabled. A handler
 * that throws fails the whole batch: nothing is deleted, and SQS hands the messages over again
 * after their visibility timeout.
 */
export function startSqsEventSource(
  source: SqsQueueSource,
  handler: SqsLambdaHandler,
  context: () => Context,
  options: { batchSize?: number; onError: (error: unknown) => void },
): { stop(): Promise<void> } {
  const abort = new AbortController();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      try {
        await pollSqsOnce(source, handler, context, { batchSize: options.batchSize, waitSeconds: 20, abortSignal: abort.signal });
      } catch (error) {
        if (abort.signal.aborted) break;
        options.onError(error);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}
