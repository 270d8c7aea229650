import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, SecretValue, Stack } from 'aws-cdk-lib';
import { ComparisonOperator, GraphWidget, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Canary, Code, Runtime, Schedule, Test } from 'aws-cdk-lib/aws-synthetics';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { CANARY_ENV } from '../../lambdas/canary/canary-env';
import type { CanarySettings } from '../canary-settings';
import { autoDeleteObjectsLogs } from './auto-delete-objects-logs';
import type { AlarmDefinition } from './service-alarms';

export interface ApiCanaryProps {
  /** The interface's {base_url} the canary calls, as customers do. */
  readonly apiBaseUrl: string;
  readonly settings: CanarySettings;
  /** The canary's name is `<namePrefix>-api`, e.g. `gcf-prod-api`. */
  readonly namePrefix: string;
  /** Of the artifacts and access-log buckets: the stage's policy for what it keeps. */
  readonly removalPolicy: RemovalPolicy;
  /** Of the function that empties the buckets of a throwaway stage before they are deleted. */
  readonly logRetention: RetentionDays;
  /** Directory holding package-lock.json; the canary's code is bundled from lambdas/canary there. */
  readonly projectRoot: string;
}

/** Where the runtime loads the bundle from (nodejs/node_modules/<file>.js) and the handler it calls. */
const BUNDLE_FILE = 'api-canary';
const HANDLER = `${BUNDLE_FILE}.handler`;
/** The Synthetics runtime: Node.js without a browser (the check only speaks HTTP). */
export const CANARY_RUNTIME = Runtime.SYNTHETICS_NODEJS_3_1;
/** Synthetics publishes its metrics under this namespace; the role may write only there. */
const SYNTHETICS_NAMESPACE = 'CloudWatchSynthetics';
/** The alarm pages when the success rate falls below this percentage. */
export const CANARY_SUCCESS_THRESHOLD_PERCENT = 90;
export const CANARY_WIDGET_TITLE = 'Synthetic canary (search, read, OpenAPI)';
/** Canary names are at most 21 characters (the Lambda function Synthetics makes carries it). */
const MAX_CANARY_NAME = 21;

/** `<prefix>-api`, shortened with a hash of the whole to fit a canary name; lower-case letters, digits and dashes. */
export function canaryNameOf(namePrefix: string): string {
  const full = `${namePrefix}-api`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  if (full.length <= MAX_CANARY_NAME) return full;
  return `${full.slice(0, MAX_CANARY_NAME - 7).replace(/-+$/, '')}-${createHash('sha256').update(full).digest('hex').slice(0, 6)}`;
}

/**
 * A CloudWatch Synthetics canary that searches grants, reads one of them and fetches the OpenAPI
 * document every few minutes with its own API key (lambdas/canary/api-check.ts), and the paging
 * alarm on its success rate. The key lives in a secret only the canary's role may read; the stack
 * creates it empty (`{}`) and `admin canary provision` fills and rotates it.
 */
export class ApiCanary extends Construct {
  readonly canary: Canary;
  readonly role: Role;
  readonly keySecret: Secret;
  readonly artifactsBucket: Bucket;
  readonly accessLogsBucket: Bucket;
  /** The success-rate alarm, declared with the stage's others (ServiceAlarms). */
  readonly alarmDefinition: AlarmDefinition;
  readonly widget: GraphWidget;

