import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { API_KEY_PREFIX } from '../../lambdas/core/auth/api-keys';
import type { CorsOrigins } from '../../lambdas/http/cors';
import { type EdgeProtectionSettings, RATE_WINDOW_SECONDS } from '../edge-protection-settings';
import { edgeCorsHeaders } from './api';

export interface ApiFirewallProps {
  /** The ARN of the API Gateway stage the web ACL guards. */
  readonly stageArn: string;
  /** Prefix of the web ACL's name and metrics. */
  readonly namePrefix: string;
  readonly limits: EdgeProtectionSettings;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** The API's CORS origins (lib/config.ts `api.corsOrigins`): WAF's own answers name the first, as the gateway's do. */
  readonly corsOrigins: CorsOrigins;
}

/** What the authorizer accepts (lambdas/core/auth/api-keys.ts), lower-cased: `Bearer` may come in any case. */
export const AUTHORIZATION_SHAPE = `^bearer ${API_KEY_PREFIX}[0-9a-z]{32}$`;
/** The one route whose body may pass WAF's inspection window (8 KB on API Gateway): a grant-seeker's profile. */
export const LARGE_BODY_PATH_SUFFIX = '/v1/match-grants-api';
const BODY_INSPECTION_LIMIT_BYTES = 8_192;

const AUTHORIZATION = { singleHeader: { Name: 'authorization' } };

function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true };
}

/** Seconds a rate-limited client is told to wait: WAF re-evaluates rate rules about once a minute. */
export const RATE_LIMITED_RETRY_AFTER_SECONDS = 60;

/**
 * A block with the service's error body and the headers the gateway's own errors carry, so
 * clients (browser apps included: CORS) read WAF's refusals like the API's.
 */
function blockWith(status: number, bodyKey: string, corsOrigins: CorsOrigins): CfnWebACL.RuleActionProperty {
  const headers = [
    ...Object.entries(edgeCorsHeaders(corsOrigins)).map(([name, value]) => ({ name, value })),
    ...(status === 429 ? [{ name: 'Retry-After', value: String(RATE_LIMITED_RETRY_AFTER_SECONDS) }] : []),
  ];
  return { block: { customResponse: { responseCode: status, customResponseBodyKey: bodyKey, responseHeaders: headers } } };
}

function errorBody(code: string, message: string): CfnWebACL.CustomResponseBodyProperty {
  return { contentType: 'APPLICATION_JSON', content: JSON.stringify({ error: { code, message } }) };
}

function managedRuleGroup(priority: number, name: string, countInstead: readonly string[] = []): CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: {
        vendorName: 'AWS',
        name,
        ruleActionOverrides: countInstead.map((rule) => ({ name: rule, actionToUse: { count: {} } })),
      },
    },
    visibilityConfig: visibility(name),
  };
}

/**
 * The API's regional web ACL: AWS managed rules, per-IP and per-key rate limits, and a shape check
 * that refuses made-up Authorization values before they cost an authorizer call.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    const { limits } = props;

    const rules: CfnWebACL.RuleProperty[] = [
      managedRuleGroup(0, 'AWSManagedRulesAmazonIpReputationList'),
      {
        // Present but not a key's shape: refused here (401, as the authorizer would) instead of
        // missing the authorizer cache. No header at all still reaches the public routes.
        name: 'MalformedAuthorization',
        priority: 1,
        action: blockWith(401, 'unauthorized', props.corsOrigins),
        statement: {
          andStatement: {
            statements: [
              {
                sizeConstraintStatement: {
                  fieldToMatch: AUTHORIZATION,
                  comparisonOperator: 'GE',
                  size: 0,
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
              {
                notStatement: {
                  statement: {
                    regexMatchStatement: {
                      fieldToMatch: AUTHORIZATION,
                      regexString: AUTHORIZATION_SHAPE,
                      textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
                    },
                  },
                },
              },
            ],
          },
        },
        visibilityConfig: visibility('MalformedAuthorization'),
      },
      {
        name: 'RatePerIp',
        priority: 2,
        action: blockWith(429, 'rateLimited', props.corsOrigins),
        statement: { rateBasedStatement: { limit: limits.requestsPerIpPer5Min, evaluationWindowSec: RATE_WINDOW_SECONDS, aggregateKeyType: 'IP' } },
        visibilityConfig: visibility('RatePerIp'),
      },
      {
        // One count per key (case kept: keys are case-sensitive); requests without the header are not counted.
        name: 'RatePerApiKey',
        priority: 3,
        action: blockWith(429, 'rateLimited', props.corsOrigins),
        statement: {
          rateBasedStatement: {
            limit: limits.requestsPerKeyPer5Min,
            evaluationWindowSec: RATE_WINDOW_SECONDS,
            aggregateKeyType: 'CUSTOM_KEYS',
            customKeys: [{ header: { name: 'authorization', textTransformations: [{ priority: 0, type: 'NONE' }] } }],
          },
        },
        visibilityConfig: visibility('RatePerApiKey'),
      },
      // SizeRestrictions_BODY counts only: the next rule applies it everywhere but the matching route.
      // NoUserAgent_HEADER counts only: scripts and server-side clients often send no User-Agent.
      managedRuleGroup(4, 'AWSManagedRulesCommonRuleSet', ['SizeRestrictions_BODY', 'NoUserAgent_HEADER']),
      {
        name: 'OversizeBody',
        priority: 5,
        action: blockWith(413, 'tooLarge', props.corsOrigins),
        statement: {
          andStatement: {
            statements: [
              {
                sizeConstraintStatement: {
                  fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
                  comparisonOperator: 'GT',
                  size: BODY_INSPECTION_LIMIT_BYTES,
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
              {
                notStatement: {
                  statement: {
                    byteMatchStatement: {
                      fieldToMatch: { uriPath: {} },
                      positionalConstraint: 'ENDS_WITH',
                      searchString: LARGE_BODY_PATH_SUFFIX,
                      textTransformations: [{ priority: 0, type: 'NONE' }],
                    },
                  },
                },
              },
            ],
          },
        },
        visibilityConfig: visibility('OversizeBody'),
      },
      managedRuleGroup(6, 'AWSManagedRulesKnownBadInputsRuleSet'),
    ];

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${props.namePrefix}-api`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      rules,
      customResponseBodies: {
        unauthorized: errorBody('UNAUTHORIZED', 'Malformed Authorization header: send Authorization: Bearer <API key>'),
        rateLimited: errorBody('RATE_LIMITED', 'Too many requests: slow down and retry after a minute'),
        tooLarge: errorBody('PAYLOAD_TOO_LARGE', `Request body over ${BODY_INSPECTION_LIMIT_BYTES} bytes`),
      },
      visibilityConfig: visibility(`${props.namePrefix}-api`),
    });

    new CfnWebACLAssociation(this, 'StageAssociation', { resourceArn: props.stageArn, webAclArn: this.webAcl.attrArn });

    // WAF only writes to log groups named aws-waf-logs-*; API keys never reach the log.
    this.logGroup = new LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${props.namePrefix}`,
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // The group's ARN without the trailing `:*` that logGroupArn carries.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: this.logGroup.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
      // Blocks and counts only: allowed requests are already in the API's access log.
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          { Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }] },
        ],
      },
    });
  }
}
