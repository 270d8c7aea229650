import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HttpVersion,
  type PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { autoDeleteObjectsLogs } from './auto-delete-objects-logs';

/**
 * A folder holding `body` at `objectKey`, named by their hash: every synthesis of the same file
 * reuses it instead of leaving a new copy of several megabytes in the temp folder.
 */
function stagedFolder(objectKey: string, body: string): string {
  const folder = join(tmpdir(), `gcf-docs-assets-${createHash('sha256').update(objectKey).update('\0').update(body).digest('hex').slice(0, 32)}`);
  if (existsSync(folder)) return folder;
  const partial = `${folder}.${process.pid}.partial`;
  mkdirSync(dirname(join(partial, objectKey)), { recursive: true });
  writeFileSync(join(partial, objectKey), body);
  try {
    renameSync(partial, folder);
  } catch (error) {
    // Another process staged the same folder first.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(folder)) throw error;
  }
  return folder;
}

export interface DocsAssetsProps {
  /** The object key, naming the asset's version (e.g. `scalar/1.76.0/standalone.js`): the object is never overwritten. */
  readonly objectKey: string;
  /** The file's content, as browsers get it. */
  readonly body: string;
  readonly contentType: string;
  /** Cache-Control of the object, at the edge and in browsers (immutable: the key names the version). */
  readonly cacheControl: string;
  /** The origins of the pages that load the asset (the API's docs page), allowed by CORS. */
  readonly pageOrigins: readonly string[];
  /** The edge locations CloudFront serves from (lib/config.ts `docs.priceClass`). */
  readonly priceClass: PriceClass;
  /** Of the buckets (logs included) and the upload function's log group. */
  readonly removalPolicy: RemovalPolicy;
  /** How long access logs and the upload function's logs are kept. */
  readonly logRetention: RetentionDays;
}

/**
 * Static files of the docs page (the API reference renderer's bundle) served by CloudFront from a
 * private S3 bucket through Origin Access Control, so the multi-megabyte script is neither a Lambda
 * response nor public S3. The object is uploaded at deploy time under a versioned key and kept
 * when a new version arrives (pages cached with the old URL still load it).
 */
export class DocsAssets extends Construct {
  readonly bucket: Bucket;
  /** Server access logs of the bucket (`s3/`) and CloudFront's standard logs (`cloudfront/`). */
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  readonly deployment: BucketDeployment;
  /** `https://<id>.cloudfront.net`: the origin the docs page loads its script from. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: DocsAssetsProps) {
    super(scope, id);
    const destroy = props.removalPolicy === RemovalPolicy.DESTROY;

    this.logBucket = new Bucket(this, 'Logs', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      // CloudFront's standard logs are delivered with an ACL: the bucket must accept ACLs (kept private by the block above).
      objectOwnership: ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(props.logRetention) }],
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: destroy,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 's3/',
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: destroy,
    });

    if (destroy) autoDeleteObjectsLogs([this.bucket, this.logBucket], props.logRetention);

    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Docs page assets: CORS for the docs page, nosniff, a year of caching',
      corsBehavior: {
        accessControlAllowOrigins: [...props.pageOrigins],
        accessControlAllowMethods: ['GET', 'HEAD'],
        // CloudFront needs at least one; a GET of the script sends none that would need allowing.
        accessControlAllowHeaders: ['*'],
        accessControlAllowCredentials: false,
        accessControlMaxAge: Duration.days(1),
        originOverride: true,
      },
      securityHeadersBehavior: {
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'Cache-Control', value: props.cacheControl, override: true }] },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Docs page assets (the API reference renderer)',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
      },
      priceClass: props.priceClass,
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    this.baseUrl = `https://${this.distribution.distributionDomainName}`;

    // The file as a zipped asset of its own, so the upload's role can name its exact object.
    const files = new Asset(this, 'Files', { path: stagedFolder(props.objectKey, props.body) });

    // BucketDeployment would grant its function read and write on both buckets (s3:*Object*); this
    // role may only read the one asset, list the bucket (the sync compares) and put the one object.
    const uploadLogs = new LogGroup(this, 'UploadLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
    const uploadRole = new Role(this, 'UploadRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Uploads the docs page assets at deploy time (BucketDeployment)',
    });
    uploadRole.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [files.bucket.arnForObjects(files.s3ObjectKey)] }));
    uploadRole.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
    uploadRole.addToPolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [this.bucket.arnForObjects(props.objectKey)] }));
    uploadLogs.grantWrite(uploadRole);

    this.deployment = new BucketDeployment(this, 'Upload', {
      sources: [Source.bucket(files.bucket, files.s3ObjectKey)],
      destinationBucket: this.bucket,
      // Older versions stay: a docs page cached before this deploy still names its own.
      prune: false,
      contentType: props.contentType,
      cacheControl: [CacheControl.fromString(props.cacheControl)],
      role: uploadRole.withoutPolicyUpdates(),
      logGroup: uploadLogs,
    });
  }
}
