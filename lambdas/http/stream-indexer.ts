import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { recordChangeOf } from '../adapters/aws/dynamo-stream-changes';
import { METRIC_NAMES } from '../core/metric-names';
import { indexRecordChanges, type IndexerPorts } from '../core/use-cases/index-record-changes';
import { noMetrics, type MetricsRecorder } from '../ports/metrics';
import { logger } from './api-gateway';

/**
 * The indexer in AWS: the records table's stream -> the search index and the change outbox. Each
 * stream record is processed on its own and in order (two writes of one record in a batch must
 * reach the index in stream order), so one that fails is reported back (partial batch response)
 * and retried from there without redoing the records before it. After each batch, IndexerLagSeconds
 * is the largest age among its records (now minus the stream's ApproximateCreationDateTime): how
 * far the search index trailed the table.
 */
export function streamIndexerHandler(ports: () => IndexerPorts, metrics: MetricsRecorder = noMetrics): DynamoDBStreamHandler {
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

  return async (event, context) => {
    const response = await processPartialResponse(event, indexStreamRecord, processor, { context, processInParallel: false });
    const created = event.Records.map((record) => record.dynamodb?.ApproximateCreationDateTime).filter((at): at is number => typeof at === 'number');
    if (created.length > 0) {
      const lagSeconds = Math.max(0, ports().clock.now().getTime() / 1000 - Math.min(...created));
      metrics.record(METRIC_NAMES.indexerLagSeconds, 'Seconds', lagSeconds);
    }
    return response;
  };
}
