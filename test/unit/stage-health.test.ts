import { describe, expect, it } from 'vitest';
import { assessStageHealth, isComplete, runbookOf, type StageHealthFacts } from '../../lambdas/core/ops/stage-health';
import { duration, stageHealthLines } from '../../lambdas/core/ops/stage-health-lines';

/** The verdict of `admin status` (lambdas/core/ops/stage-health.ts) on facts as the AWS adapter reads them. */

const NOW = new Date('2026-11-26T18:00:00Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

function healthyFacts(): StageHealthFacts {
  return {
    stage: 'dev',
    checkedAt: NOW,
    metricWindowMinutes: 30,
    stacks: [
      { role: 'stateful', name: 'Gcf-dev-Stateful', status: 'UPDATE_COMPLETE', reason: null, lastDeployedAt: new Date('2026-11-20T10:02:00Z') },
      { role: 'stateless', name: 'Gcf-dev-Stateless', status: 'CREATE_COMPLETE', reason: null, lastDeployedAt: minutesAgo(90) },
    ],
    alarms: { ok: true, value: [] },
    queues: [
      { role: 'webhook-dead-letter', depth: { ok: true, value: { visible: 0, inFlight: 0, delayed: 0 } }, oldestAgeSeconds: { ok: true, value: null } },
      { role: 'indexer-failure', depth: { ok: true, value: { visible: 0, inFlight: 0, delayed: 0 } }, oldestAgeSeconds: { ok: true, value: null } },
    ],
    lag: { indexerLagSeconds: { ok: true, value: { value: 2.5, at: minutesAgo(2) } }, iteratorAgeMs: { ok: true, value: null } },
  };
}

describe('assessStageHealth', () => {
  it('calls a stage with nothing in ALARM, empty queues and complete stacks healthy, and reports every row', () => {
    const health = assessStageHealth(healthyFacts());
    expect(health).toEqual({
      stage: 'dev',
      checked_at: '2026-11-26T18:00:00.000Z',
      healthy: true,
      problems: [],
      alarms: [],
      queues: [
        {
          queue: 'webhook-dead-letter',
          label: 'webhook dead-letter queue',
          messages: 0,
          in_flight: 0,
          delayed: 0,
          oldest_age_seconds: { value: null, at: null },
          error: null,
        },
        {
          queue: 'indexer-failure',
          label: 'indexer failure queue',
          messages: 0,
          in_flight: 0,
          delayed: 0,
          oldest_age_seconds: { value: null, at: null },
          error: null,
        },
      ],
      indexer_lag: {
        metric_window_minutes: 30,
        seconds: 2.5,
        indexer_lag_seconds: { value: 2.5, at: '2026-11-26T17:58:00.000Z' },
        iterator_age_seconds: { value: null, at: null },
      },
      stacks: [
        {
          stack: 'stateful',
          name: 'Gcf-dev-Stateful',
          status: 'UPDATE_COMPLETE',
          complete: true,
          rolled_back: false,
          last_deployed_at: '2026-11-20T10:02:00.000Z',
          reason: null,
        },
        {
          stack: 'stateless',
          name: 'Gcf-dev-Stateless',
          status: 'CREATE_COMPLETE',
          complete: true,
          rolled_back: false,
          last_deployed_at: '2026-11-26T16:30:00.000Z',
          reason: null,
        },
      ],
    });
  });

  it('counts each alarm in ALARM, oldest first, with its runbook link from the description', () => {
    const facts = healthyFacts();
    facts.alarms = {
      ok: true,
      value: [
        {
          name: 'gcf-data-service-dev-indexer-lag',
          reason: 'Threshold Crossed: 1 datapoint [412.0] was greater than the threshold (300.0).',
          since: minutesAgo(5),
          description: 'The search index trails… Dashboard: "Indexer lag". Runbook: https://github.com/acme/gcf/blob/main/docs/runbook.md#indexer-lag',
        },
        {
          name: 'gcf-data-service-dev-webhook-dlq',
          reason: 'Threshold Crossed: 1 datapoint [3.0] was greater than the threshold (0.0).',
          since: minutesAgo(18),
          description: 'A webhook delivery… Runbook: docs/runbook.md#webhook-dlq',
        },
      ],
    };
    const health = assessStageHealth(facts);
    expect(health.healthy).toBe(false);
    expect(health.problems).toEqual(['alarm gcf-data-service-dev-webhook-dlq is in ALARM', 'alarm gcf-data-service-dev-indexer-lag is in ALARM']);
    expect(health.alarms).toEqual([
      {
        name: 'gcf-data-service-dev-webhook-dlq',
        reason: 'Threshold Crossed: 1 datapoint [3.0] was greater than the threshold (0.0).',
        since: '2026-11-26T17:42:00.000Z',
        runbook: 'docs/runbook.md#webhook-dlq',
      },
      {
        name: 'gcf-data-service-dev-indexer-lag',
        reason: 'Threshold Crossed: 1 datapoint [412.0] was greater than the threshold (300.0).',
        since: '2026-11-26T17:55:00.000Z',
        runbook: 'https://github.com/acme/gcf/blob/main/docs/runbook.md#indexer-lag',
      },
    ]);
  });

  it('counts a dead-letter queue holding messages, in flight and delayed ones too', () => {
    const facts = healthyFacts();
    facts.queues[0]!.depth = { ok: true, value: { visible: 3, inFlight: 0, delayed: 0 } };
    facts.queues[0]!.oldestAgeSeconds = { ok: true, value: { value: 1_080, at: minutesAgo(1) } };
    facts.queues[1]!.depth = { ok: true, value: { visible: 0, inFlight: 1, delayed: 0 } };
    const health = assessStageHealth(facts);
    expect(health.problems).toEqual(['the webhook dead-letter queue holds 3 messages', 'the indexer failure queue holds 1 message']);
    expect(health.queues[0]).toMatchObject({ messages: 3, in_flight: 0, oldest_age_seconds: { value: 1_080, at: '2026-11-26T17:59:00.000Z' } });
  });

  it("counts a stack that is not in a *_COMPLETE state, with CloudFormation's reason; a rolled-back update is stable and only noted", () => {
    const facts = healthyFacts();
    facts.stacks[0] = { ...facts.stacks[0]!, status: 'UPDATE_ROLLBACK_COMPLETE' };
    facts.stacks[1] = { ...facts.stacks[1]!, status: 'UPDATE_FAILED', reason: 'Resource handler returned message: "Rate exceeded"' };
    const health = assessStageHealth(facts);
    expect(health.problems).toEqual(['stack Gcf-dev-Stateless is UPDATE_FAILED (Resource handler returned message: "Rate exceeded")']);
    expect(health.stacks.map(({ complete, rolled_back }) => ({ complete, rolled_back }))).toEqual([
      { complete: true, rolled_back: true },
      { complete: false, rolled_back: false },
    ]);
    expect(
      ['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'IMPORT_COMPLETE', 'UPDATE_COMPLETE_CLEANUP_IN_PROGRESS', 'UPDATE_ROLLBACK_COMPLETE_CLEANUP_IN_PROGRESS'].map(
        isComplete,
      ),
    ).toEqual([true, true, true, true, true]);
    // A failed create (nothing serves), a deleted stack, and deploys under way or failed.
    expect(['ROLLBACK_COMPLETE', 'DELETE_COMPLETE', 'UPDATE_IN_PROGRESS', 'CREATE_IN_PROGRESS', 'ROLLBACK_FAILED', 'UPDATE_FAILED'].map(isComplete)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('never calls healthy what it could not read: unreadable alarms and queues are problems, unreadable lag is not', () => {
    const facts = healthyFacts();
    facts.alarms = { ok: false, error: 'User: arn:aws:iam::1:user/x is not authorized to perform: cloudwatch:DescribeAlarms' };
    facts.queues[1]!.depth = { ok: false, error: 'stack Gcf-dev-Stateful has no IndexerFailureQueueUrl output: deploy the current version' };
    facts.lag = { indexerLagSeconds: { ok: false, error: 'denied' }, iteratorAgeMs: { ok: false, error: 'denied' } };
    const health = assessStageHealth(facts);
    expect(health.problems).toEqual([
      'the alarms could not be read: User: arn:aws:iam::1:user/x is not authorized to perform: cloudwatch:DescribeAlarms',
      'the indexer failure queue could not be read: stack Gcf-dev-Stateful has no IndexerFailureQueueUrl output: deploy the current version',
    ]);
    expect(health.alarms).toBeNull();
    expect(health.queues[1]).toMatchObject({ messages: null, in_flight: null, delayed: null, error: expect.stringContaining('IndexerFailureQueueUrl') });
    expect(health.indexer_lag).toMatchObject({ seconds: null, indexer_lag_seconds: { value: null, at: null, error: 'denied' } });
  });

  it('gives the indexer lag as its alarm computes it: the larger of IndexerLagSeconds and IteratorAge in seconds', () => {
    const facts = healthyFacts();
    facts.lag = {
      indexerLagSeconds: { ok: true, value: { value: 4, at: minutesAgo(3) } },
      iteratorAgeMs: { ok: true, value: { value: 61_000, at: minutesAgo(1) } },
    };
    expect(assessStageHealth(facts).indexer_lag).toMatchObject({ seconds: 61, iterator_age_seconds: { value: 61 } });
    facts.lag = { indexerLagSeconds: { ok: true, value: null }, iteratorAgeMs: { ok: true, value: null } };
    expect(assessStageHealth(facts).indexer_lag.seconds).toBeNull();
  });

  it('finds the runbook link only at the end of a description', () => {
    expect(runbookOf('x. Dashboard: "DLQ". Runbook: docs/runbook.md#webhook-dlq')).toBe('docs/runbook.md#webhook-dlq');
    expect(runbookOf('made by hand, no runbook')).toBeNull();
    expect(runbookOf(null)).toBeNull();
  });
});

describe('stageHealthLines', () => {
  it('puts the verdict first, then each section', () => {
    expect(stageHealthLines(assessStageHealth(healthyFacts()))).toEqual([
      'stage dev: healthy (checked 2026-11-26 18:00 UTC)',
      '',
      'Alarms in ALARM: none',
      '',
      'Dead-letter queues',
      '  webhook dead-letter queue   empty',
      '  indexer failure queue       empty',
      '',
      'Indexer lag: 3 s (newest datapoints of the last 30 min)',
      '  IndexerLagSeconds           3 s at 2026-11-26 17:58 UTC (2 min ago)',
      '  stream IteratorAge          no data',
      '',
      'Newest deploy',
      '  Gcf-dev-Stateful            UPDATE_COMPLETE             2026-11-20 10:02 UTC (6 days ago)',
      '  Gcf-dev-Stateless           CREATE_COMPLETE             2026-11-26 16:30 UTC (1 h 30 min ago)',
    ]);
  });

  it('lists the problems under the verdict, and each alarm with its reason and runbook', () => {
    const facts = healthyFacts();
    facts.alarms = {
      ok: true,
      value: [
        { name: 'gcf-data-service-dev-webhook-dlq', reason: 'Threshold Crossed.', since: minutesAgo(18), description: 'Runbook: docs/runbook.md#webhook-dlq' },
      ],
    };
    facts.queues[0]!.depth = { ok: true, value: { visible: 3, inFlight: 1, delayed: 0 } };
    facts.queues[0]!.oldestAgeSeconds = { ok: true, value: { value: 1_080, at: minutesAgo(1) } };
    facts.queues[1]!.depth = { ok: false, error: 'Access denied' };
    facts.stacks[1] = { ...facts.stacks[1]!, status: 'UPDATE_IN_PROGRESS', lastDeployedAt: minutesAgo(4) };
    const lines = stageHealthLines(assessStageHealth(facts));
    expect(lines.slice(0, 5)).toEqual([
      'stage dev: 4 problems (checked 2026-11-26 18:00 UTC)',
      '  - alarm gcf-data-service-dev-webhook-dlq is in ALARM',
      '  - the webhook dead-letter queue holds 4 messages',
      '  - the indexer failure queue could not be read: Access denied',
      '  - stack Gcf-dev-Stateless is UPDATE_IN_PROGRESS',
    ]);
    expect(lines).toContain('  gcf-data-service-dev-webhook-dlq, since 2026-11-26 17:42 UTC (18 min ago)');
    expect(lines).toContain('    runbook: docs/runbook.md#webhook-dlq');
    expect(lines).toContain('  webhook dead-letter queue   3 waiting, 1 in flight, 0 delayed, oldest 18 min');
    expect(lines).toContain('  indexer failure queue       unknown: Access denied');
    expect(lines.at(-1)).toBe('  Gcf-dev-Stateless           UPDATE_IN_PROGRESS          2026-11-26 17:56 UTC (4 min ago)  not complete');
  });

  it('says durations as people do', () => {
    expect([0, 44.6, 60, 1_080, 3_600, 18_600, 172_799, 172_800, 6 * 86_400].map(duration)).toEqual([
      '0 s',
      '45 s',
      '1 min',
      '18 min',
      '1 h',
      '5 h 10 min',
      '47 h 59 min',
      '2 days',
      '6 days',
    ]);
  });
});
