import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { HeadersFrameOption, type PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { type BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { PrivateSite, uploadToSite } from './private-site';

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
 * Static files of the docs page (the API reference renderer's bundle) on a PrivateSite, so the
 * multi-megabyte script is neither a Lambda response nor public S3. The object is uploaded at
 * deploy time under a versioned key and kept when a new version arrives (pages cached with the
 * old URL still load it).
 */
export class DocsAssets extends PrivateSite {
  readonly deployment: BucketDeployment;

  constructor(scope: Construct, id: string, props: DocsAssetsProps) {
    super(scope, id, {
      comment: 'Docs page assets (the API reference renderer)',
      priceClass: props.priceClass,
      removalPolicy: props.removalPolicy,
      logRetention: props.logRetention,
      headers: {
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
      },
    });

    // The file as a zipped asset of its own, so the upload's role can name its exact object.
    const files = new Asset(this, 'Files', { path: stagedFolder(props.objectKey, props.body) });
    this.deployment = uploadToSite(this, {
      bucket: this.bucket,
      sources: [Source.bucket(files.bucket, files.s3ObjectKey)],
      objectKeys: [props.objectKey],
      description: 'Uploads the docs page assets at deploy time (BucketDeployment)',
      contentType: props.contentType,
      cacheControl: props.cacheControl,
      removalPolicy: props.removalPolicy,
      logRetention: props.logRetention,
    });
  }
}
