import { describe, expect, it } from 'vitest';
import { CANARY_ENV } from '../../lambdas/canary/canary-env';
import { stageConfig } from '../../lib/config';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { resourcesOfType, synthStage } from './synth-stacks';

/** Every `Fn::GetStackOutput` inside a CloudFormation value. */
function stackOutputReads(value: unknown): { StackName: string; OutputName: string }[] {
  if (Array.isArray(value)) return value.flatMap(stackOutputReads);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const own = object['Fn::GetStackOutput'] as { StackName: string; OutputName: string } | undefined;
  return [...(own ? [own] : []), ...Object.values(object).flatMap(stackOutputReads)];
}

const CUSTOM_DOMAIN = {
  domainName: 'api.grants.example.org',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b8e3c4a-1d2e-4f5a-9b6c-7d8e9f0a1b2c',
  hostedZone: { id: 'Z0123456789ABCDEFGHIJ', name: 'grants.example.org' },
};

describe('references between the stacks', () => {
  it.each(['dev', 'prod'])('%s: the stateful stack exports nothing and the stateless stack imports nothing', (stage) => {
    const { stacks, stateful, stateless } = synthStage(stage);
    const exported = Object.entries(stateful.toJSON().Outputs ?? {}).filter(([, output]) => (output as { Export?: unknown }).Export !== undefined);
    expect(exported.map(([name]) => name)).toEqual([]);
    expect(JSON.stringify(stateless.toJSON())).not.toContain('Fn::ImportValue');

    // Each value crosses as a weak reference to an output the stateful stack declares.
    const reads = stackOutputReads(stateless.toJSON().Resources);
    expect(reads.length).toBeGreaterThan(10);
    const outputs = Object.keys(stateful.toJSON().Outputs ?? {});
    for (const read of reads) {
      expect(read.StackName).toBe(`Gcf-${stage}-Stateful`);
      expect(outputs).toContain(read.OutputName);
    }
    // Deploying the stateless stack still waits for the stateful one.
    expect(stacks.stateless.dependencies).toContain(stacks.stateful);
  });

  it('reads the table stream from an output, so a new stream no longer deadlocks on an export', () => {
    const { stateless } = synthStage('prod');
    const mappings = Object.values(resourcesOfType(stateless, 'AWS::Lambda::EventSourceMapping')).filter((mapping) =>
      JSON.stringify(mapping.Properties?.EventSourceArn).includes('StreamArn'),
    );
    expect(mappings.length).toBeGreaterThanOrEqual(2); // the indexer and the webhook fan-out
    for (const mapping of mappings) {
      expect(stackOutputReads(mapping.Properties?.EventSourceArn)).toEqual([
        { StackName: 'Gcf-prod-Stateful', OutputName: expect.stringMatching(/RecordsTableStreamArn/), Region: { Ref: 'AWS::Region' } },
      ]);
    }
  });
});

