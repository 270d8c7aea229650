import { describe, expect, it } from 'vitest';
import { ApiError, errorBodyOf, plainError } from '../../dashboard/src/api-errors';
import { parseConfig } from '../../dashboard/src/config';
import { describeLimits, formatMs, formatPeriod, formatRate, formatTime, keyState, periodSeconds } from '../../dashboard/src/format';
import { type UsagePeriod, usageCharts, usageTableRows } from '../../dashboard/src/usage-series';

const period = (name: string, figures: Partial<UsagePeriod> = {}): UsagePeriod => ({
  period: name,
  requests: 0,
  responses: 0,
  errors: 0,
  errors_4xx: 0,
  errors_5xx: 0,
  rate_limited: 0,
  error_rate: null,
  p50_ms: null,
  p95_ms: null,
  ...figures,
});

describe('the dashboard config', () => {
  const valid = {
    issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
    clientId: 'client123',
    signInUrl: 'https://auth.example.test/',
    apiBaseUrl: 'https://api.example.test/functions/v1',
    accountApiBaseUrl: 'https://api.example.test/functions/v1/account/',
  };

  it('keeps the deploy-time fields and drops trailing slashes', () => {
    const config = parseConfig(valid);
    expect(config.signInUrl).toBe('https://auth.example.test');
    expect(config.accountApiBaseUrl).toBe('https://api.example.test/functions/v1/account');
    expect(config.clientId).toBe('client123');
  });

  it('names the field that is missing or not an http(s) URL', () => {
    expect(() => parseConfig({ ...valid, issuer: undefined })).toThrow('config.json has no valid issuer');
    expect(() => parseConfig({ ...valid, apiBaseUrl: 'javascript:alert(1)' })).toThrow('config.json has no valid apiBaseUrl');
    expect(() => parseConfig({ ...valid, clientId: '' })).toThrow('config.json has no valid clientId');
    expect(() => parseConfig(null)).toThrow('config.json is not a JSON object');
  });
});

describe('numbers and times as the dashboard writes them', () => {
  it('writes rates, latencies and UTC times', () => {
    expect(formatRate(0.12345)).toBe('12.3%');
    expect(formatRate(0)).toBe('0%');
    expect(formatRate(null)).toBe('–');
    expect(formatMs(1234.4)).toBe('1,234 ms');
    expect(formatTime('2026-11-29T07:30:12.345Z')).toBe('2026-11-29 07:30:12 UTC');
    expect(formatTime(null)).toBe('–');
    expect(formatPeriod('2026-11-29T07')).toBe('2026-11-29 07:00 UTC');
    expect(formatPeriod('2026-11-29')).toBe('2026-11-29');
  });

  it('places days and hours on uPlot time axis in seconds', () => {
    expect(periodSeconds('2026-11-29')).toBe(Date.UTC(2026, 10, 29) / 1000);
    expect(periodSeconds('2026-11-29T07')).toBe(Date.UTC(2026, 10, 29, 7) / 1000);
  });

  it('says a plan limits in words, with no API access first', () => {
    expect(describeLimits({ api_access: true, daily_quota: 1000, matching: false, webhooks: false, rate: { per_second: 10, burst: 20 } })).toEqual([
      '1,000 requests a day (UTC)',
      '10 requests a second, bursts of 20',
      'No matching (POST /match-grants-api)',
      'No webhooks',
    ]);
    const developer = describeLimits({ api_access: true, daily_quota: null, matching: true, webhooks: true, rate: null });
    expect(developer).toEqual(['Unlimited requests a day', 'No rate limit', 'Matching (POST /match-grants-api) included', 'Webhooks included']);
    expect(describeLimits({ api_access: false, daily_quota: 0, matching: false, webhooks: false, rate: null })[0]).toMatch(/^No API access/);
  });

  it('tells an active, a rotated and a revoked key apart', () => {
    const now = new Date('2026-11-29T08:00:00Z');
    expect(keyState({ revoked_at: null, previous_valid_until: null }, now)).toBe('active');
    expect(keyState({ revoked_at: null, previous_valid_until: '2026-11-30T08:00:00Z' }, now)).toBe('rotated (old key still valid)');
    expect(keyState({ revoked_at: null, previous_valid_until: '2026-11-28T08:00:00Z' }, now)).toBe('active');
    expect(keyState({ revoked_at: '2026-11-29T07:00:00Z', previous_valid_until: null }, now)).toBe('revoked');
  });
});

describe('usage charts and their table', () => {
  const periods = [
    period('2026-11-28'),
    period('2026-11-29', { requests: 10, responses: 10, errors: 2, errors_4xx: 2, error_rate: 0.2, p50_ms: 12, p95_ms: 80 }),
  ];

  it('gives uPlot one x column and a column per series, gaps where there were no responses', () => {
    const charts = usageCharts(periods);
    expect(charts.requests).toEqual([
      [periodSeconds('2026-11-28'), periodSeconds('2026-11-29')],
      [0, 10],
      [0, 2],
    ]);
    expect(charts.errorRate[1]).toEqual([null, 20]);
    expect(charts.latency.slice(1)).toEqual([
      [null, 12],
      [null, 80],
    ]);
  });

  it('lists the periods with traffic, newest first, for screen readers', () => {
    const more = [...periods, period('2026-11-30', { requests: 1, responses: 1, error_rate: 0, p50_ms: 5, p95_ms: 5 })];
    expect(usageTableRows(more)).toEqual([
      ['2026-11-30', '1', '0', '0%', '5 ms', '5 ms'],
      ['2026-11-29', '10', '2', '20%', '12 ms', '80 ms'],
    ]);
  });
});

describe('API errors in plain words', () => {
  it('reads the service error body and leads with what to do', () => {
    const body = errorBodyOf({
      error: { code: 'INVALID_PARAMETER', message: 'Invalid parameter: label', request_id: 'r-1', details: [{ field: 'label', issue: 'too long' }] },
    });
    expect(plainError(new ApiError(400, body))).toBe('The request was not accepted. (Invalid parameter: label — label: too long) Request id r-1.');
    expect(plainError(new ApiError(401, null))).toBe('Your sign-in has expired or is not valid. Sign in again.');
    expect(plainError(new ApiError(409, errorBodyOf({ error: { code: 'FORBIDDEN', message: 'At most 20 live keys' } })))).toBe(
      'That cannot be done in the current state. (At most 20 live keys)',
    );
    expect(plainError(new TypeError('Failed to fetch'))).toBe('The dashboard could not reach the API. Check your connection and try again.');
    expect(errorBodyOf({ message: 'not the service shape' })).toBeNull();
  });
});
