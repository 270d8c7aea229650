import { describe, expect, it } from 'vitest';
import { referencedLogicalIds, resourcesOfType, synthStage } from './synth-stacks';

/** No log group is kept forever: every function's logs, and every other log group, have the stage's retention. */
describe('log retention', () => {
  for (const stage of ['dev', 'prod'] as const) {
    const { stateful, stateless } = synthStage(stage);
    const retention = stage === 'dev' ? 7 : 90;

    it(`gives every function of both ${stage} stacks a log group with a retention`, () => {
      for (const template of [stateful, stateless]) {
        const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');
        for (const [id, fn] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))) {
          const explicit = referencedLogicalIds((fn.Properties?.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup);
          // Or the implicit /aws/lambda/<name> group, created beforehand with a retention.
          const named = Object.entries(logGroups)
            .filter(
              ([, group]) =>
                JSON.stringify(group.Properties?.LogGroupName ?? '').includes('/aws/lambda/') &&
                referencedLogicalIds(group.Properties?.LogGroupName).includes(id),
            )
            .map(([groupId]) => groupId);
          const groups = [...explicit, ...named].filter((groupId) => logGroups[groupId] !== undefined);
          expect(groups, id).toHaveLength(1);
          expect(typeof logGroups[groups[0]!]!.Properties?.RetentionInDays, id).toBe('number');
        }
        for (const [id, group] of Object.entries(logGroups)) {
          expect(group.Properties?.RetentionInDays, id).toBeGreaterThanOrEqual(retention);
        }
      }
    });
  }
});
