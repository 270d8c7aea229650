import { CfnOutput, Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  type CfnUserPool,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { DashboardMfaMode, DashboardSettings } from '../dashboard-settings';

const MFA_OF: Record<DashboardMfaMode, Mfa> = { optional: Mfa.OPTIONAL, required: Mfa.REQUIRED, off: Mfa.OFF };

export interface DashboardIdentityProps {
  readonly settings: DashboardSettings;
  /** The dashboard's own URL (no trailing slash): the sign-in callback and the sign-out target. */
  readonly dashboardUrl: string;
  /** e.g. `gcf-data-service-prod-dashboard`. */
  readonly userPoolName: string;
  /** The user pool's pinned logical id: a new one would be a new, empty pool. */
  readonly userPoolLogicalId: string;
  readonly removalPolicy: RemovalPolicy;
  /** Refuses the pool's deletion (a durable stage) even by a stack delete. */
  readonly deletionProtection: boolean;
}

/**
 * Who may sign in to the developer dashboard: a Cognito user pool (e-mail as the user name,
 * verified at sign-up, recovery by e-mail, TOTP MFA per the stage), its managed login, and one
 * public app client for the dashboard: the authorization code grant only (the app sends a PKCE
 * challenge; there is no secret to keep), scopes openid and email, short ID tokens and rotated
 * refresh tokens. The account API reads the ID token's verified e-mail.
 */
export class DashboardIdentity extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  readonly domain: UserPoolDomain;
  /** The OIDC issuer, `https://cognito-idp.<region>.amazonaws.com/<pool id>` (the ID token's `iss`). */
  readonly issuerUrl: string;
  /** The managed login's origin, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly signInUrl: string;

  constructor(scope: Construct, id: string, props: DashboardIdentityProps) {
    super(scope, id);
    const { settings } = props;

    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: props.userPoolName,
      // Essentials: managed login and refresh token rotation, free up to its MAU allowance; threat
      // protection needs Plus, billed for every active user (docs/deploy.md "Developer dashboard").
      featurePlan: FeaturePlan.ESSENTIALS,
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      // A changed address counts only once verified: the account is found by the verified e-mail.
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      mfa: MFA_OF[settings.mfa],
      mfaSecondFactor: settings.mfa === 'off' ? undefined : { otp: true, sms: false },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    (this.userPool.node.defaultChild as CfnUserPool).overrideLogicalId(props.userPoolLogicalId);

    const dashboardUrls = [`${props.dashboardUrl}/`, ...settings.extraCallbackUrls];
    this.client = this.userPool.addClient('DashboardClient', {
      userPoolClientName: 'developer-dashboard',
      generateSecret: false,
      // Sign-in happens on the managed login only: no direct password or SRP calls from the app.
      authFlows: { user: false },
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: dashboardUrls,
        logoutUrls: dashboardUrls,
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      idTokenValidity: Duration.minutes(60),
      accessTokenValidity: Duration.minutes(60),
      refreshTokenValidity: Duration.days(1),
      // Each refresh returns a new refresh token and retires the old one (a minute's grace for retries).
      refreshTokenRotationGracePeriod: Duration.seconds(60),
    });

    this.domain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix: settings.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    // The newer managed login shows a client's pages only once it has a style: Cognito's own.
    new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.client.userPoolClientId,
      useCognitoProvidedValues: true,
    });

    const stack = Stack.of(this);
    this.issuerUrl = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${this.userPool.userPoolId}`;
    this.signInUrl = this.domain.baseUrl();
  }

  /** The stack outputs operators and the dashboard's build read (lib/stack-names.ts STACK_OUTPUTS). */
  addOutputs(names: { userPoolId: string; clientId: string; issuer: string; signInUrl: string }): void {
    const scope = Stack.of(this);
    new CfnOutput(scope, names.userPoolId, { description: 'The developer dashboard user pool', value: this.userPool.userPoolId });
    new CfnOutput(scope, names.clientId, { description: "The developer dashboard's app client (ID token audience)", value: this.client.userPoolClientId });
    new CfnOutput(scope, names.issuer, { description: 'The OIDC issuer of dashboard ID tokens', value: this.issuerUrl });
    new CfnOutput(scope, names.signInUrl, { description: "The dashboard's managed login", value: this.signInUrl });
  }
}