  constructor(scope: Construct, id: string, props: ApiCanaryProps) {
    super(scope, id);
    const { settings } = props;
    const stack = Stack.of(this);
    const canaryName = canaryNameOf(props.namePrefix);
    const ephemeral = props.removalPolicy === RemovalPolicy.DESTROY;
    const expiration = Duration.days(settings.artifactRetentionDays);

    const bucketDefaults = {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration }],
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: ephemeral,
    };
    // Server access logs need a bucket of their own, encrypted with S3-managed keys.
    this.accessLogsBucket = new Bucket(this, 'AccessLogs', { ...bucketDefaults, objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED });
    this.artifactsBucket = new Bucket(this, 'Artifacts', {
      ...bucketDefaults,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'artifacts/',
    });
    if (ephemeral) autoDeleteObjectsLogs([this.artifactsBucket, this.accessLogsBucket], props.logRetention);

    // Holds a credential that `admin canary provision` re-issues at will, so it goes with the stack.
    this.keySecret = new Secret(this, 'KeySecret', {
      description: `The API key of the ${canaryName} synthetic canary ({"key_id","key"}; {} until admin canary provision)`,
      secretStringValue: SecretValue.unsafePlainText('{}'),
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // CDK's default canary role may write to any cwsyn-* log group: this one only to its own canary's.
    this.role = new Role(this, 'ServiceRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${canaryName} synthetic canary`,
    });
    this.role.addToPolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.artifactsBucket.arnForObjects('*')] }));
    this.role.addToPolicy(new PolicyStatement({ actions: ['s3:GetBucketLocation'], resources: [this.artifactsBucket.bucketArn] }));
    this.role.addToPolicy(new PolicyStatement({ actions: ['s3:ListAllMyBuckets'], resources: ['*'] }));
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        conditions: { StringEquals: { 'cloudwatch:namespace': SYNTHETICS_NAMESPACE } },
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:/aws/lambda/cwsyn-${canaryName}-*`],
      }),
    );
    this.keySecret.grantRead(this.role);

    this.canary = new Canary(this, 'Canary', {
      canaryName,
      runtime: CANARY_RUNTIME,
      test: Test.custom({ code: this.bundledCode(props.projectRoot), handler: HANDLER }),
      schedule: Schedule.rate(Duration.minutes(settings.scheduleMinutes)),
      role: this.role,
      artifactsBucketLocation: { bucket: this.artifactsBucket },
      environmentVariables: {
        [CANARY_ENV.apiBaseUrl]: props.apiBaseUrl,
        [CANARY_ENV.keySecretArn]: this.keySecret.secretArn,
        [CANARY_ENV.searchTerm]: settings.searchTerm,
      },
      timeout: Duration.minutes(1),
      successRetentionPeriod: expiration,
      failureRetentionPeriod: expiration,
      provisionedResourceCleanup: true,
    });

    // A period never shorter than the schedule, so each one holds a run.
    const period = Duration.minutes(Math.max(5, settings.scheduleMinutes));
    const successPercent = this.canary.metricSuccessPercent({ period, statistic: 'Average' });
    this.widget = new GraphWidget({
      title: CANARY_WIDGET_TITLE,
      left: [successPercent.with({ label: 'Success %' })],
      right: [this.canary.metricDuration({ period, label: 'Run duration' })],
      leftAnnotations: [{ value: CANARY_SUCCESS_THRESHOLD_PERCENT, label: 'alarm' }],
      leftYAxis: { min: 0, max: 100, label: '%', showUnits: false },
      width: 8,
      height: 6,
    });
    this.alarmDefinition = {
      anchor: 'api-canary',
      severity: 'page',
      metric: successPercent,
      threshold: CANARY_SUCCESS_THRESHOLD_PERCENT,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      // Two of three periods: one late or failed run does not page, a broken path does within three.
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      // A canary that stops running (stopped, its key or role broken before it reports) is itself a failure.
      treatMissingData: TreatMissingData.BREACHING,
      summary: `The synthetic canary ${canaryName} (a keyword search, a record read, the OpenAPI document, with its own key) succeeded in less than ${CANARY_SUCCESS_THRESHOLD_PERCENT}% of its runs in 2 of 3 periods, or stopped reporting: customers likely cannot search or read.`,
      widget: CANARY_WIDGET_TITLE,
    };
  }

  /**
   * lambdas/canary/handler.ts bundled with esbuild into nodejs/node_modules/api-canary.js (CommonJS,
   * SDK included), as an S3 asset: Code.fromAsset cannot check a directory whose bundling was skipped.
   */
  private bundledCode(projectRoot: string): Code {
    const asset = new Asset(this, 'Code', {
      path: join(projectRoot, 'lambdas', 'canary'),
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Only the local bundling below runs; CDK requires an image name regardless.
        image: DockerImage.fromRegistry('unused'),
        local: {
          tryBundle(outputDir: string): boolean {
            buildSync({
              absWorkingDir: projectRoot,
              entryPoints: [join(projectRoot, 'lambdas', 'canary', 'handler.ts')],
              outfile: join(outputDir, 'nodejs', 'node_modules', `${BUNDLE_FILE}.js`),
              bundle: true,
              platform: 'node',
              target: 'node20',
              format: 'cjs',
              minify: true,
              // The runtime's own Synthetics library, loaded when present (handler.ts).
              external: ['@aws/synthetics-core', 'Synthetics'],
              logLevel: 'error',
            });
            return true;
          },
        },
      },
    });
    return Code.fromBucket(asset.bucket, asset.s3ObjectKey);
  }
}
