/**
 * A deployed stage's health as `npm run admin -- status --target aws` reports it to the on-call
 * engineer: the facts an adapter fetched (local/aws-stage-health.ts) in, the verdict, the
 * problems and the rows out. No I/O and no clock: `checkedAt` is part of the facts, so the same
 * facts always give the same report.
 *
 * What counts as a problem (the command exits 1 on any, docs/admin.md): an alarm in ALARM, a
 * dead-letter queue holding a message, a stack not settled (isComplete), and any of those that
 * could not be read: "healthy" must mean checked and fine, never "could not tell". Indexer lag is
 * shown but not judged here: its alarm (indexer-lag) is the judgement, with its own evaluation
 * periods, and a stage with no recent writes honestly has no datapoints at all.
 */

/** A value read from a service, or why it could not be read (a missing permission, a missing stack output). */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** A metric's newest datapoint in the window looked at; `null` when the window has none. */
export type Reading = Checked<{ value: number; at: Date } | null>;

export interface AlarmFact {
  name: string;
  /** CloudWatch's StateReason: which datapoints crossed which threshold. */
  reason: string;
  /** When it went into ALARM (StateTransitionedTimestamp). */
  since: Date;
  description: string | null;
}

export type QueueRole = 'webhook-dead-letter' | 'indexer-failure';

export interface QueueDepth {
  /** ApproximateNumberOfMessages: waiting to be received. */
  visible: number;
  /** ApproximateNumberOfMessagesNotVisible: received by someone (a replay, a console peek) and not yet deleted. */
  inFlight: number;
  /** ApproximateNumberOfMessagesDelayed. */
  delayed: number;
}

export interface QueueFact {
  role: QueueRole;
  depth: Checked<QueueDepth>;
  /** AWS/SQS ApproximateAgeOfOldestMessage, seconds. */
  oldestAgeSeconds: Reading;
}

export interface StackFact {
  role: 'stateful' | 'stateless';
  name: string;
  status: string;
  reason: string | null;
  /** LastUpdatedTime, or CreationTime for a stack never updated. */
  lastDeployedAt: Date;
}

export interface StageHealthFacts {
  stage: string;
  checkedAt: Date;
  /** How far back the metric readings looked. */
  metricWindowMinutes: number;
  stacks: StackFact[];
  alarms: Checked<AlarmFact[]>;
  queues: QueueFact[];
  /** The indexer's own IndexerLagSeconds and the stream's IteratorAge (ms) of its function: the indexer-lag alarm's two inputs. */
  lag: { indexerLagSeconds: Reading; iteratorAgeMs: Reading };
}

/** A reading as the report shows it: the value with its time, null for no data, or the error. */
export type ReadingRow = { value: number; at: string } | { value: null; at: null; error?: string };

/** The report, and `--json`'s document (snake_case, as every admin command's JSON). */
export interface StageHealth {
  stage: string;
  checked_at: string;
  healthy: boolean;
  problems: string[];
  /** null when the alarms could not be read (a problem says why). */
  alarms: { name: string; reason: string; since: string; runbook: string | null }[] | null;
  queues: {
    queue: QueueRole;
    label: string;
    messages: number | null;
    in_flight: number | null;
    delayed: number | null;
    oldest_age_seconds: ReadingRow;
    error: string | null;
  }[];
  indexer_lag: { metric_window_minutes: number; seconds: number | null; indexer_lag_seconds: ReadingRow; iterator_age_seconds: ReadingRow };
  stacks: {
    stack: 'stateful' | 'stateless';
    name: string;
    status: string;
    complete: boolean;
    rolled_back: boolean;
    last_deployed_at: string;
    reason: string | null;
  }[];
}

export const QUEUE_LABELS: Record<QueueRole, string> = {
  'webhook-dead-letter': 'webhook dead-letter queue',
  'indexer-failure': 'indexer failure queue',
};

/** The runbook link an alarm's description ends with (lib/constructs/service-alarms.ts: `… Runbook: <url>#<anchor>`). */
export function runbookOf(description: string | null): string | null {
  return description?.match(/Runbook: (\S+)\s*$/)?.[1] ?? null;
}

