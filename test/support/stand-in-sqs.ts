import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { readBody } from './stand-in-opensearch';

/**
 * A stand-in for SQS on loopback, speaking the AWS JSON 1.0 protocol of the SQS client: it accepts
 * SendMessage (answering the body's MD5, which the client checks) and keeps every message per
 * queue URL. Point a queue URL at `${endpoint}/<account>/<name>`; the client sends to the queue
 * URL's host. No receive, visibility or delay semantics: a test hands the messages to a handler
 * as an SQS event (eventOf) and reads the delays it was asked for. GetQueueAttributes answers the
 * message counts (every kept message is visible), for `admin status`.
 */
export interface SentMessage {
  messageId: string;
  queueUrl: string;
  body: string;
  delaySeconds: number;
}

export interface StandInSqs {
  endpoint: string;
  queueUrl(name: string): string;
  sent: SentMessage[];
  /** Takes (and forgets) the messages sent to a queue so far. */
  drain(queueUrl: string): SentMessage[];
  close(): Promise<void>;
}

export async function startStandInSqs(): Promise<StandInSqs> {
  const sent: SentMessage[] = [];
  const server: Server = createServer(async (request, response) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const input = JSON.parse(await readBody(request)) as { QueueUrl: string; MessageBody: string; DelaySeconds?: number; AttributeNames?: string[] };
    if (target === 'AmazonSQS.GetQueueAttributes') {
      const counts: Record<string, string> = {
        ApproximateNumberOfMessages: String(sent.filter((message) => message.queueUrl === input.QueueUrl).length),
        ApproximateNumberOfMessagesNotVisible: '0',
        ApproximateNumberOfMessagesDelayed: '0',
      };
      response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify({ Attributes: Object.fromEntries((input.AttributeNames ?? []).filter((name) => name in counts).map((name) => [name, counts[name]])) }),
      );
      return;
    }
    if (target !== 'AmazonSQS.SendMessage') {
      response.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `${target} is not supported by the stand-in` }));
      return;
    }
    const delay = input.DelaySeconds ?? 0;
    if (!Number.isInteger(delay) || delay < 0 || delay > 900) {
      response.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidParameterValue', message: `DelaySeconds must be 0-900, got ${delay}` }));
      return;
    }
    const messageId = randomUUID();
    sent.push({ messageId, queueUrl: input.QueueUrl, body: input.MessageBody, delaySeconds: delay });
    response.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' });
    response.end(JSON.stringify({ MessageId: messageId, MD5OfMessageBody: createHash('md5').update(input.MessageBody).digest('hex') }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    queueUrl: (name) => `${endpoint}/123456789012/${name}`,
    sent,
    drain(queueUrl) {
      const taken = sent.filter((message) => message.queueUrl === queueUrl);
      sent.splice(0, sent.length, ...sent.filter((message) => message.queueUrl !== queueUrl));
      return taken;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Messages as the SQS event a Lambda event source would hand over (receive count 1). */
export function sqsEventOf(messages: readonly Pick<SentMessage, 'messageId' | 'body'>[]): SQSEvent {
  return {
    Records: messages.map(
      (message): SQSRecord => ({
        messageId: message.messageId,
        receiptHandle: `handle-${message.messageId}`,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'stand-in',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: createHash('md5').update(message.body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:webhooks',
        awsRegion: 'us-east-1',
      }),
    ),
  };
}
