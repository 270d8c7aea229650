import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBRecord, DynamoDBStreamHandler } from 'aws-lambda';
import { recordChangeOf } from '../adapters/aws/dynamo-stream-changes';
import { METRIC_NAMES } from '../core/metric-names';
import { type IndexerPorts, indexRecordChanges } from '../core/use-cases/index-record-changes';
import { type MetricsRecorder, noMetrics } from '../ports/metrics';
import { logger } from './api-gateway';

/**
 * The indexer in AWS: the records table's stream -> the search index and the change outbox. A
 * batch is indexed as one: each record's last write, its texts embedded in one call, one `_bulk`
 * per kind, and every change's event. If that fails, the batch is indexed again record by record
 * in stream order, so the one that fails is found and reported back (partial batch response) and
 * retried from there without redoing the records before it. After each batch, IndexerLagSeconds
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

  async function indexBatch(records: readonly DynamoDBRecord[]): Promise<boolean> {
    const changes = records.map(recordChangeOf).filter((change) => change !== null);
    try {
      const events = await indexRecordChanges(changes, ports());
      logger.debug('indexed a batch', { records: records.length, changes: changes.length, events });
      return true;
    } catch (error) {
      logger.warn('could not index the batch as one; indexing its records one by one to find the failing one', { records: records.length, error });
      return false;
    }
  }

  return async (event, context) => {
    const response = (await indexBatch(event.Records))
      ? { batchItemFailures: [] }
      : await processPartialResponse(event, indexStreamRecord, processor, { context, processInParallel: false });
    const created = event.Records.map((record) => record.dynamodb?.ApproximateCreationDateTime).filter((at): at is number => typeof at === 'number');
    if (created.length > 0) {
      const lagSeconds = Math.max(0, ports().clock.now().getTime() / 1000 - Math.min(...created));
      metrics.record(METRIC_NAMES.indexerLagSeconds, 'Seconds', lagSeconds);
    }
    return response;
  };
}
