import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import { msUntilUtcTime } from '../webhook-dispatcher';
import type { LocalAwsFunctions } from './lambda-functions';
import { LOCAL_AWS_REGION } from './local-aws-resources';

/** lib's defaults: the deadline scan daily at 06:00 UTC (webhook-delivery.ts), the vector backfill every 15 minutes (vector-backfill.ts). */
const DEADLINE_SCAN_AT_UTC = '06:00';
const BACKFILL_EVERY_MS = 15 * 60_000;

function scheduledEvent(rule: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: LOCAL_AWS_REGION,
    resources: [`arn:aws:events:${LOCAL_AWS_REGION}:000000000000:rule/${rule}`],
    detail: {},
  };
}

/** The deadline scan at start and daily at 06:00 UTC, the vector backfill every 15 minutes: EventBridge's rules on timers. */
export function startSchedules(functions: LocalAwsFunctions, say: (message: string) => void): { stop(): void } {
  let scanTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const scan = () => {
    functions
      .deadlineScan(scheduledEvent('DeadlineSchedule'), functions.context('deadline-scan', 600_000)())
      .catch((error: Error) => say(`deadline scan failed (${error.message}); EventBridge would retry it, and it runs again tomorrow`))
      .finally(() => {
        if (!stopped) scanTimer = setTimeout(scan, msUntilUtcTime(new Date(), DEADLINE_SCAN_AT_UTC));
      });
  };
  scan();
  const backfill = setInterval(() => {
    functions
      .vectorBackfill(scheduledEvent('VectorBackfillSchedule'), functions.context('vector-backfill', 600_000)())
      .catch((error: Error) => say(`vector backfill failed (${error.message})`));
  }, BACKFILL_EVERY_MS);
  return {
    stop() {
      stopped = true;
      clearTimeout(scanTimer);
      clearInterval(backfill);
    },
  };
}
