import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';

/** Whether dashboard users must, may or cannot add a TOTP authenticator app (no SMS: it costs per message). */
export const DASHBOARD_MFA_MODES = ['optional', 'required', 'off'] as const;
export type DashboardMfaMode = (typeof DASHBOARD_MFA_MODES)[number];

/** The developer dashboard's sign-in and site (cdk.json `dashboard`; docs/deploy.md "Developer dashboard"). */
export interface DashboardSettings {
  /**
   * The managed login's host, `<prefix>.auth.<region>.amazoncognito.com`: unique in the Region
   * across all AWS accounts, so a taken prefix fails the deploy.
   */
  readonly domainPrefix: string;
  /** Sign-in callback and sign-out URLs besides the dashboard's own (e.g. `http://localhost:5173/` for a local build against this stage). */
  readonly extraCallbackUrls: readonly string[];
  readonly mfa: DashboardMfaMode;
  /** The edge locations the dashboard is served from. */
  readonly priceClass: PriceClass;
}

// Cognito's rule for a prefix, and the words it reserves for its own domains.
const DOMAIN_PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const RESERVED_PREFIX_WORDS = ['aws', 'amazon', 'cognito'];
// Plain http only for a developer's own machine; a callback receives the sign-in code.
const CALLBACK_URL_PATTERN = /^(https:\/\/[^\s/?#]+|http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?)(\/[^\s#]*)?$/;

/** The stage's default: the service and stage names, so two stages of one account never collide. */
export function defaultDashboardDomainPrefix(serviceName: string, stage: string): string {
  return `${serviceName}-${stage}`.toLowerCase();
}

/** The settings as given over the defaults, or an error naming the key. */
export function dashboardSettingsOf(defaultPrefix: string, overrides: Partial<DashboardSettings> = {}): DashboardSettings {
  const settings: DashboardSettings = {
    domainPrefix: defaultPrefix,
    extraCallbackUrls: [],
    mfa: 'optional',
    priceClass: PriceClass.PRICE_CLASS_100,
    ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
  };
  const prefix = settings.domainPrefix;
  if (!DOMAIN_PREFIX_PATTERN.test(prefix)) {
    throw new Error(`Dashboard: domainPrefix must be 1-63 lower-case letters, digits or inner dashes, not ${JSON.stringify(prefix)}`);
  }
  const reserved = RESERVED_PREFIX_WORDS.find((word) => prefix.includes(word));
  if (reserved) throw new Error(`Dashboard: domainPrefix ${JSON.stringify(prefix)} contains "${reserved}", which Cognito reserves`);
  for (const url of settings.extraCallbackUrls) {
    if (!CALLBACK_URL_PATTERN.test(url)) {
      throw new Error(`Dashboard: extraCallbackUrls must be https URLs (or http://localhost ones), not ${JSON.stringify(url)}`);
    }
  }
  if (!(DASHBOARD_MFA_MODES as readonly string[]).includes(settings.mfa)) {
    throw new Error(`Dashboard: mfa must be one of ${DASHBOARD_MFA_MODES.join(', ')}, not ${JSON.stringify(settings.mfa)}`);
  }
  if (!(Object.values(PriceClass) as string[]).includes(settings.priceClass)) {
    throw new Error(`Dashboard: priceClass must be one of ${Object.values(PriceClass).join(', ')}, not ${JSON.stringify(settings.priceClass)}`);
  }
  return settings;
}
