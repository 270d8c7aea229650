import { RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { isEphemeralStageName, stageConfig } from '../../lib/config';

describe('stageConfig', () => {
  it('treats only dev and dev-* stages as ephemeral', () => {
    expect(isEphemeralStageName('dev')).toBe(true);
    expect(isEphemeralStageName('dev-alice')).toBe(true);
    expect(isEphemeralStageName('prod')).toBe(false);
    expect(isEphemeralStageName('staging')).toBe(false);
    expect(isEphemeralStageName('developer')).toBe(false);
  });

  it('retains stateful resources unless the stage is ephemeral', () => {
    expect(stageConfig('prod').statefulRemovalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(stageConfig('staging').statefulRemovalPolicy).toBe(RemovalPolicy.RETAIN);
    expect(stageConfig('dev').statefulRemovalPolicy).toBe(RemovalPolicy.DESTROY);
    expect(stageConfig('prod', { ephemeral: true }).statefulRemovalPolicy).toBe(RemovalPolicy.DESTROY);
  });

  it('applies overrides without losing the other defaults, and ignores undefined ones', () => {
    const config = stageConfig('dev', {
      search: { ebsVolumeSizeGiB: 20 },
      functions: { memorySizeMb: 1024 },
      api: { manageAccountCloudWatchRole: undefined },
    });
    expect(config.search.ebsVolumeSizeGiB).toBe(20);
    expect(config.search.dataNodeInstanceType).toBe('t3.small.search');
    expect(config.functions.memorySizeMb).toBe(1024);
    expect(config.functions.timeout.toSeconds()).toBe(15);
    expect(config.api.manageAccountCloudWatchRole).toBe(false);
  });

  it('rejects stage names that cannot appear in stack names', () => {
    expect(() => stageConfig('Prod')).toThrow(/Invalid stage name/);
    expect(() => stageConfig('')).toThrow(/Invalid stage name/);
    expect(() => stageConfig('prod_eu')).toThrow(/Invalid stage name/);
  });

  it('rejects a data node count that does not divide over the availability zones', () => {
    expect(() => stageConfig('prod', { search: { dataNodeCount: 3, availabilityZoneCount: 2 } })).toThrow(/evenly/);
  });
});
