import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkUnreservedConcurrency } from '../../lib/concurrency-budget';
import { PROJECT_ROOT } from '../../lib/project-root';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { resourcesOfType, synthStage } from './synth-stacks';

const prodOverrides = stageOverridesFromContext(JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context.stages, 'prod');

describe('bulkheads: reserved concurrency within the account quota', () => {
  it("reserves cdk.json's prod concurrency for the authorizer, the indexer and each search function", () => {
    const { stateless } = synthStage('prod', prodOverrides);
    const reserved = Object.entries(resourcesOfType(stateless, 'AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Properties?.ReservedConcurrentExecutions !== undefined)
      .map(([id, fn]) => [id.replace(/[0-9A-F]{8}$/, ''), fn.Properties?.ReservedConcurrentExecutions] as const);
    expect(reserved.filter(([id]) => /Authorizer/.test(id)).map(([, n]) => n)).toEqual([50]);
    expect(reserved.filter(([id]) => /RecordIndexer/.test(id)).map(([, n]) => n)).toEqual([10]);
    expect(reserved.filter(([, n]) => n === 8)).toHaveLength(5);
    // docs/deploy.md "Bulkheads": prod reserves 100, so it needs a quota of at least 200.
    expect(reserved.reduce((sum, [, n]) => sum + Number(n), 0)).toBe(100);
  });

  it('fails synthesis when the reservations would leave fewer than 100 unreserved', () => {
    expect(() => synthStage('prod', { ...prodOverrides, functions: { ...prodOverrides.functions, accountConcurrencyQuota: 150 } })).toThrow(
      /reserve \d+ concurrent executions, leaving -?\d+ of the account's quota of 150; Lambda keeps at least 100 unreserved/,
    );
  });

  it('counts every reserving function, and lets exactly 100 unreserved pass', () => {
    const reservations = [
      { functionName: 'a', count: 50 },
      { functionName: 'b', count: 850 },
    ];
    expect(() => checkUnreservedConcurrency(reservations, 1000)).not.toThrow();
    expect(() => checkUnreservedConcurrency(reservations, 999)).toThrow(/2 functions reserve 900 concurrent executions, leaving 99/);
    // No reservation, no demand on the quota: a new account (10) deploys an unreserved stage.
    expect(() => checkUnreservedConcurrency([], 10)).not.toThrow();
  });
});
