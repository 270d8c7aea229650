import type { WebhookSubscription } from '../../ports/webhook-store';
import { SIGNATURE_HEADER, signWebhookPayload, standardWebhookHeaders } from './signature';

/**
 * How one event reaches one subscriber: the body (serialised once, so the bytes signed are the
 * bytes sent, on every attempt), the headers, what an answer means, and when to try again. The
 * schedule follows Stripe's and the Standard Webhooks' practice: backoff with jitter for about
 * two days, then the dead-letter queue.
 */

/** Seconds to wait before each retry: 8 attempts over about 45 hours (1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h). */
export const RETRY_SCHEDULE_SECONDS: readonly number[] = [60, 300, 1_800, 7_200, 21_600, 43_200, 86_400];
/** A receiver must answer within this; a slower one is cut off and the attempt counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer that are read (and kept in the delivery log); the rest is dropped. */
export const RESPONSE_BODY_LIMIT = 4_096;
/** A Retry-After longer than this is not honoured beyond it. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;
/** Each wait is the schedule's ±20%, so receivers that failed together are not retried together. */
export const JITTER = 0.2;

export const EVENT_ID_HEADER = 'X-Service-Event-Id';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
/** During a secret rotation: a signature by each secret (the old one first), comma-separated. */
export const SIGNATURES_HEADER = 'X-Service-Signatures';

/** The body of every delivery: the event and the full public record. */
export function webhookBody(event: string, data: unknown): string {
  return JSON.stringify({ event, data });
}

/** The secrets that sign now: the current one, and the previous one while its grace period lasts. */
export function signingSecrets(
  subscription: Pick<WebhookSubscription, 'secret' | 'previous_secret' | 'previous_secret_valid_until'>,
  now: Date,
): { primary: string; all: string[] } {
  const { secret, previous_secret: previous, previous_secret_valid_until: until } = subscription;
  if (previous && until && until > now.toISOString()) return { primary: previous, all: [previous, secret] };
  return { primary: secret, all: [secret] };
}

/**
 * The headers of one attempt. The Standard Webhooks headers sign the event id, this attempt's
 * time and the body, with every secret that signs now (both during a rotation). Of the
 * interface's own, X-Service-Signature is signed with the old secret during a rotation, so
 * receivers that have not switched keep verifying; X-Service-Signatures carries both.
 */
export function deliveryHeaders(body: string, subscription: Parameters<typeof signingSecrets>[0], eventId: string, now: Date): Record<string, string> {
  const { primary, all } = signingSecrets(subscription, now);
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'gcf-webhooks/1',
    ...standardWebhookHeaders(eventId, now, body, all),
    [SIGNATURE_HEADER]: signWebhookPayload(body, primary),
    [SIGNATURES_HEADER]: all.map((secret) => signWebhookPayload(body, secret)).join(', '),
    [EVENT_ID_HEADER]: eventId,
    [TIMESTAMP_HEADER]: now.toISOString(),
  };
}

/** What the receiver's answer (or its absence) means for the delivery. */
export type AttemptVerdict = 'delivered' | 'gone' | 'retry';

/** Only a 2xx delivers; 410 Gone disables the subscription; anything else (3xx included: redirects are not followed) is retried. */
export function verdictOf(status: number | null): AttemptVerdict {
  if (status !== null && status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  return 'retry';
}

/** Seconds a Retry-After header asks for (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(header: string | null | undefined, now: Date): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

/**
 * Seconds until the next attempt after `attemptsMade` failed ones, or null when the schedule is
 * spent (the event goes to the dead-letter queue). A Retry-After longer than the schedule's wait
 * is honoured (up to a day). Tests pass a schedule of seconds.
 */
export function nextRetryDelay(
  attemptsMade: number,
  retryAfter: number | null,
  random: () => number,
  schedule: readonly number[] = RETRY_SCHEDULE_SECONDS,
): number | null {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()) * 1000) / 1000;
  return Math.max(jittered, retryAfter ?? 0);
}
