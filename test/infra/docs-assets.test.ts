import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { PriceClass } from 'aws-cdk-lib/aws-cloudfront';
import type { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { describe, expect, it } from 'vitest';
import { DOCS_ASSET_CACHE_CONTROL, DOCS_ASSET_KEY, docsAssetBody, SCALAR_VERSION } from '../../lambdas/http/docs-page';
import { stageConfig } from '../../lib/config';
import { readScalarStandalone } from '../../lib/scalar-bundle';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { type CfnResource, resourcesOfType, synthStage, wiredMethods } from './synth-stacks';

function onlyOne(resources: Record<string, CfnResource>): [string, CfnResource] {
  const entries = Object.entries(resources);
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

describe('docs page assets on CloudFront', () => {
  const { stacks, stateless } = synthStage('dev');
  const buckets = resourcesOfType(stateless, 'AWS::S3::Bucket');
  const [distributionId, distribution] = onlyOne(resourcesOfType(stateless, 'AWS::CloudFront::Distribution'));
  const config = distribution.Properties!.DistributionConfig as Record<string, any>;
  const [assetsBucketId] = Object.entries(buckets).find(([id]) => id.startsWith('DocsAssetsBucket'))!;
  const [logBucketId] = Object.entries(buckets).find(([id]) => id.startsWith('DocsAssetsLogs'))!;

  it('keeps the file in a private, encrypted, SSL-only bucket that logs its access', () => {
    for (const [id, bucket] of Object.entries(buckets)) {
      expect(bucket.Properties?.PublicAccessBlockConfiguration, id).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties?.BucketEncryption, id).toEqual({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      });
    }
    expect(buckets[assetsBucketId]!.Properties?.LoggingConfiguration).toEqual({ DestinationBucketName: { Ref: logBucketId }, LogFilePrefix: 's3/' });
    for (const bucketId of [assetsBucketId, logBucketId]) {
      stateless.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  it('lets only this distribution read it, through Origin Access Control (no identity, no public policy)', () => {
    const [oacId, oac] = onlyOne(resourcesOfType(stateless, 'AWS::CloudFront::OriginAccessControl'));
    expect(oac.Properties?.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(config.Origins).toEqual([
      expect.objectContaining({
        DomainName: { 'Fn::GetAtt': [assetsBucketId, 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
        S3OriginConfig: { OriginAccessIdentity: '' },
      }),
    ]);
    stateless.resourceCountIs('AWS::CloudFront::CloudFrontOriginAccessIdentity', 0);
    const policy = Object.values(resourcesOfType(stateless, 'AWS::S3::BucketPolicy')).find(
      (p) => (p.Properties?.Bucket as { Ref?: string }).Ref === assetsBucketId,
    )!;
    const allows = (policy.Properties!.PolicyDocument as { Statement: Record<string, any>[] }).Statement.filter((s) => s.Effect === 'Allow');
    const cloudFront = allows.filter((s) => s.Principal?.Service === 'cloudfront.amazonaws.com');
    expect(cloudFront).toHaveLength(1);
    expect(cloudFront[0]!.Action).toBe('s3:GetObject');
    expect(JSON.stringify(cloudFront[0]!.Condition)).toContain(distributionId);
    for (const statement of allows) expect(statement.Principal, JSON.stringify(statement)).not.toBe('*');
  });

  it('serves over HTTPS only, GET and HEAD, compressed and cached, from the cheapest price class, logging to the log bucket', () => {
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD'],
      Compress: true,
      CachePolicyId: '658327ea-f89d-4fab-a63d-7e88639e58f6', // Managed-CachingOptimized
    });
    expect(config.PriceClass).toBe('PriceClass_100');
    expect(config.Logging).toEqual({ Bucket: { 'Fn::GetAtt': [logBucketId, 'RegionalDomainName'] }, Prefix: 'cloudfront/' });
  });

  it('takes the price class from the stage config, as cdk.json names it', () => {
    expect(stageConfig('prod').docs.priceClass).toBe(PriceClass.PRICE_CLASS_100);
    const overrides = stageOverridesFromContext({ prod: { docs: { priceClass: 'PriceClass_All' } } }, 'prod');
    expect(stageConfig('prod', overrides).docs.priceClass).toBe(PriceClass.PRICE_CLASS_ALL);
    expect(() => stageOverridesFromContext({ prod: { docs: { priceClass: 'PriceClass_50' } } }, 'prod')).toThrow(/stages\.prod\.docs\.priceClass/);
    const { stateless: wide } = synthStage('prod', overrides);
    const [, other] = onlyOne(resourcesOfType(wide, 'AWS::CloudFront::Distribution'));
    expect((other.Properties!.DistributionConfig as Record<string, unknown>).PriceClass).toBe('PriceClass_All');
  });

  it("answers with CORS for the API's own origin, nosniff and a year of immutable caching", () => {
    const [headersId, headers] = onlyOne(resourcesOfType(stateless, 'AWS::CloudFront::ResponseHeadersPolicy'));
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: headersId });
    const policy = headers.Properties!.ResponseHeadersPolicyConfig as Record<string, any>;
    const restApiId = Object.keys(resourcesOfType(stateless, 'AWS::ApiGateway::RestApi'))[0]!;
    expect(policy.CorsConfig.AccessControlAllowOrigins.Items).toEqual([
      { 'Fn::Join': ['', ['https://', { Ref: restApiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
    ]);
    expect(policy.CorsConfig).toMatchObject({ AccessControlAllowCredentials: false, AccessControlAllowMethods: { Items: ['GET', 'HEAD'] } });
    expect(policy.SecurityHeadersConfig.ContentTypeOptions).toEqual({ Override: true });
    expect(policy.CustomHeadersConfig.Items).toEqual([{ Header: 'Cache-Control', Value: 'public, max-age=31536000, immutable', Override: true }]);
  });

  it('uploads the bundle at deploy time under a key naming its version, keeping older versions', () => {
    expect(DOCS_ASSET_KEY).toBe(`scalar/${SCALAR_VERSION}/standalone.js`);
    const [, upload] = onlyOne(
      Object.fromEntries(Object.entries(resourcesOfType(stateless, 'Custom::CDKBucketDeployment')).filter(([id]) => id.startsWith('DocsAssets'))),
    );
    expect(upload.Properties).toMatchObject({
      DestinationBucketName: { Ref: assetsBucketId },
      Prune: false,
      SystemMetadata: { 'cache-control': DOCS_ASSET_CACHE_CONTROL, 'content-type': 'text/javascript; charset=utf-8' },
    });
    // The staged asset holds exactly the body the local server answers with, at that key.
    const files = stacks.stateless.node.findAll().find((c) => c.node.path.endsWith('/DocsAssets/Files')) as Asset;
    const staged = join(Stage.of(stacks.stateless)!.outdir, files.assetPath, DOCS_ASSET_KEY);
    expect(existsSync(staged)).toBe(true);
    expect(readFileSync(staged, 'utf8')).toBe(docsAssetBody(readScalarStandalone()));
    expect(JSON.stringify(upload.Properties?.SourceObjectKeys)).toContain(files.s3ObjectKey);
  });

  it('gives the upload function only the one asset to read, the bucket to list and the one object to write', () => {
    const [roleId] = Object.entries(resourcesOfType(stateless, 'AWS::IAM::Role')).find(([id]) => id.startsWith('DocsAssetsUploadRole'))!;
    const uploader = Object.values(resourcesOfType(stateless, 'AWS::Lambda::Function')).find(
      (fn) => JSON.stringify(fn.Properties?.Role) === JSON.stringify({ 'Fn::GetAtt': [roleId, 'Arn'] }),
    );
    expect(uploader?.Properties?.Handler).toBe('index.handler');
    const statements = Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap((p) => (p.Properties!.PolicyDocument as { Statement: Record<string, any>[] }).Statement);
    expect(statements.map((s) => [s.Action].flat().join(',')).sort()).toEqual([
      'logs:CreateLogStream,logs:PutLogEvents',
      's3:GetObject',
      's3:ListBucket',
      's3:PutObject',
    ]);
    const put = statements.find((s) => s.Action === 's3:PutObject')!;
    expect(put.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [assetsBucketId, 'Arn'] }, `/${DOCS_ASSET_KEY}`]] });
    for (const statement of statements) expect(JSON.stringify(statement), 'no wildcard').not.toContain('*');
    stateless.hasResourceProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
  });

  it("gives the docs page function the distribution's URL and the file's integrity, and no other function", () => {
    const withBase = Object.entries(resourcesOfType(stateless, 'AWS::Lambda::Function')).filter(
      ([, fn]) => (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.DOCS_ASSET_BASE_URL !== undefined,
    );
    expect(withBase).toHaveLength(1);
    const [, docsPage] = withBase[0]!;
    expect(String(docsPage.Properties?.Description)).toBe('GET /v1/docs (lambdas/handlers/docs-page.ts)');
    const variables = (docsPage.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.DOCS_ASSET_BASE_URL).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]],
    });
    // The page names the uploaded file by its hash (Subresource Integrity).
    expect(variables.DOCS_ASSET_INTEGRITY).toBe(`sha384-${createHash('sha384').update(docsAssetBody(readScalarStandalone())).digest('base64')}`);
  });

  it('leaves no API route or function for the script: GET /docs is the only docs route', () => {
    const docsRoutes = wiredMethods(stateless)
      .map((method) => `${method.httpMethod} ${method.path}`)
      .filter((route) => route.includes('/docs'));
    expect(docsRoutes).toEqual(['GET /v1/docs']);
    const pathParts = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::Resource')).map((r) => r.Properties?.PathPart);
    expect(pathParts).not.toContain('scalar.js');
    const descriptions = Object.values(resourcesOfType(stateless, 'AWS::Lambda::Function')).map((fn) => String(fn.Properties?.Description));
    expect(descriptions.filter((d) => d.includes('scalar') || d.includes('docs-asset'))).toEqual([]);
  });

  it('destroys its buckets with a throwaway stage and keeps them with a durable one', () => {
    for (const id of [assetsBucketId, logBucketId]) expect(buckets[id]!.DeletionPolicy, id).toBe('Delete');
    const emptied = Object.values(stateless.findResources('Custom::S3AutoDeleteObjects')).map((resource) => JSON.stringify(resource.Properties?.BucketName));
    for (const id of [assetsBucketId, logBucketId]) expect(emptied).toContain(JSON.stringify({ Ref: id }));
    const { stateless: prod } = synthStage('prod');
    const prodBuckets = Object.entries(resourcesOfType(prod, 'AWS::S3::Bucket')).filter(([id]) => id.startsWith('DocsAssets'));
    expect(prodBuckets).toHaveLength(2);
    for (const [id, bucket] of prodBuckets) expect(bucket.DeletionPolicy, id).toBe('Retain');
    prod.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
  });
});
