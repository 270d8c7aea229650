// The admin CLI's per-key traffic views: `keys usage --by hour` and `keys requests <key-id>` (docs/admin.md).
import { type Command, InvalidArgumentError } from 'commander';
import { TIERS } from '../lambdas/core/auth/tiers';
import { dayBefore } from '../lambdas/core/usage/hour-buckets';
import { decodeRequestLogCursor, REQUEST_LOG_MAX_LIMIT } from '../lambdas/core/usage/request-log';
import { readRequestLog } from '../lambdas/core/use-cases/account-usage';
import { systemClock } from '../lambdas/ports/clock';
import { KeyStateConflict, type KeyStore } from '../lambdas/ports/key-store';
import type { UsageMeter } from '../lambdas/ports/usage-meter';
import { type AdminContext, note } from './admin-context';
import type { withKeyPorts as WithKeyPorts } from './admin-keys';
import { emit } from './admin-output';
import { type TargetOptions, wholeNumber, withTargetOptions } from './admin-targets';

const rate = (errors: number, responses: number) => (responses > 0 ? `${((errors / responses) * 100).toFixed(1)}%` : '-');

async function existingKey(keys: KeyStore, keyId: string) {
  const key = await keys.get(keyId);
  if (!key) throw new KeyStateConflict(`no key ${keyId}`);
  return key;
}

/** `keys usage <key-id> --by hour`: one line per UTC hour with usage over the last `days` days. */
export async function printHourlyUsage(context: AdminContext, opts: TargetOptions, ports: { keys: KeyStore; meter: UsageMeter }, keyId: string, days: number) {
  const key = await existingKey(ports.keys, keyId);
  const today = systemClock.now().toISOString().slice(0, 10);
  const hours = await ports.meter.hourly(keyId, dayBefore(today, days), today);
  const quota = TIERS[key.tier].dailyQuota;
  emit(
    context,
    opts,
    {
      key_id: key.key_id,
      tier: key.tier,
      daily_quota: quota,
      hours: hours.map((h) => ({
        hour: h.hour,
        requests: h.requests,
        errors: h.errors,
        errors_4xx: h.errors4xx,
        errors_5xx: h.errors5xx,
        rate_limited: h.rateLimited,
        responses: h.responses,
        p50_ms: h.p50Ms,
        p95_ms: h.p95Ms,
      })),
    },
    () => [
      `key id ${key.key_id} (${key.tier}, daily quota ${quota ?? 'unlimited'})`,
      ['hour (UTC)', 'requests', 'errors', '4xx', '5xx', '429', 'error rate', 'p50 ms', 'p95 ms'].join('\t'),
      ...hours.map((h) =>
        [h.hour, h.requests, h.errors, h.errors4xx, h.errors5xx, h.rateLimited, rate(h.errors, h.responses), h.p50Ms ?? '-', h.p95Ms ?? '-'].join('\t'),
      ),
      ...(hours.length === 0 ? ['(no requests yet)'] : []),
    ],
  );
}

function cursorArgument(value: string): string {
  try {
    decodeRequestLogCursor(value);
  } catch {
    throw new InvalidArgumentError('not a cursor this command printed');
  }
  return value;
}

/** Adds `keys requests <key-id>`: the key's recent requests, newest first. */
export function addKeyRequestsCommand(keysCommand: Command, context: AdminContext, withKeyPorts: typeof WithKeyPorts): void {
  withTargetOptions(keysCommand.command('requests'))
    .description("the key's recent requests (kept 7 days), newest first: time, method, path, status, latency, request id")
    .argument('<key-id>')
    .option('--limit <n>', `how many (1 to ${REQUEST_LOG_MAX_LIMIT})`, wholeNumber(1, REQUEST_LOG_MAX_LIMIT, 'requests'), 50)
    .option('--cursor <cursor>', 'continue after the page that printed it', cursorArgument)
    .action(async (keyId: string, opts: TargetOptions & { limit: number; cursor?: string }) => {
      const page = { limit: opts.limit, cursor: opts.cursor ?? null };
      await withKeyPorts(context, opts, async ({ keys, requestLog }) => {
        await existingKey(keys, keyId);
        if (!requestLog) throw new Error('this target has no request log');
        const view = await readRequestLog(requestLog, keyId, page, systemClock.now());
        emit(context, opts, { key_id: keyId, ...view }, () => [
          ['time (UTC)', 'method', 'path', 'status', 'ms', 'request id'].join('\t'),
          ...view.entries.map((e) => [e.at, e.method, e.path, e.status, e.latency_ms, e.request_id].join('\t')),
          ...(view.entries.length === 0 ? ['(no requests in the last 7 days)'] : []),
        ]);
        if (view.next_cursor && !opts.json) note(context, `older requests: --cursor ${view.next_cursor}`);
      });
    });
}
