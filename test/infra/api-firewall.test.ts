import { randomBytes } from 'node:crypto';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../lambdas/core/auth/api-keys';
import { DEFAULT_TIER_QUOTAS } from '../../lambdas/core/auth/tier-quotas';
import { AUTHORIZATION_SHAPE } from '../../lib/constructs/api-firewall';
import { defaultRequestsPerKeyPer5Min, edgeProtectionSettingsOf } from '../../lib/edge-protection-settings';
import { resourcesOfType, synthStage } from './synth-stacks';

interface Rule {
  Name: string;
  Priority: number;
  Action?: Record<string, unknown>;
  OverrideAction?: Record<string, unknown>;
  Statement: Record<string, any>;
}

function rulesOf(stage = 'dev', overrides?: Parameters<typeof synthStage>[1]): Rule[] {
  const { stateless } = synthStage(stage, overrides);
  const acls = Object.values(resourcesOfType(stateless, 'AWS::WAFv2::WebACL'));
  expect(acls).toHaveLength(1);
  return acls[0]!.Properties!.Rules as Rule[];
}

function ruleNamed(rules: Rule[], name: string): Rule {
  const rule = rules.find((r) => r.Name === name);
  if (!rule) throw new Error(`no rule ${name}`);
  return rule;
}

const EXPOSED = { Name: 'Access-Control-Expose-Headers', Value: expect.stringContaining('X-Request-Id') };
const ANY_ORIGIN_HEADERS = [{ Name: 'Access-Control-Allow-Origin', Value: '*' }, EXPOSED];
const RATE_LIMITED_HEADERS = [...ANY_ORIGIN_HEADERS, { Name: 'Retry-After', Value: '60' }];

