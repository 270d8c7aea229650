import type { ScheduledHandler } from 'aws-lambda';
import { type BackfillPorts, backfillVectors } from '../core/use-cases/backfill-vectors';
import { logger } from './api-gateway';

/**
 * The vector backfill in AWS, run by an EventBridge schedule: records the indexer wrote without a
 * vector during an embedding outage get theirs. A model still failing fails the run (the records
 * stay waiting, VectorBacklog stays above zero and the vectors-waiting alarm fires after an hour).
 */
export function vectorBackfillHandler(ports: () => BackfillPorts): ScheduledHandler {
  return async (event) => {
    const startedAt = performance.now();
    const result = await backfillVectors(ports());
    logger.info('vector backfill finished', { scheduledAt: event.time, ...result, durationMs: Math.round(performance.now() - startedAt) });
  };
}
