import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  type ErrorResponse,
  HttpVersion,
  type PriceClass,
  ResponseHeadersPolicy,
  type ResponseHeadersPolicyProps,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, type ISource, type SourceConfig } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { autoDeleteObjectsLogs } from './auto-delete-objects-logs';

export interface PrivateSiteProps {
  readonly comment: string;
  /** The edge locations CloudFront serves from. */
  readonly priceClass: PriceClass;
  /** The response headers policy of every answer (CORS, security headers, caching). */
  readonly headers: ResponseHeadersPolicyProps;
  /** The object `/` answers with, e.g. `index.html`. */
  readonly defaultRootObject?: string;
  /** e.g. a single-page app's 403/404 answered with its index page. */
  readonly errorResponses?: ErrorResponse[];
  /** Of the buckets (logs included). */
  readonly removalPolicy: RemovalPolicy;
  /** How long access logs are kept. */
  readonly logRetention: RetentionDays;
}

/**
 * Static files served by CloudFront from a private, encrypted, TLS-only S3 bucket through Origin
 * Access Control (neither a Lambda response nor public S3), HTTPS only, with the bucket's server
 * access logs (`s3/`) and CloudFront's standard logs (`cloudfront/`) in a log bucket.
 */
export class PrivateSite extends Construct {
  readonly bucket: Bucket;
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  readonly headersPolicy: ResponseHeadersPolicy;
  /** `https://<id>.cloudfront.net`. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: PrivateSiteProps) {
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

    this.headersPolicy = new ResponseHeadersPolicy(this, 'Headers', props.headers);

    this.distribution = new Distribution(this, 'Distribution', {
      comment: props.comment,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headersPolicy,
        compress: true,
      },
      defaultRootObject: props.defaultRootObject,
      errorResponses: props.errorResponses,
      priceClass: props.priceClass,
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    this.baseUrl = `https://${this.distribution.distributionDomainName}`;
  }
}

export interface SiteUploadProps {
  readonly bucket: IBucket;
  readonly sources: readonly ISource[];
  /** Every object key the sources hold: the upload may write these and no other. */
  readonly objectKeys: readonly string[];
  /** Says what is uploaded, on the upload's role. */
  readonly description: string;
  readonly contentType?: string;
  readonly cacheControl: string;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  /**
   * BucketDeployment runs one function per stack and memory size, under the role of the first
   * upload that made it: a second upload in a stack needs a size of its own. @default 128
   */
  readonly memoryLimitMb?: number;
}

/**
 * Uploads files to a site's bucket at deploy time (BucketDeployment, children `UploadLogs`,
 * `UploadRole` and `Upload` of `scope`), never deleting what an older release left: pages cached
 * before the deploy still load the files they name. BucketDeployment would grant its function
 * read and write on both buckets (s3:*Object*); this role may only read the sources' own zips,
 * list the bucket (the sync compares) and put the named objects.
 */
export function uploadToSite(scope: Construct, props: SiteUploadProps): BucketDeployment {
  const uploadLogs = new LogGroup(scope, 'UploadLogs', { retention: props.logRetention, removalPolicy: props.removalPolicy });
  const uploadRole = new Role(scope, 'UploadRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com'), description: props.description });
  const role = uploadRole.withoutPolicyUpdates();
  // Bound here rather than by BucketDeployment, so the role can name each source's exact zip.
  const bound = props.sources.map((source): SourceConfig => source.bind(scope, { handlerRole: role }));
  uploadRole.addToPolicy(
    new PolicyStatement({ actions: ['s3:GetObject'], resources: bound.map((config) => config.bucket.arnForObjects(config.zipObjectKey)) }),
  );
  uploadRole.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.bucket.bucketArn] }));
  uploadRole.addToPolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: props.objectKeys.map((key) => props.bucket.arnForObjects(key)) }));
  uploadLogs.grantWrite(uploadRole);

  const deployment = new BucketDeployment(scope, 'Upload', {
    sources: bound.map((config): ISource => ({ bind: () => config })),
    destinationBucket: props.bucket,
    prune: false,
    contentType: props.contentType,
    cacheControl: [CacheControl.fromString(props.cacheControl)],
    role,
    logGroup: uploadLogs,
    memoryLimit: props.memoryLimitMb,
  });
  if (deployment.handlerRole !== role) {
    throw new Error(
      `${scope.node.path}: another upload in this stack already runs BucketDeployment's function with its own role; give this one another memoryLimitMb`,
    );
  }
  return deployment;
}
