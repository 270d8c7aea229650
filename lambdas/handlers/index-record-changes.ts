import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { recordChangeOf } from '../adapters/aws/dynamo-stream-changes';
import { awsIndexerPorts } from '../composition/aws';
import { indexRecordChanges } from '../core/use-cases/index-record-changes';
import { logger } from '../http/api-gateway';

/**
 * The indexer in AWS: the records table's stream -> the search index and the change outbox. Each
 * stream record is processed on its own, so one that fails is reported back (partial batch
 * response) and retried without redoing the rest of the batch.
 */
const processor = new BatchProcessor(EventType.DynamoDBStreams);

async function indexStreamRecord(streamRecord: DynamoDBRecord): Promise<void> {
  const change = recordChangeOf(streamRecord);
  if (!change) return;
  const events = await indexRecordChanges([change], awsIndexerPorts());
  logger.debug('indexed a change', { kind: change.kind, id: change.id, events });
}

export const handler: DynamoDBStreamHandler = async (event, context) =>
  processPartialResponse(event, indexStreamRecord, processor, { context });
