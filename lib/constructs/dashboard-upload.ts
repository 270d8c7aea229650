import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Annotations, type RemovalPolicy } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { type BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { DASHBOARD_CONFIG_KEY, DASHBOARD_INDEX } from './dashboard-site';
import { uploadToSite } from './private-site';

/** What the dashboard reads from `/config.json` at start: where to sign in and which API to call. */
export interface DashboardRuntimeConfig {
  /** The OIDC issuer (discovery document, JWKS): `https://cognito-idp.<region>.amazonaws.com/<pool id>`. */
  readonly issuer: string;
  /** The public app client: the authorization request's client_id and the ID token's audience. */
  readonly clientId: string;
  /** The managed login's origin (its /logout ends the Cognito session). */
  readonly signInUrl: string;
  /** The public API's `{base_url}` (ends in /functions/v1), for trying a new key. */
  readonly apiBaseUrl: string;
  /** The account API: `{base_url}/account`, called with the ID token as Bearer. */
  readonly accountApiBaseUrl: string;
}

/** The role may name every object it writes: past this many files its policy would near IAM's size limit. */
export const MAX_DASHBOARD_FILES = 60;

/** The files of a built site as object keys (`assets/app-1a2b.js`), config.json aside: the deploy writes that one. */
export function siteObjectKeys(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((key) => key !== DASHBOARD_CONFIG_KEY)
    .sort();
}

export interface DashboardUploadProps {
  readonly bucket: IBucket;
  /** The dashboard's build output (holding index.html). */
  readonly siteDirectory: string;
  readonly config: DashboardRuntimeConfig;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
}

/**
 * Puts the dashboard's built files and its config.json into the site bucket at deploy time. Every
 * object is sent with `no-cache` (browsers and CloudFront revalidate, so a release shows at once).
 * Without a build (no index.html in `siteDirectory`) it uploads nothing and synthesis warns.
 */
export class DashboardUpload extends Construct {
  readonly deployment?: BucketDeployment;
  readonly objectKeys: readonly string[];

  constructor(scope: Construct, id: string, props: DashboardUploadProps) {
    super(scope, id);
    if (!existsSync(join(props.siteDirectory, DASHBOARD_INDEX))) {
      Annotations.of(this).addWarningV2(
        'gcf:dashboardNotBuilt',
        `No ${DASHBOARD_INDEX} in ${props.siteDirectory}: the dashboard's files are not uploaded (build the dashboard before deploying)`,
      );
      this.objectKeys = [];
      return;
    }
    const files = siteObjectKeys(props.siteDirectory);
    if (files.length > MAX_DASHBOARD_FILES) {
      throw new Error(`Dashboard: ${props.siteDirectory} holds ${files.length} files, more than the ${MAX_DASHBOARD_FILES} the upload's role can name`);
    }
    this.objectKeys = [...files, DASHBOARD_CONFIG_KEY];
    this.deployment = uploadToSite(this, {
      bucket: props.bucket,
      sources: [Source.asset(props.siteDirectory, { exclude: [DASHBOARD_CONFIG_KEY] }), Source.jsonData(DASHBOARD_CONFIG_KEY, props.config)],
      objectKeys: this.objectKeys,
      description: "Uploads the developer dashboard's files and config.json at deploy time (BucketDeployment)",
      cacheControl: 'no-cache',
      removalPolicy: props.removalPolicy,
      logRetention: props.logRetention,
      // The docs assets' upload has the default size's function, with a role for its one object.
      memoryLimitMb: 256,
    });
  }
}
