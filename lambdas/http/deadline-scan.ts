import type { ScheduledHandler } from 'aws-lambda';
import { type DeadlineScanPorts, scanDeadlines } from '../core/use-cases/scan-deadlines';
import { logger } from './api-gateway';

/**
 * The daily deadline scan in AWS, run by an EventBridge schedule. It is safe to run again (a
 * marker per subscription, record and deadline), so a failed run is simply retried by
 * EventBridge's asynchronous invocation retries, or by hand with `admin scan-deadlines --target aws`.
 */
export function deadlineScanHandler(ports: () => DeadlineScanPorts): ScheduledHandler {
  return async (event) => {
    const startedAt = performance.now();
    const deliveries = await scanDeadlines(ports());
    logger.info('deadline scan finished', { scheduledAt: event.time, deliveries, durationMs: Math.round(performance.now() - startedAt) });
  };
}
