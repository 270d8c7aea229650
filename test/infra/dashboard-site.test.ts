import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_CONFIG_KEY, dashboardContentSecurityPolicy } from '../../lib/constructs/dashboard-site';
import { MAX_DASHBOARD_FILES, siteObjectKeys } from '../../lib/constructs/dashboard-upload';
import { type CfnResource, DASHBOARD_SITE_FIXTURE, resourcesOfType, statefulOutputReference, synthStage } from './synth-stacks';

type Json = Record<string, any>;

function onlyOne(resources: Record<string, CfnResource>): [string, CfnResource] {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

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
