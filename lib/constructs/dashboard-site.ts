import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { HeadersFrameOption, HeadersReferrerPolicy, type PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PrivateSite } from './private-site';

/** The SPA's own page, which every unknown path answers with (client-side routing). */
export const DASHBOARD_INDEX = 'index.html';
/** Beside the index page, written at deploy: where to sign in and which API to call (lib/constructs/dashboard-upload.ts). */
export const DASHBOARD_CONFIG_KEY = 'config.json';

/**
 * The dashboard's Content-Security-Policy: its own scripts, styles and images only; requests to
 * itself and to `connectOrigins` (the API, the Cognito sign-in host and issuer); no framing, no
 * plugins; forms and the base URL stay on the site, except the sign-in host forms may post to.
 */
export function dashboardContentSecurityPolicy(connectOrigins: readonly string[], signInOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${connectOrigins.join(' ')}`,
    `form-action 'self' ${signInOrigin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

export interface DashboardSiteProps {
  /** Origins the app calls: the API's and the OIDC issuer's (and the sign-in host's token endpoint). */
  readonly connectOrigins: readonly string[];
  /** The managed login's origin, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly signInOrigin: string;
  readonly priceClass: PriceClass;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
}

/**
 * The developer dashboard's single-page app on CloudFront from a private bucket, at the
 * distribution's root: unknown paths (403 from S3 through OAC, or 404) answer with index.html so
 * the app routes them. Kept with the user pool, since its URL is the sign-in callback.
 */
export class DashboardSite extends PrivateSite {
  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id, {
      comment: 'Developer dashboard (single-page app)',
      priceClass: props.priceClass,
      removalPolicy: props.removalPolicy,
      logRetention: props.logRetention,
      defaultRootObject: DASHBOARD_INDEX,
      errorResponses: [403, 404].map((httpStatus) => ({
        httpStatus,
        responseHttpStatus: 200,
        responsePagePath: `/${DASHBOARD_INDEX}`,
        ttl: Duration.seconds(0),
      })),
      headers: {
        comment: 'Developer dashboard: strict CSP, HSTS, no framing, no referrer',
        securityHeadersBehavior: {
          contentSecurityPolicy: { contentSecurityPolicy: dashboardContentSecurityPolicy(props.connectOrigins, props.signInOrigin), override: true },
          contentTypeOptions: { override: true },
          frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
          // The sign-in callback's URL holds the authorization code: never send it on.
          referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
          strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        },
      },
    });
  }
}
