// The admin CLI's webhook subscription commands (`webhooks add|list|disable|enable|rotate-secret|test`); the delivery commands are in admin-webhook-deliveries.ts.
import { type Command, InvalidArgumentError } from 'commander';
import { dnsHostResolver } from '../lambdas/adapters/dns-host-resolver';
import { httpWebhookTransport } from '../lambdas/adapters/http-webhook-transport';
import type { SearchPorts } from '../lambdas/core/use-cases/list-records';
import {
  addSubscription,
  addSubscriptionIfMissing,
  DEFAULT_SECRET_GRACE_HOURS,
  disableSubscription,
  enableSubscription,
  type ListedSubscription,
  listedSubscription,
  MAX_SECRET_GRACE_HOURS,
  rotateSecret,
  type WebhookPorts,
} from '../lambdas/core/use-cases/manage-webhooks';
import { savedSearchCount } from '../lambdas/core/use-cases/match-saved-search';
import { sendTestEvent } from '../lambdas/core/use-cases/test-webhook';
import type { DestinationMode } from '../lambdas/core/webhooks/destination-policy';
import { DEADLINE_WINDOW_DAYS, WEBHOOK_EVENTS } from '../lambdas/core/webhooks/events';
import { kindsOfEvents } from '../lambdas/core/webhooks/saved-search';
import { systemClock, utcDate } from '../lambdas/ports/clock';
import { awsSavedSearchPorts, awsWebhookPorts } from '../local/aws-target';
import { type AdminContext, note } from './admin-context';
import { emit } from './admin-output';
import { type TargetOptions, wholeNumber, withOpenedPorts, withSearchDomainOptions, withTargetOptions } from './admin-targets';
import { addDeliveryCommands } from './admin-webhook-deliveries';

