import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import { describe, expect, it } from 'vitest';
import { stageConfig } from '../../lib/config';
import { DashboardIdentity } from '../../lib/constructs/dashboard-identity';
import { DASHBOARD_CONFIG_KEY, dashboardContentSecurityPolicy } from '../../lib/constructs/dashboard-site';
import { MAX_DASHBOARD_FILES, siteObjectKeys } from '../../lib/constructs/dashboard-upload';
import { type DashboardSettings, dashboardSettingsOf } from '../../lib/dashboard-settings';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { type CfnResource, DASHBOARD_SITE_FIXTURE, resourcesOfType, statefulOutputReference, synthStage, wiredMethods } from './synth-stacks';

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
  const { stateful, stateless } = synthStage('prod');
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
    stateless.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    stateless.hasResourceProperties('AWS::ApiGateway::Authorizer', { Type: 'REQUEST' });
  });
});

describe('dashboard site (S3 and CloudFront)', () => {
  const { stateful } = synthStage('dev');
  const buckets = resourcesOfType(stateful, 'AWS::S3::Bucket');
  const [siteBucketId] = Object.keys(buckets).filter((id) => id.startsWith('DashboardSiteBucket'));
  const [logBucketId] = Object.keys(buckets).filter((id) => id.startsWith('DashboardSiteLogs'));
  const [distributionId, distribution] = Object.entries(resourcesOfType(stateful, 'AWS::CloudFront::Distribution')).find(([id]) =>
    id.startsWith('DashboardSite'),
  )!;
  const config = distribution.Properties!.DistributionConfig as Json;

  it('keeps the files in a private, encrypted, TLS-only bucket that only this distribution reads, through OAC', () => {
    expect(buckets[siteBucketId!]!.Properties).toMatchObject({
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      LoggingConfiguration: { DestinationBucketName: { Ref: logBucketId }, LogFilePrefix: 's3/' },
    });
    const policy = Object.values(resourcesOfType(stateful, 'AWS::S3::BucketPolicy')).find((p) => (p.Properties?.Bucket as Json).Ref === siteBucketId)!;
    const statements = (policy.Properties!.PolicyDocument as { Statement: Json[] }).Statement;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    const allows = statements.filter((s) => s.Effect === 'Allow' && s.Principal?.Service === 'cloudfront.amazonaws.com');
    expect(allows.map((s) => s.Action)).toEqual(['s3:GetObject']);
    expect(JSON.stringify(allows[0]!.Condition)).toContain(distributionId);
    const [oacId] = Object.keys(resourcesOfType(stateful, 'AWS::CloudFront::OriginAccessControl')).filter((id) => id.startsWith('DashboardSite'));
    expect(config.Origins).toEqual([expect.objectContaining({ OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] } })]);
  });

  it('answers unknown paths with index.html (client-side routing), over HTTPS only, logging to its log bucket', () => {
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.CustomErrorResponses).toEqual([
      { ErrorCode: 403, ResponseCode: 200, ResponsePagePath: '/index.html', ErrorCachingMinTTL: 0 },
      { ErrorCode: 404, ResponseCode: 200, ResponsePagePath: '/index.html', ErrorCachingMinTTL: 0 },
    ]);
    expect(config.DefaultCacheBehavior).toMatchObject({ ViewerProtocolPolicy: 'https-only', AllowedMethods: ['GET', 'HEAD'] });
    expect(config.Logging).toEqual({ Bucket: { 'Fn::GetAtt': [logBucketId, 'RegionalDomainName'] }, Prefix: 'cloudfront/' });
    expect(config.PriceClass).toBe('PriceClass_100');
  });

  it('sends a strict CSP reaching only the API, the issuer and the managed login, with HSTS, no framing and no referrer', () => {
    const headersId = (config.DefaultCacheBehavior as Json).ResponseHeadersPolicyId.Ref;
    const headers = (resourcesOfType(stateful, 'AWS::CloudFront::ResponseHeadersPolicy')[headersId]!.Properties!.ResponseHeadersPolicyConfig as Json)
      .SecurityHeadersConfig;
    const csp = headers.ContentSecurityPolicy.ContentSecurityPolicy;
    const text = (csp['Fn::Join'][1] as unknown[]).map((part) => (typeof part === 'string' ? part : `<${(part as Json).Ref}>`)).join('');
    expect(text).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self' https://*.execute-api.<AWS::Region>.<AWS::URLSuffix> https://cognito-idp.<AWS::Region>.<AWS::URLSuffix> https://gcf-data-service-dev.auth.<AWS::Region>.amazoncognito.com; " +
        "form-action 'self' https://gcf-data-service-dev.auth.<AWS::Region>.amazoncognito.com; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    );
    expect(headers).toMatchObject({
      StrictTransportSecurity: { AccessControlMaxAgeSec: 31536000, IncludeSubdomains: true, Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
      ContentTypeOptions: { Override: true },
    });
  });

  it("lets the app call the API's custom domain when the stage has one", () => {
    expect(dashboardContentSecurityPolicy(['https://api.example.org'], 'https://x.auth.eu-west-1.amazoncognito.com')).toContain(
      "connect-src 'self' https://api.example.org;",
    );
  });
});