describe('custom domain', () => {
  it('keeps the domain name with the data and maps the API under /functions, so the base URL keeps its path', () => {
    const { stateful, stateless } = synthStage('prod', { api: { customDomain: CUSTOM_DOMAIN } });
    const domains = resourcesOfType(stateful, 'AWS::ApiGateway::DomainName');
    expect(Object.keys(domains)).toEqual(['ApiDomainName']);
    const domain = domains.ApiDomainName!;
    expect(domain.DeletionPolicy).toBe('Retain');
    expect(domain.Properties).toMatchObject({
      DomainName: CUSTOM_DOMAIN.domainName,
      RegionalCertificateArn: CUSTOM_DOMAIN.certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    stateful.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: `${CUSTOM_DOMAIN.domainName}.`,
      Type: 'A',
      HostedZoneId: CUSTOM_DOMAIN.hostedZone.id,
      AliasTarget: {
        DNSName: { 'Fn::GetAtt': ['ApiDomainName', 'RegionalDomainName'] },
        HostedZoneId: { 'Fn::GetAtt': ['ApiDomainName', 'RegionalHostedZoneId'] },
      },
    });

    const mappings = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::BasePathMapping'));
    expect(mappings).toHaveLength(1);
    expect(JSON.stringify(mappings[0]!.Properties?.BasePath)).toMatch(/^\{"Ref":"ApiRestApiDeploymentStagefunctions[0-9A-F]+"\}$/);
    expect(stackOutputReads(mappings[0]!.Properties?.DomainName)).toEqual([
      { StackName: 'Gcf-prod-Stateful', OutputName: expect.stringMatching(/ApiDomainName/), Region: { Ref: 'AWS::Region' } },
    ]);
    // The docs page on the custom host may load its script from the docs distribution too.
    const [headers] = Object.values(resourcesOfType(stateless, 'AWS::CloudFront::ResponseHeadersPolicy'));
    const corsOrigins = (headers!.Properties?.ResponseHeadersPolicyConfig as { CorsConfig: { AccessControlAllowOrigins: { Items: unknown[] } } }).CorsConfig
      .AccessControlAllowOrigins.Items;
    expect(corsOrigins).toContain(`https://${CUSTOM_DOMAIN.domainName}`);
    expect(corsOrigins).toHaveLength(2);
    const baseUrl = stateless.findOutputs('ApiBaseUrl').ApiBaseUrl?.Value;
    expect(baseUrl).toEqual({
      'Fn::Join': ['', [`https://${CUSTOM_DOMAIN.domainName}/`, { Ref: expect.stringMatching(/^ApiRestApiDeploymentStagefunctions/) }, '/v1']],
    });
    // The canary calls what customers call.
    const [canary] = Object.values(resourcesOfType(stateless, 'AWS::Synthetics::Canary'));
    expect((canary!.Properties?.RunConfig as { EnvironmentVariables: Record<string, unknown> }).EnvironmentVariables[CANARY_ENV.apiBaseUrl]).toEqual(baseUrl);
  });

  it('without a zone, adds no record and names the target to point the DNS at', () => {
    const { stateful } = synthStage('prod', { api: { customDomain: { ...CUSTOM_DOMAIN, hostedZone: undefined } } });
    expect(resourcesOfType(stateful, 'AWS::Route53::RecordSet')).toEqual({});
    expect(stateful.findOutputs('ApiDomainTarget').ApiDomainTarget?.Value).toEqual({ 'Fn::GetAtt': ['ApiDomainName', 'RegionalDomainName'] });
  });

  it('is absent by default: the base URL is the execute-api one', () => {
    const { stateful, stateless } = synthStage('dev');
    expect(resourcesOfType(stateful, 'AWS::ApiGateway::DomainName')).toEqual({});
    expect(resourcesOfType(stateless, 'AWS::ApiGateway::BasePathMapping')).toEqual({});
    expect(JSON.stringify(stateless.findOutputs('ApiBaseUrl').ApiBaseUrl?.Value)).toContain('.execute-api.');
  });

  it.each([
    [{ ...CUSTOM_DOMAIN, domainName: 'API.Example.org' }, /domainName must be a lower-case host name/],
    [{ ...CUSTOM_DOMAIN, certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' }, /certificateArn must be an ACM certificate ARN/],
    [{ ...CUSTOM_DOMAIN, hostedZone: { id: 'Z0123456789ABCDEFGHIJ', name: 'other.example.org' } }, /is not inside the hosted zone other\.example\.org/],
    [{ ...CUSTOM_DOMAIN, hostedZone: { id: 'grants.example.org', name: 'grants.example.org' } }, /hostedZone\.id must be a Route 53 zone id/],
  ])('refuses a custom domain it cannot serve: %j', (customDomain, message) => {
    expect(() => stageConfig('prod', { api: { customDomain } })).toThrow(message);
  });

  it("reads the custom domain from cdk.json's stage context, refusing unknown keys", () => {
    expect(stageOverridesFromContext({ prod: { api: { customDomain: CUSTOM_DOMAIN } } }, 'prod').api?.customDomain).toEqual(CUSTOM_DOMAIN);
    expect(() => stageOverridesFromContext({ prod: { api: { customDomain: { ...CUSTOM_DOMAIN, basePath: 'v2' } } } }, 'prod')).toThrow(
      'cdk.json context stages.prod.api.customDomain: basePath is not a setting',
    );
  });
});