/** Adds `webhooks` and `scan-deadlines` to the admin program. */
export function addWebhookCommands(program: Command, context: AdminContext): void {
  async function withWebhookPorts<T>(
    opts: TargetOptions,
    run: (ports: WebhookPorts & { savedSearch?: SearchPorts }, mode: DestinationMode) => Promise<T>,
  ): Promise<T> {
    if (opts.target === 'local') {
      return context.withLocalStack(opts.dataDir, (stack) =>
        run({ webhooks: stack.webhooks, keys: stack.services.keys, resolver: dnsHostResolver, savedSearch: stack.services }, 'local'),
      );
    }
    return withOpenedPorts(awsWebhookPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName }), (ports) => run(ports, 'aws'));
  }

  function subscriptionRow(subscription: ListedSubscription): string {
    return [
      subscription.subscription_id,
      subscription.key_id,
      subscription.state + (subscription.disabled_reason ? ` (${subscription.disabled_reason})` : ''),
      subscription.url,
      subscription.events.join(','),
      `${subscription.days_before} days`,
      subscription.filter ?? '-',
      subscription.created_at,
      subscription.rotating ? `old secret valid until ${subscription.previous_secret_valid_until}` : '-',
    ].join('\t');
  }

  const SUBSCRIPTION_COLUMNS = ['subscription id', 'key id', 'state', 'url', 'events', 'deadline window', 'filter', 'created', 'rotation'];

  const webhooksCommand = program
    .command('webhooks')
    .description('webhook subscriptions of developer keys: add, list, disable, enable, rotate-secret, test, deliveries, replay, fan-out');

  withSearchDomainOptions(withTargetOptions(webhooksCommand.command('add')), ' (to count what --filter matches)')
    .description("subscribe a developer key's URL to events; the signing secret is shown once")
    .requiredOption('--key-id <id>', 'the developer key the subscription belongs to')
    .requiredOption(
      '--url <url>',
      'https URL (local mode also: http to localhost / 127.0.0.1 / ::1); private, loopback, link-local and metadata addresses are refused',
    )
    .option('--events <names>', `comma-separated events (default: all of ${WEBHOOK_EVENTS.join(', ')})`, (value: string) =>
      value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
    .option(
      '--days-before <days>',
      `deadline_approaching fires this many days before a deadline (${DEADLINE_WINDOW_DAYS.min}-${DEADLINE_WINDOW_DAYS.max})`,
      wholeNumber(DEADLINE_WINDOW_DAYS.min, DEADLINE_WINDOW_DAYS.max, 'days'),
      DEADLINE_WINDOW_DAYS.default,
    )
    .option(
      '--filter <query>',
      'a saved search: list parameters, e.g. "states=KS&include_national=true&category=Health&search=rural clinics&search_mode=hybrid"; only events whose record it matches are sent',
    )
    .option('--if-missing', 'when the key already has a subscription for this URL, answer with it (unchanged, no secret) instead of refusing', false)
    .action(
      async (
        opts: TargetOptions & {
          keyId: string;
          url: string;
          events?: string[];
          daysBefore: number;
          filter?: string;
          searchEndpoint?: string;
          embeddingDimensions?: string;
          ifMissing: boolean;
        },
      ) => {
        await withWebhookPorts(opts, async (ports, mode) => {
          const now = new Date();
          const request = { keyId: opts.keyId, url: opts.url, events: opts.events, daysBefore: opts.daysBefore, filter: opts.filter };
          const { secret, subscription, existing } = opts.ifMissing
            ? await addSubscriptionIfMissing(ports, request, mode, now)
            : { ...(await addSubscription(ports, request, mode, now)), existing: false };
          let matches: Record<string, number> | null = null;
          if (subscription.filter) {
            const search = ports.savedSearch ? { ports: ports.savedSearch } : await awsSavedSearchPorts(opts);
            if ('ports' in search) {
              matches = Object.fromEntries(
                await Promise.all(
                  kindsOfEvents(subscription.events).map(
                    async (kind) => [kind, await savedSearchCount(search.ports, subscription.filter!, kind, utcDate(systemClock))] as const,
                  ),
                ),
              );
            } else {
              note(context, `not counted what the filter matches today (${search.missing})`);
            }
          }
          emit(context, opts, { ...listedSubscription(subscription, now), secret, existing, matches_today: matches }, () => {
            const counts = Object.entries(matches ?? {}).map(([kind, n]) => `${n} ${kind}s`);
            const none = Object.values(matches ?? {}).every((n) => n === 0);
            return [
              `subscription ${subscription.subscription_id} for key ${subscription.key_id}: ${subscription.url}${existing ? ' (made earlier; unchanged)' : ''}`,
              `events  ${subscription.events.join(', ')}; deadlines ${subscription.days_before} days ahead`,
              ...(subscription.filter ? [`filter  ${subscription.filter}`] : []),
              ...(matches ? [`matches ${counts.join(', ')} today${none ? ': none yet; accepted, it sends when a record matches' : ''}`] : []),
              secret ? `secret  ${secret}` : 'secret  (shown once, when it was made; webhooks rotate-secret issues a new one)',
            ];
          });
          if (secret) note(context, 'the secret is shown this once: store it where your receiver verifies the signatures (docs/webhooks.md)');
        });
      },
    );

  withTargetOptions(webhooksCommand.command('list'))
    .description('subscriptions (never their secrets)')
    .option('--key-id <id>', "only this key's")
    .action(async (opts: TargetOptions & { keyId?: string }) => {
      await withWebhookPorts(opts, async ({ webhooks }) => {
        const now = new Date();
        const subscriptions = (await webhooks.list(opts.keyId)).map((subscription) => listedSubscription(subscription, now));
        emit(context, opts, subscriptions, () => [
          SUBSCRIPTION_COLUMNS.join('\t'),
          ...subscriptions.map(subscriptionRow),
          ...(subscriptions.length === 0 ? ['(no subscriptions)'] : []),
        ]);
      });
    });

  withTargetOptions(webhooksCommand.command('disable'))
    .description('stop deliveries to a subscription (events are not kept for it while disabled)')
    .argument('<subscription-id>')
    .action(async (subscriptionId: string, opts: TargetOptions) => {
      await withWebhookPorts(opts, async ({ webhooks }) => {
        const now = new Date();
        const subscription = await disableSubscription(webhooks, subscriptionId, 'disabled by an operator', now);
        emit(context, opts, listedSubscription(subscription, now), () => [`subscription ${subscription.subscription_id} disabled`]);
      });
    });

  withTargetOptions(webhooksCommand.command('enable'))
    .description('resume a disabled subscription (its URL is checked again)')
    .argument('<subscription-id>')
    .action(async (subscriptionId: string, opts: TargetOptions) => {
      await withWebhookPorts(opts, async (ports, mode) => {
        const now = new Date();
        const subscription = await enableSubscription(ports, subscriptionId, mode, now);
        emit(context, opts, listedSubscription(subscription, now), () => [`subscription ${subscription.subscription_id} enabled`]);
      });
    });

  withTargetOptions(webhooksCommand.command('rotate-secret'))
    .description('issue a new signing secret; deliveries carry signatures by both secrets for the grace period')
    .argument('<subscription-id>')
    .option(
      '--grace-hours <hours>',
      'how long the old secret keeps signing beside the new one',
      (v: string) => {
        const hours = Number(v);
        if (!Number.isFinite(hours) || hours < 0 || hours > MAX_SECRET_GRACE_HOURS)
          throw new InvalidArgumentError(`must be a number of hours from 0 to ${MAX_SECRET_GRACE_HOURS}`);
        return hours;
      },
      DEFAULT_SECRET_GRACE_HOURS,
    )
    .action(async (subscriptionId: string, opts: TargetOptions & { graceHours: number }) => {
      await withWebhookPorts(opts, async ({ webhooks }) => {
        const now = new Date();
        const { secret, subscription } = await rotateSecret(webhooks, subscriptionId, opts.graceHours, now);
        emit(context, opts, { ...listedSubscription(subscription, now), secret }, () => [
          `subscription ${subscription.subscription_id}: new secret issued; the old one also signs until ${subscription.previous_secret_valid_until}`,
          `secret  ${secret}`,
        ]);
        note(context, 'the secret is shown this once: store it now');
      });
    });

  withTargetOptions(webhooksCommand.command('test'))
    .description('send a signed webhook.test event to a subscription now, wait for the answer, and print its code and latency (not queued, retried or logged)')
    .argument('<subscription-id>')
    .action(async (subscriptionId: string, opts: TargetOptions) => {
      await withWebhookPorts(opts, async ({ webhooks, resolver }, mode) => {
        const result = await sendTestEvent({ webhooks, resolver, transport: httpWebhookTransport, clock: systemClock }, subscriptionId, mode);
        const answer = result.status === null ? `no answer (${result.error})` : `${result.status} in ${Math.round(result.latencyMs)} ms`;
        emit(
          context,
          opts,
          {
            event_id: result.eventId,
            url: result.url,
            status: result.status,
            latency_ms: result.status === null ? null : Math.round(result.latencyMs),
            verdict: result.verdict,
            error: result.error ?? null,
            response_excerpt: result.responseExcerpt?.slice(0, 300) ?? null,
          },
          () => [
            `webhook.test ${result.eventId} to ${result.url}: ${answer}`,
            ...(result.responseExcerpt ? [`response  ${result.responseExcerpt.slice(0, 300)}`] : []),
          ],
        );
        if (result.verdict !== 'delivered') {
          note(
            context,
            result.verdict === 'gone'
              ? 'the receiver answered 410 Gone: a real delivery would disable the subscription'
              : 'a real delivery would be retried: only a 2xx within 10 s counts as delivered',
          );
          context.exitCode = 1;
        }
      });
    });

  addDeliveryCommands(webhooksCommand, program, context);
}
