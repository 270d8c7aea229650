/**
 * On-demand list prices in US East (N. Virginia), in US dollars, used by the cost estimate
 * (lib/cost/monthly-cost.ts). Other Regions differ by a few percent to a third; check the AWS
 * Pricing Calculator before budgeting and update this table when AWS changes a price.
 */
export const PRICES_AS_OF = '2026-11';
export const PRICE_REGION = 'us-east-1';

/** Hours in the month the estimate bills (AWS's own convention: 730). */
export const HOURS_PER_MONTH = 730;

/** OpenSearch Service instance-hours by instance type. */
export const OPENSEARCH_INSTANCE_HOURLY: Readonly<Record<string, number>> = {
  't3.small.search': 0.036,
  't3.medium.search': 0.073,
  'm6g.large.search': 0.128,
  'm7g.large.search': 0.136,
  'r6g.large.search': 0.167,
  'r7g.large.search': 0.179,
  'r6g.xlarge.search': 0.335,
  'r7g.xlarge.search': 0.358,
  'm7g.xlarge.search': 0.272,
};

export const PRICES = {
  /** OpenSearch gp3 storage per GiB-month, per data node. */
  opensearchGp3GiBMonth: 0.122,
  /** A standard-resolution CloudWatch alarm, per metric it reads. */
  alarmMetricMonth: 0.1,
  /** A custom CloudWatch dashboard (an account's first three are free). */
  dashboardMonth: 3,
  secretMonth: 0.4,
  kmsKeyMonth: 1,
  wafWebAclMonth: 5,
  /** Each rule or managed rule group of a web ACL. */
  wafRuleMonth: 1,
  wafPerMillionRequests: 0.6,
  canaryRun: 0.0012,
  natGatewayHourly: 0.045,
  /** An interface VPC endpoint, per Availability Zone. */
  interfaceEndpointHourly: 0.01,
  route53HostedZoneMonth: 0.5,
  /** CloudFront data out to the internet (North America and Europe), past the always-free 1 TB a month. */
  cloudFrontPerGbOut: 0.085,
  /** S3 Standard storage. */
  s3StandardGbMonth: 0.023,
  /** Usage-based rates, for the table's second half. */
  apiGatewayRestPerMillion: 3.5,
  lambdaPerMillionRequests: 0.2,
  lambdaArmGbSecond: 0.0000133334,
  lambdaX86GbSecond: 0.0000166667,
  dynamoReadPerMillion: 0.125,
  dynamoWritePerMillion: 0.625,
  dynamoStorageGbMonth: 0.25,
  sqsPerMillion: 0.4,
  logsIngestGb: 0.5,
  titanEmbeddingsPer1kTokens: 0.00002,
} as const;
