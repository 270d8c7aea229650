import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costTable, fixedMonthlyCosts, perMillionCalls, runsPerMonth, type TemplateResource, totalOf } from '../../lib/cost/monthly-cost';
import { COST_BEGIN, COST_END, costSection, withCostSection } from '../../lib/cost/stage-cost-report';
import { PROJECT_ROOT } from '../../lib/project-root';

const domain = (cluster: Record<string, unknown>, volumeSize = 50): TemplateResource => ({
  Type: 'AWS::OpenSearchService::Domain',
  Properties: { ClusterConfig: cluster, EBSOptions: { EBSEnabled: true, VolumeSize: volumeSize, VolumeType: 'gp3' } },
});

describe('fixed monthly cost of template resources', () => {
  it('prices data nodes, dedicated masters and gp3 storage per node', () => {
    const lines = fixedMonthlyCosts([
      domain({
        InstanceType: 'r7g.large.search',
        InstanceCount: 2,
        DedicatedMasterEnabled: true,
        DedicatedMasterType: 'm7g.large.search',
        DedicatedMasterCount: 3,
      }),
    ]);
    expect(lines.map((line) => [line.item, line.detail, Number(line.monthlyUsd.toFixed(2))])).toEqual([
      ['OpenSearch data nodes', '2 × r7g.large.search', 261.34],
      ['OpenSearch dedicated masters', '3 × m7g.large.search', 297.84],
      ['OpenSearch storage (gp3)', '2 × 50 GiB', 12.2],
    ]);
  });

  it('bills a metric-math alarm for each metric it reads, and a plain alarm for one', () => {
    const mathAlarm: TemplateResource = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Metrics: [
          { Id: 'a', MetricStat: {} },
          { Id: 'b', MetricStat: {} },
          { Id: 'rate', Expression: 'a/b' },
        ],
      },
    };
    const plain: TemplateResource = { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } };
    expect(fixedMonthlyCosts([mathAlarm, plain])).toEqual([
      { item: 'CloudWatch alarms', detail: '2 alarms reading 3 metrics', monthlyUsd: 0.30000000000000004 },
    ]);
  });

  it('counts a web ACL with its rules, a canary by its schedule, and keys and secrets each', () => {
    const lines = fixedMonthlyCosts([
      { Type: 'AWS::WAFv2::WebACL', Properties: { Rules: [{}, {}, {}, {}] } },
      { Type: 'AWS::Synthetics::Canary', Properties: { Schedule: { Expression: 'rate(5 minutes)' } } },
      { Type: 'AWS::KMS::Key' },
      { Type: 'AWS::KMS::Key' },
      { Type: 'AWS::SecretsManager::Secret' },
      { Type: 'AWS::Lambda::Function' },
    ]);
    expect(Object.fromEntries(lines.map((line) => [line.item, Number(line.monthlyUsd.toFixed(2))]))).toEqual({
      'WAF web ACL': 9,
      'Synthetics canary': 10.51,
      'KMS customer-managed keys': 2,
      'Secrets Manager secrets': 0.4,
    });
  });

  it('lists a CloudFront distribution and S3 buckets at $0 idle, with their per-GB rates', () => {
    const lines = fixedMonthlyCosts([
      { Type: 'AWS::CloudFront::Distribution', Properties: { DistributionConfig: { PriceClass: 'PriceClass_100' } } },
      { Type: 'AWS::S3::Bucket' },
      { Type: 'AWS::S3::Bucket' },
    ]);
    expect(lines).toEqual([
      { item: 'CloudFront distribution', detail: 'PriceClass_100; $0.085/GB out past the free 1 TB a month', monthlyUsd: 0 },
      { item: 'S3 buckets', detail: '2; $0.023/GB-month stored', monthlyUsd: 0 },
    ]);
  });

  it('reads rate schedules in minutes and hours', () => {
    expect(runsPerMonth('rate(5 minutes)')).toBe(8760);
    expect(runsPerMonth('rate(1 hour)')).toBe(730);
    expect(runsPerMonth('rate(2 hours)')).toBe(365);
  });

  it('refuses an instance type it has no price for, naming it', () => {
    expect(() => fixedMonthlyCosts([domain({ InstanceType: 'x9z.huge.search', InstanceCount: 1 })])).toThrow(/x9z\.huge\.search.*lib\/cost\/prices\.ts/);
  });

  it('prices a million calls with Lambda compute from memory and billed time, WAF only when present', () => {
    const withWaf = perMillionCalls({ memoryMb: 512, arm64: true, billedMs: 100, waf: true });
    expect(withWaf.map((line) => line.item)).toEqual(['API Gateway (REST)', 'Lambda', 'DynamoDB (on demand)', 'WAF']);
    expect(Number(withWaf[1]!.monthlyUsd.toFixed(4))).toBe(0.8667);
    expect(perMillionCalls({ memoryMb: 512, arm64: true, billedMs: 100, waf: false })).toHaveLength(3);
    expect(costTable(withWaf, 'total').split('\n').at(-1)).toBe(`| **total** | | **$${totalOf(withWaf).toFixed(2)}** |`);
  });
});

describe('the estimate in docs/deploy.md', () => {
  it('is the one the current templates give (npm run cost -- --write refreshes it)', () => {
    const document = readFileSync(join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
    const section = costSection();
    expect(section).toContain('| OpenSearch dedicated masters | 3 × m7g.large.search |');
    expect(document.includes(COST_BEGIN) && document.includes(COST_END)).toBe(true);
    expect(withCostSection(document, section), 'docs/deploy.md holds a stale cost estimate: run `npm run cost -- --write`').toBe(document);
  }, 180_000);
});
