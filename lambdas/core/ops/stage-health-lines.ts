import type { ReadingRow, StageHealth } from './stage-health';

/**
 * The table form of `admin status`: the verdict first (what a pager glance needs), then its
 * problems, then each section. Times are UTC with how long ago, counted from the check itself,
 * so the same report prints the same lines.
 */

/** `2026-11-26 17:42 UTC`. */
function utc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A duration in seconds as people say it: `45 s`, `18 min`, `5 h 10 min`, `6 days`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

function ago(iso: string, now: string): string {
  return `${duration((Date.parse(now) - Date.parse(iso)) / 1000)} ago`;
}

function reading(row: ReadingRow, unit: (value: number) => string, now: string): string {
  if (row.value !== null) return `${unit(row.value)} at ${utc(row.at)} (${ago(row.at, now)})`;
  return 'error' in row && row.error ? `unknown: ${row.error}` : 'no data';
}

const pad = (text: string, width: number) => text.padEnd(width);

export function stageHealthLines(health: StageHealth): string[] {
  const now = health.checked_at;
  const count = health.problems.length;
  const lines = [`stage ${health.stage}: ${count === 0 ? 'healthy' : `${count} problem${count === 1 ? '' : 's'}`} (checked ${utc(now)})`];
  for (const problem of health.problems) lines.push(`  - ${problem}`);

  lines.push('', health.alarms === null ? 'Alarms in ALARM: unknown' : `Alarms in ALARM: ${health.alarms.length === 0 ? 'none' : health.alarms.length}`);
  for (const alarm of health.alarms ?? []) {
    lines.push(`  ${alarm.name}, since ${utc(alarm.since)} (${ago(alarm.since, now)})`, `    ${alarm.reason}`);
    if (alarm.runbook) lines.push(`    runbook: ${alarm.runbook}`);
  }

  lines.push('', 'Dead-letter queues');
  for (const queue of health.queues) {
    let state: string;
    if (queue.messages === null) state = `unknown: ${queue.error}`;
    else {
      const held = queue.messages + (queue.in_flight ?? 0) + (queue.delayed ?? 0);
      const oldest = queue.oldest_age_seconds.value !== null ? `, oldest ${duration(queue.oldest_age_seconds.value)}` : '';
      state = held === 0 ? 'empty' : `${queue.messages} waiting, ${queue.in_flight} in flight, ${queue.delayed} delayed${oldest}`;
    }
    lines.push(`  ${pad(queue.label, 28)}${state}`);
  }

  const lag = health.indexer_lag;
  lines.push('', `Indexer lag: ${lag.seconds === null ? 'no data' : duration(lag.seconds)} (newest datapoints of the last ${lag.metric_window_minutes} min)`);
  lines.push(`  ${pad('IndexerLagSeconds', 28)}${reading(lag.indexer_lag_seconds, duration, now)}`);
  lines.push(`  ${pad('stream IteratorAge', 28)}${reading(lag.iterator_age_seconds, duration, now)}`);

  lines.push('', 'Newest deploy');
  for (const stack of health.stacks) {
    const note = !stack.complete ? '  not complete' : stack.rolled_back ? '  the newest deploy was rolled back' : '';
    lines.push(`  ${pad(stack.name, 28)}${pad(stack.status, 28)}${utc(stack.last_deployed_at)} (${ago(stack.last_deployed_at, now)})${note}`);
  }
  return lines;
}
