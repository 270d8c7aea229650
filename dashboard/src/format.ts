import type { components } from './account-api-types';

/** How the dashboard writes numbers, times and plans; pure, so the unit tests read them as a person would. */

const COUNT = new Intl.NumberFormat('en-US');

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : COUNT.format(value);
}

/** A rate of 0..1 as a percentage with at most one decimal; a dash when there were no responses. */
export function formatRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '–';
  return `${(Math.round(rate * 1000) / 10).toString()}%`;
}

export function formatMs(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : `${COUNT.format(Math.round(value))} ms`;
}

/** An ISO time in UTC, to the second: `2026-11-29 07:30:12 UTC` (the API and its logs are in UTC). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A usage period (`2026-11-29` or `2026-11-29T07`) as a label: the day, or the day and hour. */
export function formatPeriod(period: string): string {
  const hour = /^(\d{4}-\d{2}-\d{2})T(\d{2})$/.exec(period);
  return hour ? `${hour[1]} ${hour[2]}:00 UTC` : period;
}

/** The start of a period in seconds since the epoch, as uPlot's time axis takes it. */
export function periodSeconds(period: string): number {
  const iso = period.length === 10 ? `${period}T00:00:00Z` : `${period}:00:00Z`;
  return Date.parse(iso) / 1000;
}

/** GET /account's `limits`. */
export type PlanLimits = components['schemas']['Account']['limits'];

/** A plan's limits in words, one line each. */
export function describeLimits(limits: PlanLimits): string[] {
  const lines: string[] = [];
  if (!limits.api_access) lines.push('No API access: keys of this plan are refused by the API.');
  lines.push(limits.daily_quota === null ? 'Unlimited requests a day' : `${formatCount(limits.daily_quota)} requests a day (UTC)`);
  lines.push(limits.rate === null ? 'No rate limit' : `${formatCount(limits.rate.per_second)} requests a second, bursts of ${formatCount(limits.rate.burst)}`);
  lines.push(limits.matching ? 'Matching (POST /match-grants-api) included' : 'No matching (POST /match-grants-api)');
  lines.push(limits.webhooks ? 'Webhooks included' : 'No webhooks');
  return lines;
}

/** A key's state in one word, for the list. */
export function keyState(key: { revoked_at: string | null; previous_valid_until?: string | null }, now: Date): string {
  if (key.revoked_at) return 'revoked';
  if (key.previous_valid_until && Date.parse(key.previous_valid_until) > now.getTime()) return 'rotated (old key still valid)';
  return 'active';
}
