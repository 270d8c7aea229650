import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import { describe, expect, it } from 'vitest';
import { stageConfig } from '../../lib/config';
import { DashboardIdentity } from '../../lib/constructs/dashboard-identity';
import { type DashboardSettings, dashboardSettingsOf } from '../../lib/dashboard-settings';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { type CfnResource, resourcesOfType, statefulOutputReference, synthStage, wiredMethods } from './synth-stacks';

type Json = Record<string, any>;

function onlyOne(resources: Record<string, CfnResource>): [string, CfnResource] {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

/** The identity construct alone in a bare stack: fast enough to try each MFA mode. */
function identityTemplate(settings: Partial<DashboardSettings>): Template {
  const stack = new Stack(new App(), 'Identity');
  new DashboardIdentity(stack, 'DashboardIdentity', {
    settings: dashboardSettingsOf('gcf-test', settings),
    dashboardUrl: 'https://d111111abcdef8.cloudfront.net',
    userPoolName: 'gcf-test-dashboard',
    userPoolLogicalId: 'DashboardUserPool',
    removalPolicy: stageConfig('prod').statefulRemovalPolicy,
    deletionProtection: true,
  });
  return Template.fromStack(stack);
}

describe('dashboard settings', () => {
  it("default to the service and stage names, optional MFA and the cheapest price class, and read cdk.json's entry", () => {
    expect(stageConfig('prod').dashboard).toEqual({
      domainPrefix: 'gcf-data-service-prod',
      extraCallbackUrls: [],
      mfa: 'optional',
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    const overrides = stageOverridesFromContext(
      { dev: { dashboard: { domainPrefix: 'acme-grants-dev', extraCallbackUrls: ['http://localhost:5173/'], mfa: 'required' } } },
      'dev',
    );
    expect(stageConfig('dev', overrides).dashboard).toMatchObject({
      domainPrefix: 'acme-grants-dev',
      extraCallbackUrls: ['http://localhost:5173/'],
      mfa: 'required',
    });
  });

  it.each([
    [{ domainPrefix: 'Acme' }, /domainPrefix must be 1-63 lower-case/],
    [{ domainPrefix: 'my-aws-dashboard' }, /contains "aws", which Cognito reserves/],
    [{ extraCallbackUrls: ['http://dashboard.example.org/'] }, /extraCallbackUrls must be https URLs/],
    [{ mfa: 'sms' as never }, /mfa must be one of optional, required, off/],
  ])('refuses %j, naming the key', (dashboard, message) => {
    expect(() => stageConfig('dev', { dashboard })).toThrow(message);
  });

  it('names the cdk.json key of an unknown or mistyped setting', () => {
    expect(() => stageOverridesFromContext({ prod: { dashboard: { domain: 'x' } } }, 'prod')).toThrow(
      'cdk.json context stages.prod.dashboard: domain is not a setting',
    );
    expect(() => stageOverridesFromContext({ prod: { dashboard: { mfa: 'always' } } }, 'prod')).toThrow(/stages\.prod\.dashboard\.mfa/);
  });
});

describe('dashboard sign-in (Cognito)', () => {
  const { stateful } = synthStage('prod');
  const pool = resourcesOfType(stateful, 'AWS::Cognito::UserPool').DashboardUserPool!;
  const [clientId, client] = onlyOne(resourcesOfType(stateful, 'AWS::Cognito::UserPoolClient'));
  const [distributionId] = onlyOne(
    Object.fromEntries(Object.entries(resourcesOfType(stateful, 'AWS::CloudFront::Distribution')).filter(([id]) => id.startsWith('DashboardSite'))),
  );
  const dashboardUrl = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']] };

  it('signs users in by verified e-mail, with a strong password, optional TOTP and recovery by e-mail, on the Essentials plan', () => {
    expect(pool.Properties).toMatchObject({
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
      UsernameConfiguration: { CaseSensitive: false },
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      MfaConfiguration: 'OPTIONAL',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
      UserPoolTier: 'ESSENTIALS',
      Policies: {
        PasswordPolicy: {
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
          TemporaryPasswordValidityDays: 3,
        },
      },
    });
    expect(pool.Properties?.UserPoolAddOns).toBeUndefined();
  });

  it.each([
    ['required', 'ON', ['SOFTWARE_TOKEN_MFA']],
    ['off', 'OFF', undefined],
  ] as const)('MFA %s in the stage settings is %s in the pool', (mfa, configuration, enabled) => {
    const [, other] = onlyOne(resourcesOfType(identityTemplate({ mfa }), 'AWS::Cognito::UserPool'));
    expect(other.Properties?.MfaConfiguration).toBe(configuration);
    expect(other.Properties?.EnabledMfas).toEqual(enabled);
  });

  it('has one public client: the code grant only (no secret, no implicit flow, no direct sign-in), openid and email, back to the dashboard', () => {
    expect(client.Properties).toMatchObject({
      UserPoolId: { Ref: 'DashboardUserPool' },
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email'],
      ExplicitAuthFlows: [],
      SupportedIdentityProviders: ['COGNITO'],
      CallbackURLs: [dashboardUrl],
      LogoutURLs: [dashboardUrl],
      PreventUserExistenceErrors: 'ENABLED',
      EnableTokenRevocation: true,
      IdTokenValidity: 60,
      AccessTokenValidity: 60,
      RefreshTokenValidity: 1440,
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
      RefreshTokenRotation: { Feature: 'ENABLED', RetryGracePeriodSeconds: 60 },
    });
  });

  it("adds the stage's extra callback URLs (a local build against the stage) to sign-in and sign-out", () => {
    const [, other] = onlyOne(resourcesOfType(identityTemplate({ extraCallbackUrls: ['http://localhost:5173/'] }), 'AWS::Cognito::UserPoolClient'));
    expect(other.Properties?.CallbackURLs).toEqual(['https://d111111abcdef8.cloudfront.net/', 'http://localhost:5173/']);
    expect(other.Properties?.LogoutURLs).toEqual(['https://d111111abcdef8.cloudfront.net/', 'http://localhost:5173/']);
  });

  it("serves the newer managed login on the stage's prefix, styled for the dashboard's client", () => {
    const [, domain] = onlyOne(resourcesOfType(stateful, 'AWS::Cognito::UserPoolDomain'));
    expect(domain.Properties).toEqual({ Domain: 'gcf-data-service-prod', UserPoolId: { Ref: 'DashboardUserPool' }, ManagedLoginVersion: 2 });
    const [, branding] = onlyOne(resourcesOfType(stateful, 'AWS::Cognito::ManagedLoginBranding'));
    expect(branding.Properties).toEqual({ UserPoolId: { Ref: 'DashboardUserPool' }, ClientId: { Ref: clientId }, UseCognitoProvidedValues: true });
  });

  it('names the pool, client, issuer, managed login and dashboard URL in outputs', () => {
    const outputs = stateful.toJSON().Outputs as Json;
    expect(outputs.DashboardUserPoolId.Value).toEqual({ Ref: 'DashboardUserPool' });
    expect(outputs.DashboardClientId.Value).toEqual({ Ref: clientId });
    expect(outputs.DashboardIssuer.Value).toEqual({
      'Fn::Join': ['', ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/', { Ref: 'DashboardUserPool' }]],
    });
    expect(JSON.stringify(outputs.DashboardSignInUrl.Value)).toContain('.auth.');
    expect(outputs.DashboardUrl.Value).toEqual(dashboardUrl);
  });

  it('adds no Cognito authorizer while there are no account routes (API Gateway refuses an unused one)', () => {
    const withoutAccountRoutes = synthStage('dev', undefined, { accountRoutes: [] }).stateless;
    withoutAccountRoutes.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    withoutAccountRoutes.hasResourceProperties('AWS::ApiGateway::Authorizer', { Type: 'REQUEST' });
  });
});

describe('account API authorizer', () => {
  // A real handler stands in for the account API's, which a later change adds to ACCOUNT_ROUTES.
  const accountRoute = { method: 'GET', path: '/account', entry: 'lambdas/handlers/check-api-logging-role.ts', bindings: [] } as const;
  const { stateless } = synthStage('dev', undefined, { accountRoutes: [accountRoute] });

  it("guards account routes with the dashboard pool's Cognito authorizer on the Authorization header, without an API key", () => {
    const [authorizerId, authorizer] = onlyOne(
      Object.fromEntries(
        Object.entries(resourcesOfType(stateless, 'AWS::ApiGateway::Authorizer')).filter(([, a]) => a.Properties?.Type === 'COGNITO_USER_POOLS'),
      ),
    );
    expect(authorizer.Properties).toMatchObject({
      IdentitySource: 'method.request.header.Authorization',
      ProviderARNs: [statefulOutputReference(/DashboardUserPool.*Arn/)],
    });
    const methods = wiredMethods(stateless).filter((method) => method.path === '/v1/account');
    expect(methods.map((method) => method.httpMethod)).toEqual(['GET']);
    stateless.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      AuthorizationType: 'COGNITO_USER_POOLS',
      AuthorizerId: { Ref: authorizerId },
      ApiKeyRequired: false,
    });
  });

  it("tells the function the tokens' issuer and audience, and watches it like every API function", () => {
    const fn = Object.values(resourcesOfType(stateless, 'AWS::Lambda::Function')).find((f) => String(f.Properties?.Description).startsWith('GET /v1/account'))!;
    const variables = (fn.Properties!.Environment as { Variables: Json }).Variables;
    expect(variables.ACCOUNT_TOKEN_ISSUER).toEqual({
      'Fn::Join': ['', ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/', statefulOutputReference(/DashboardUserPool/)]],
    });
    expect(variables.ACCOUNT_TOKEN_AUDIENCE).toEqual(statefulOutputReference(/DashboardClient/));
    const throttleAlarms = Object.values(resourcesOfType(stateless, 'AWS::CloudWatch::Alarm')).map((alarm) =>
      JSON.stringify(alarm.Properties?.AlarmDescription),
    );
    expect(throttleAlarms.some((description) => description.includes('CheckApiLoggingRole'))).toBe(true);
  });

  it('refuses an account route outside /account', () => {
    expect(() => synthStage('dev', undefined, { accountRoutes: [{ ...accountRoute, path: '/keys' }] })).toThrow(
      'Account route GET /keys must be under /account',
    );
  });
});
