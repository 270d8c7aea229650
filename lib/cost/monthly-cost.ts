import { HOURS_PER_MONTH, OPENSEARCH_INSTANCE_HOURLY, PRICES } from './prices';

/**
 * What a stage costs before its first request: the fixed monthly price of the resources in its
 * synthesized templates (instances, storage, alarms, keys, the web ACL, the canary). Usage-based
 * resources (Lambda, API Gateway, DynamoDB on demand, SQS, SNS; CloudFront and S3, listed at $0
 * with their per-GB rate) cost nothing idle and are
 * priced per million requests by usageRates().
 */

export interface TemplateResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

export interface CostLine {
  readonly item: string;
  /** How many of what, as the template holds them. */
  readonly detail: string;
  readonly monthlyUsd: number;
}

type Pricer = (resources: readonly TemplateResource[]) => CostLine[];

function ofType(resources: readonly TemplateResource[], type: string): TemplateResource[] {
  return resources.filter((resource) => resource.Type === type);
}

function instanceHourly(instanceType: unknown): number {
  const price = typeof instanceType === 'string' ? OPENSEARCH_INSTANCE_HOURLY[instanceType] : undefined;
  if (price === undefined)
    throw new Error(`Cost estimate: no price for OpenSearch instance type ${JSON.stringify(instanceType)}; add it to lib/cost/prices.ts`);
  return price;
}

const searchDomains: Pricer = (resources) =>
  ofType(resources, 'AWS::OpenSearchService::Domain').flatMap((domain) => {
    const cluster = (domain.Properties?.ClusterConfig ?? {}) as Record<string, unknown>;
    const ebs = (domain.Properties?.EBSOptions ?? {}) as Record<string, unknown>;
    const dataNodes = Number(cluster.InstanceCount ?? 1);
    const lines: CostLine[] = [
      {
        item: 'OpenSearch data nodes',
        detail: `${dataNodes} × ${cluster.InstanceType}`,
        monthlyUsd: dataNodes * instanceHourly(cluster.InstanceType) * HOURS_PER_MONTH,
      },
    ];
    if (cluster.DedicatedMasterEnabled === true) {
      const masters = Number(cluster.DedicatedMasterCount);
      lines.push({
        item: 'OpenSearch dedicated masters',
        detail: `${masters} × ${cluster.DedicatedMasterType}`,
        monthlyUsd: masters * instanceHourly(cluster.DedicatedMasterType) * HOURS_PER_MONTH,
      });
    }
    if (ebs.EBSEnabled !== false && ebs.VolumeSize !== undefined) {
      const size = Number(ebs.VolumeSize);
      lines.push({ item: 'OpenSearch storage (gp3)', detail: `${dataNodes} × ${size} GiB`, monthlyUsd: dataNodes * size * PRICES.opensearchGp3GiBMonth });
    }
    return lines;
  });

/** A metric-math alarm is billed for each metric it reads. */
function alarmMetricCount(alarm: TemplateResource): number {
  const metrics = alarm.Properties?.Metrics;
  if (!Array.isArray(metrics)) return 1;
  return Math.max(1, metrics.filter((metric) => (metric as Record<string, unknown>).MetricStat !== undefined).length);
}

const alarms: Pricer = (resources) => {
  const all = ofType(resources, 'AWS::CloudWatch::Alarm');
  if (all.length === 0) return [];
  const metrics = all.reduce((sum, alarm) => sum + alarmMetricCount(alarm), 0);
  return [{ item: 'CloudWatch alarms', detail: `${all.length} alarms reading ${metrics} metrics`, monthlyUsd: metrics * PRICES.alarmMetricMonth }];
};

function perEach(type: string, item: string, unitMonthly: number): Pricer {
  return (resources) => {
    const count = ofType(resources, type).length;
    return count === 0 ? [] : [{ item, detail: `${count}`, monthlyUsd: count * unitMonthly }];
  };
}

const webAcls: Pricer = (resources) =>
  ofType(resources, 'AWS::WAFv2::WebACL').map((acl) => {
    const rules = Array.isArray(acl.Properties?.Rules) ? (acl.Properties.Rules as unknown[]).length : 0;
    return { item: 'WAF web ACL', detail: `1 web ACL, ${rules} rules`, monthlyUsd: PRICES.wafWebAclMonth + rules * PRICES.wafRuleMonth };
  });

/** Runs a month of a `rate(N minutes|hours)` schedule; anything else is priced at one run an hour. */
export function runsPerMonth(expression: unknown): number {
  const match = typeof expression === 'string' ? /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(expression) : null;
  if (!match) return HOURS_PER_MONTH;
  const everyMinutes = Number(match[1]) * (match[2]!.startsWith('hour') ? 60 : 1);
  return (HOURS_PER_MONTH * 60) / everyMinutes;
}

const canaries: Pricer = (resources) =>
  ofType(resources, 'AWS::Synthetics::Canary').map((canary) => {
    const schedule = (canary.Properties?.Schedule ?? {}) as Record<string, unknown>;
    const runs = runsPerMonth(schedule.Expression);
    return { item: 'Synthetics canary', detail: `${Math.round(runs)} runs (${schedule.Expression})`, monthlyUsd: runs * PRICES.canaryRun };
  });