describe('dashboard upload', () => {
  const { stateless } = synthStage('dev');
  const [roleId] = Object.keys(resourcesOfType(stateless, 'AWS::IAM::Role')).filter((id) => id.startsWith('DashboardUploadUploadRole'));
  const siteBucketArn = statefulOutputReference(/DashboardSiteBucket.*Arn/);

  it('writes the built files and config.json, and nothing else, keeping older files', () => {
    const statements = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap((p) => (p.Properties!.PolicyDocument as { Statement: Json[] }).Statement);
    const put = statements.find((s) => s.Action === 's3:PutObject')!;
    expect(put.Resource).toEqual(['assets/app.js', 'config.json', 'index.html'].map((key) => ({ 'Fn::Join': ['', [siteBucketArn, `/${key}`]] })));
    expect(statements.map((s) => [s.Action].flat().join(',')).sort()).toEqual([
      'logs:CreateLogStream,logs:PutLogEvents',
      's3:GetObject',
      's3:ListBucket',
      's3:PutObject',
    ]);
    for (const statement of statements) expect(JSON.stringify(statement.Action)).not.toContain('*');
    const [, upload] = onlyOne(
      Object.fromEntries(Object.entries(resourcesOfType(stateless, 'Custom::CDKBucketDeployment')).filter(([id]) => id.startsWith('DashboardUpload'))),
    );
    expect(upload.Properties).toMatchObject({
      DestinationBucketName: statefulOutputReference(/DashboardSiteBucket/),
      Prune: false,
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
  });

  it('writes config.json with the issuer, the client id, the managed login and both API bases, filled in at deploy', () => {
    const [, upload] = onlyOne(
      Object.fromEntries(Object.entries(resourcesOfType(stateless, 'Custom::CDKBucketDeployment')).filter(([id]) => id.startsWith('DashboardUpload'))),
    );
    const markers = JSON.stringify((upload.Properties!.SourceMarkers as Json[])[1]);
    for (const output of [/DashboardUserPool/, /DashboardClient/, /UserPoolDomain/]) expect(markers).toMatch(output);
    expect(markers).toContain('ApiRestApiDeploymentStagefunctions');
  });

  it('runs its own upload function, under its own role (BucketDeployment shares one per stack and size)', () => {
    const uploaders = Object.values(resourcesOfType(stateless, 'AWS::Lambda::Function')).filter((fn) =>
      JSON.stringify(fn.Properties?.Role).includes('UploadRole'),
    );
    const roles = uploaders.map((fn) => JSON.stringify(fn.Properties?.Role));
    expect(roles).toHaveLength(2);
    expect(roles).toContain(JSON.stringify({ 'Fn::GetAtt': [roleId, 'Arn'] }));
    expect(roles.filter((role) => role.includes('DocsAssetsUploadRole'))).toHaveLength(1);
  });

  it('lists the object keys of a build, leaving a stray config.json to the deploy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcf-dashboard-'));
    mkdirSync(join(dir, 'assets', 'fonts'), { recursive: true });
    for (const file of ['index.html', 'config.json', 'assets/app.js', 'assets/fonts/a.woff2']) writeFileSync(join(dir, file), 'x');
    expect(siteObjectKeys(dir)).toEqual(['assets/app.js', 'assets/fonts/a.woff2', 'index.html']);
    expect(siteObjectKeys(DASHBOARD_SITE_FIXTURE)).toEqual(['assets/app.js', 'index.html']);
    expect(DASHBOARD_CONFIG_KEY).toBe('config.json');
  });

  it('uploads nothing and warns when the dashboard is not built; refuses more files than its role can name', () => {
    const empty = mkdtempSync(join(tmpdir(), 'gcf-dashboard-'));
    const { stacks, stateless: unbuilt } = synthStage('dev', undefined, { dashboardSiteDirectory: empty });
    expect(Object.keys(resourcesOfType(unbuilt, 'Custom::CDKBucketDeployment')).filter((id) => id.startsWith('DashboardUpload'))).toEqual([]);
    Annotations.fromStack(stacks.stateless).hasWarning('/Gcf-dev-Stateless/DashboardUpload', Match.stringLikeRegexp('No index.html in .*not uploaded'));
    const many = mkdtempSync(join(tmpdir(), 'gcf-dashboard-'));
    for (let i = 0; i <= MAX_DASHBOARD_FILES; i++) writeFileSync(join(many, i === 0 ? 'index.html' : `chunk-${i}.js`), 'x');
    expect(() => synthStage('dev', undefined, { dashboardSiteDirectory: many })).toThrow(`more than the ${MAX_DASHBOARD_FILES} the upload's role can name`);
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
