import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { recordChangeOf } from '../adapters/aws/dynamo-stream-changes';
import { indexRecordChanges, type IndexerPorts } from '../core/use-cases/index-record-changes';
import { logger } from './api-gateway';

/**
 * The indexer in AWS: the records table's stream -> the search index and the change outbox. Each
 * stream record is processed on its own and in order (two writes of one record in a batch must
 * reach the index in stream order), so one that fails is reported back (partial batch response)
 * and retried from there without redoing the records before it.
 */
export function streamIndexerHandler(ports: () => IndexerPorts): DynamoDBStreamHandler {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);

  async function indexStreamRecord(streamRecord: DynamoDBRecord): Promise<void> {
    const change = recordChangeOf(streamRecord);
    if (!change) return;
    try {
      const events = await indexRecordChanges([change], ports());
      logger.debug('indexed a change', { kind: change.kind, id: change.id, events });
    } catch (error) {
      logger.error('could not index a change', { kind: change.kind, id: change.id, sequenceNumber: streamRecord.dynamodb?.SequenceNumber, error });
      throw error;
    }
  }

  return async (event, context) => processPartialResponse(event, indexStreamRecord, processor, { context, processInParallel: false });
}