const interfaceEndpoints: Pricer = (resources) => {
  const endpoints = ofType(resources, 'AWS::EC2::VPCEndpoint').filter((endpoint) => endpoint.Properties?.VpcEndpointType === 'Interface');
  if (endpoints.length === 0) return [];
  const zones = endpoints.reduce(
    (sum, endpoint) => sum + (Array.isArray(endpoint.Properties?.SubnetIds) ? (endpoint.Properties.SubnetIds as unknown[]).length : 1),
    0,
  );
  return [
    {
      item: 'VPC interface endpoints',
      detail: `${endpoints.length} endpoints in ${zones} zone-slots`,
      monthlyUsd: zones * PRICES.interfaceEndpointHourly * HOURS_PER_MONTH,
    },
  ];
};

/** No fixed price: billed per GB out (the docs page's script), which the line's detail names. */
const distributions: Pricer = (resources) =>
  ofType(resources, 'AWS::CloudFront::Distribution').map((distribution) => {
    const config = (distribution.Properties?.DistributionConfig ?? {}) as Record<string, unknown>;
    return {
      item: 'CloudFront distribution',
      detail: `${config.PriceClass ?? 'PriceClass_All'}; $${PRICES.cloudFrontPerGbOut}/GB out past the free 1 TB a month`,
      monthlyUsd: 0,
    };
  });

/** Billed per GB stored; the service's buckets hold a few megabytes (the docs assets and their logs). */
const buckets: Pricer = (resources) => {
  const count = ofType(resources, 'AWS::S3::Bucket').length;
  return count === 0 ? [] : [{ item: 'S3 buckets', detail: `${count}; $${PRICES.s3StandardGbMonth}/GB-month stored`, monthlyUsd: 0 }];
};

const PRICERS: readonly Pricer[] = [
  searchDomains,
  perEach('AWS::EC2::NatGateway', 'NAT gateways', PRICES.natGatewayHourly * HOURS_PER_MONTH),
  interfaceEndpoints,
  webAcls,
  alarms,
  perEach('AWS::CloudWatch::Dashboard', 'CloudWatch dashboards', PRICES.dashboardMonth),
  canaries,
  perEach('AWS::SecretsManager::Secret', 'Secrets Manager secrets', PRICES.secretMonth),
  perEach('AWS::KMS::Key', 'KMS customer-managed keys', PRICES.kmsKeyMonth),
  perEach('AWS::Route53::HostedZone', 'Route 53 hosted zones', PRICES.route53HostedZoneMonth),
  distributions,
  buckets,
];

/** The fixed monthly cost lines of a stage's resources (every stack of it together). */
export function fixedMonthlyCosts(resources: readonly TemplateResource[]): CostLine[] {
  return PRICERS.flatMap((pricer) => pricer(resources));
}

export interface UsageAssumptions {
  /** Memory of the API functions, MB. */
  readonly memoryMb: number;
  readonly arm64: boolean;
  /** Billed duration assumed per call, ms. */
  readonly billedMs: number;
  readonly waf: boolean;
}

/** The cost of a million API calls, line by line, under stated assumptions. */
export function perMillionCalls(assumptions: UsageAssumptions): CostLine[] {
  const gbSeconds = (assumptions.memoryMb / 1024) * (assumptions.billedMs / 1000) * 1_000_000;
  const lines: CostLine[] = [
    { item: 'API Gateway (REST)', detail: '1M requests', monthlyUsd: PRICES.apiGatewayRestPerMillion },
    {
      item: 'Lambda',
      detail: `1M invocations × ${assumptions.billedMs} ms at ${assumptions.memoryMb} MB (${assumptions.arm64 ? 'arm64' : 'x86_64'})`,
      monthlyUsd: PRICES.lambdaPerMillionRequests + gbSeconds * (assumptions.arm64 ? PRICES.lambdaArmGbSecond : PRICES.lambdaX86GbSecond),
    },
    // Each call writes its quota count (day item), its response figures (hour item) and its request-log entry.
    {
      item: 'DynamoDB (on demand)',
      detail: '3M writes (quota count, response figures, request log), 1M key reads',
      monthlyUsd: 3 * PRICES.dynamoWritePerMillion + PRICES.dynamoReadPerMillion,
    },
  ];
  if (assumptions.waf) lines.push({ item: 'WAF', detail: '1M requests inspected', monthlyUsd: PRICES.wafPerMillionRequests });
  return lines;
}

export function totalOf(lines: readonly CostLine[]): number {
  return lines.reduce((sum, line) => sum + line.monthlyUsd, 0);
}

function dollars(amount: number): string {
  return amount >= 100 ? `$${Math.round(amount).toLocaleString('en-US')}` : `$${amount.toFixed(2)}`;
}

/** A markdown table of cost lines with their total. */
export function costTable(lines: readonly CostLine[], totalLabel: string): string {
  const rows = lines.map((line) => `| ${line.item} | ${line.detail} | ${dollars(line.monthlyUsd)} |`);
  return ['| item | in the template | USD |', '|---|---|---|', ...rows, `| **${totalLabel}** | | **${dollars(totalOf(lines))}** |`].join('\n');
}