/**
 * Whether the stack is settled and serving: CloudFormation's *_COMPLETE states, and the clean-up
 * after a finished update (old resources being deleted; the new or, after a rollback, the previous
 * version serves). Not ROLLBACK_COMPLETE (a create that failed: nothing serves) or DELETE_COMPLETE,
 * nor a deploy under way or failed (UPDATE_IN_PROGRESS, UPDATE_FAILED, ROLLBACK_FAILED).
 */
export function isComplete(status: string): boolean {
  if (status === 'ROLLBACK_COMPLETE' || status === 'DELETE_COMPLETE') return false;
  return status.endsWith('_COMPLETE') || status.endsWith('_COMPLETE_CLEANUP_IN_PROGRESS');
}

function readingRow(reading: Reading, scale = 1): ReadingRow {
  if (!reading.ok) return { value: null, at: null, error: reading.error };
  if (reading.value === null) return { value: null, at: null };
  return { value: reading.value.value / scale, at: reading.value.at.toISOString() };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function assessStageHealth(facts: StageHealthFacts): StageHealth {
  const problems: string[] = [];

  const alarms = facts.alarms.ok
    ? [...facts.alarms.value]
        .sort((a, b) => a.since.getTime() - b.since.getTime() || a.name.localeCompare(b.name))
        .map((alarm) => ({ name: alarm.name, reason: alarm.reason, since: alarm.since.toISOString(), runbook: runbookOf(alarm.description) }))
    : null;
  if (facts.alarms.ok) for (const alarm of alarms!) problems.push(`alarm ${alarm.name} is in ALARM`);
  else problems.push(`the alarms could not be read: ${facts.alarms.error}`);

  const queues = facts.queues.map((queue) => {
    const label = QUEUE_LABELS[queue.role];
    const depth = queue.depth.ok ? queue.depth.value : null;
    if (!queue.depth.ok) problems.push(`the ${label} could not be read: ${queue.depth.error}`);
    else {
      // A message someone has received but not deleted is still in the queue: it counts.
      const held = depth!.visible + depth!.inFlight + depth!.delayed;
      if (held > 0) problems.push(`the ${label} holds ${plural(held, 'message')}`);
    }
    return {
      queue: queue.role,
      label,
      messages: depth?.visible ?? null,
      in_flight: depth?.inFlight ?? null,
      delayed: depth?.delayed ?? null,
      oldest_age_seconds: readingRow(queue.oldestAgeSeconds),
      error: queue.depth.ok ? null : queue.depth.error,
    };
  });

  const stacks = facts.stacks.map((stack) => {
    const complete = isComplete(stack.status);
    if (!complete) problems.push(`stack ${stack.name} is ${stack.status}${stack.reason ? ` (${stack.reason})` : ''}`);
    return {
      stack: stack.role,
      name: stack.name,
      status: stack.status,
      complete,
      // UPDATE_ROLLBACK_COMPLETE is stable (the previous version runs) but says the newest deploy failed.
      rolled_back: stack.status.includes('ROLLBACK'),
      last_deployed_at: stack.lastDeployedAt.toISOString(),
      reason: stack.reason,
    };
  });

  const lagSeconds = readingRow(facts.lag.indexerLagSeconds);
  const iteratorAgeSeconds = readingRow(facts.lag.iteratorAgeMs, 1000);
  // As the indexer-lag alarm computes it: the larger of the two (lib/constructs/service-metrics.ts indexerLag()).
  const known = [lagSeconds.value, iteratorAgeSeconds.value].filter((value): value is number => value !== null);

  return {
    stage: facts.stage,
    checked_at: facts.checkedAt.toISOString(),
    healthy: problems.length === 0,
    problems,
    alarms,
    queues,
    indexer_lag: {
      metric_window_minutes: facts.metricWindowMinutes,
      seconds: known.length > 0 ? Math.max(...known) : null,
      indexer_lag_seconds: lagSeconds,
      iterator_age_seconds: iteratorAgeSeconds,
    },
    stacks,
  };
}