describe('API firewall', () => {
  const { stateless } = synthStage('dev');
  const rules = rulesOf();

  it('is a regional web ACL associated with the API stage', () => {
    stateless.hasResourceProperties('AWS::WAFv2::WebACL', { Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    stateless.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      ResourceArn: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([Match.stringLikeRegexp('/stages/')])]) }),
      WebACLArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('FirewallWebAcl'), 'Arn'] },
    });
    const association = Object.values(resourcesOfType(stateless, 'AWS::WAFv2::WebACLAssociation'))[0]!;
    expect(JSON.stringify(association.Properties!.ResourceArn)).toMatch(/ApiRestApiDeploymentStagefunctions/);
  });

  it('runs the three AWS managed rule groups, counting only the rules that would break legitimate calls', () => {
    const groups = rules.filter((r) => r.Statement.ManagedRuleGroupStatement);
    expect(groups.map((r) => [r.Priority, r.Statement.ManagedRuleGroupStatement.Name])).toEqual([
      [0, 'AWSManagedRulesAmazonIpReputationList'],
      [4, 'AWSManagedRulesCommonRuleSet'],
      [6, 'AWSManagedRulesKnownBadInputsRuleSet'],
    ]);
    for (const group of groups) expect(group.OverrideAction).toEqual({ None: {} });
    expect(ruleNamed(rules, 'AWSManagedRulesCommonRuleSet').Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
      { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
    ]);
  });

  it('refuses a present Authorization header without the shape of a key with 401, before the rate rules', () => {
    const rule = ruleNamed(rules, 'MalformedAuthorization');
    expect(rule.Priority).toBe(1);
    expect(rule.Action).toEqual({
      Block: { CustomResponse: { ResponseCode: 401, CustomResponseBodyKey: 'unauthorized', ResponseHeaders: ANY_ORIGIN_HEADERS } },
    });
    const [present, notShape] = rule.Statement.AndStatement.Statements;
    expect(present.SizeConstraintStatement).toMatchObject({ FieldToMatch: { SingleHeader: { Name: 'authorization' } }, ComparisonOperator: 'GE', Size: 0 });
    expect(notShape.NotStatement.Statement.RegexMatchStatement).toMatchObject({
      FieldToMatch: { SingleHeader: { Name: 'authorization' } },
      RegexString: AUTHORIZATION_SHAPE,
      TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
    });
  });

  it('has a shape that accepts real keys in any Bearer case and refuses made-up values', () => {
    const shape = new RegExp(AUTHORIZATION_SHAPE);
    const key = generateApiKey(randomBytes);
    for (const ok of [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`]) expect(shape.test(ok.toLowerCase())).toBe(true);
    const junk = ['Bearer abc', `Basic ${key}`, `Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`, `Bearer gcf_live_${'!'.repeat(32)}`, key, `Bearer  ${key}`];
    for (const bad of junk) expect(shape.test(bad.toLowerCase())).toBe(false);
  });

  it("answers its own blocks with the API's CORS headers, naming the first listed origin as the gateway does", () => {
    const listed = rulesOf('dev', { api: { corsOrigins: ['https://app.example.org', 'https://admin.example.org'] } });
    expect(ruleNamed(listed, 'OversizeBody').Action).toEqual({
      Block: {
        CustomResponse: {
          ResponseCode: 413,
          CustomResponseBodyKey: 'tooLarge',
          ResponseHeaders: [{ Name: 'Access-Control-Allow-Origin', Value: 'https://app.example.org' }, EXPOSED, { Name: 'Vary', Value: 'Origin' }],
        },
      },
    });
  });

  it('rate-limits per IP and per API key with the limits of the stage config', () => {
    const perIp = ruleNamed(rules, 'RatePerIp');
    expect(perIp.Priority).toBe(2);
    expect(perIp.Action).toEqual({
      Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rateLimited', ResponseHeaders: RATE_LIMITED_HEADERS } },
    });
    expect(perIp.Statement.RateBasedStatement).toEqual({ Limit: 6_000, EvaluationWindowSec: 300, AggregateKeyType: 'IP' });
    const perKey = ruleNamed(rules, 'RatePerApiKey');
    expect(perKey.Priority).toBe(3);
    expect(perKey.Action).toEqual({
      Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'rateLimited', ResponseHeaders: RATE_LIMITED_HEADERS } },
    });
    expect(perKey.Statement.RateBasedStatement).toEqual({
      Limit: 15_000,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [{ Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
    });
    const tuned = rulesOf('dev', { edge: { requestsPerIpPer5Min: 1_200, requestsPerKeyPer5Min: 900 } });
    expect(ruleNamed(tuned, 'RatePerIp').Statement.RateBasedStatement.Limit).toBe(1_200);
    expect(ruleNamed(tuned, 'RatePerApiKey').Statement.RateBasedStatement.Limit).toBe(900);
  });

  it('derives the per-key limit from the fastest throttled tier and refuses limits WAF would not take', () => {
    expect(defaultRequestsPerKeyPer5Min(DEFAULT_TIER_QUOTAS)).toBe(50 * 300);
    const faster = { ...DEFAULT_TIER_QUOTAS, pro: { dailyQuota: 10_000, throttle: { rateLimit: 80, burstLimit: 160 } } };
    expect(defaultRequestsPerKeyPer5Min(faster)).toBe(80 * 300);
    expect(() => edgeProtectionSettingsOf(DEFAULT_TIER_QUOTAS, { requestsPerIpPer5Min: 5 })).toThrow(/requestsPerIpPer5Min must be a whole number from 10/);
    expect(() => edgeProtectionSettingsOf(DEFAULT_TIER_QUOTAS, { requestsPerKeyPer5Min: 1.5 })).toThrow(/requestsPerKeyPer5Min/);
  });

  it('refuses bodies past the inspection window with 413 everywhere but the matching route', () => {
    const rule = ruleNamed(rules, 'OversizeBody');
    expect(rule.Priority).toBe(5);
    expect(rule.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'tooLarge', ResponseHeaders: ANY_ORIGIN_HEADERS } } });
    const [size, exceptMatching] = rule.Statement.AndStatement.Statements;
    expect(size.SizeConstraintStatement).toMatchObject({ FieldToMatch: { Body: { OversizeHandling: 'MATCH' } }, ComparisonOperator: 'GT', Size: 8_192 });
    expect(exceptMatching.NotStatement.Statement.ByteMatchStatement).toMatchObject({
      FieldToMatch: { UriPath: {} },
      PositionalConstraint: 'ENDS_WITH',
      SearchString: '/v1/match-grants-api',
    });
  });

  it('answers blocks with the service error body and samples every rule', () => {
    const acl = Object.values(resourcesOfType(stateless, 'AWS::WAFv2::WebACL'))[0]!.Properties!;
    const bodies = acl.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>;
    for (const key of ['unauthorized', 'rateLimited', 'tooLarge']) {
      expect(bodies[key]!.ContentType).toBe('APPLICATION_JSON');
      expect(JSON.parse(bodies[key]!.Content).error.code).toMatch(/^[A-Z_]+$/);
    }
    for (const rule of rules as unknown as { VisibilityConfig: Record<string, unknown> }[]) {
      expect(rule.VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true });
    }
  });

  it('logs blocks and counts to an aws-waf-logs- group with the Authorization header redacted', () => {
    stateless.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: 'aws-waf-logs-gcf-data-service-dev', RetentionInDays: 7 });
    stateless.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      ResourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('FirewallWebAcl'), 'Arn'] },
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
      LoggingFilter: { DefaultBehavior: 'DROP', Filters: [Match.objectLike({ Behavior: 'KEEP', Requirement: 'MEETS_ANY' })] },
      LogDestinationConfigs: [Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([':log-group:'])]) })],
    });
  });
});
