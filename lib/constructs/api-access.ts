import { join } from 'node:path';
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { ApiKey, AuthorizationType, IdentitySource, type MethodOptions, RequestAuthorizer, type RestApi, type UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_ENV } from '../../lambdas/composition/function-env';
import type { TierQuotas } from '../../lambdas/core/auth/tier-quotas';
import { TIER_NAMES, type TierName } from '../../lambdas/core/auth/tiers';
import { ServiceFunction } from './service-function';

export interface ApiAccessProps {
  readonly restApi: RestApi;
  readonly table: ITable;
  readonly projectRoot: string;
  readonly serviceName: string;
  readonly memorySizeMb: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Each tier's daily quota and throttling (the stage's config); the routes count the same quotas (TIER_QUOTAS). */
  readonly tierQuotas: TierQuotas;
  /** How long API Gateway caches a decision per Authorization header; a revocation takes at most this long. @default 60 s */
  readonly authorizerCacheTtl?: Duration;
}

/**
 * Who may call the API: a Lambda REQUEST authorizer on the Authorization header (the same
 * `authenticate` as locally), and one usage plan per tier holding one API key per tier: the
 * authorizer names the caller's tier key (usageIdentifierKey), so usage is metered per tier.
 * The plans carry no quota or throttle: every customer of a tier shares its key, so a tier's
 * per-customer numbers there would cap the whole tier. The exact per-customer daily quota is the
 * routes' counter, the per-customer rate the WAF's rule per key (docs/deploy.md).
 */
export class ApiAccess extends Construct {
  readonly authorizerFunction: ServiceFunction;
  readonly authorizer: RequestAuthorizer;
  readonly usagePlans: Readonly<Record<TierName, UsagePlan>>;
  /** One API Gateway key per tier, each in its tier's plan; its value never leaves API Gateway and the authorizer. */
  readonly tierKeys: Readonly<Record<TierName, ApiKey>>;
  /** For routes that need a key: the authorizer, and the usage plan's key. */
  readonly protectedMethodOptions: MethodOptions;
  /** For public routes. */
  readonly publicMethodOptions: MethodOptions = { authorizationType: AuthorizationType.NONE, apiKeyRequired: false };

  constructor(scope: Construct, id: string, props: ApiAccessProps) {
    super(scope, id);
    this.authorizerFunction = new ServiceFunction(this, 'AuthorizerFunction', {
      entry: join(props.projectRoot, 'lambdas/handlers/authorize-request.ts'),
      description: 'API key authorizer (lambdas/handlers/authorize-request.ts)',
      serviceName: props.serviceName,
      memorySizeMb: props.memorySizeMb,
      timeout: Duration.seconds(10),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      projectRoot: props.projectRoot,
    }).bindKeyReader(props.table);

    this.authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: this.authorizerFunction.lambdaFunction,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: props.authorizerCacheTtl ?? Duration.seconds(60),
    });
    this.protectedMethodOptions = { authorizer: this.authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true };

    const plans = {} as Record<TierName, UsagePlan>;
    for (const tier of TIER_NAMES) {
      const policy = props.tierQuotas[tier];
      plans[tier] = props.restApi.addUsagePlan(`UsagePlan-${tier}`, {
        name: `${props.restApi.restApiName}-${tier}`,
        description: `${tier} tier: ${policy.dailyQuota === null ? 'unlimited' : `${policy.dailyQuota} requests a day`} per key, counted by the routes`,
        apiStages: [{ api: props.restApi, stage: props.restApi.deploymentStage }],
      });
    }
    this.usagePlans = plans;

    const keys = {} as Record<TierName, ApiKey>;
    for (const tier of TIER_NAMES) {
      keys[tier] = new ApiKey(this, `TierKey-${tier}`, {
        apiKeyName: `${props.restApi.restApiName}-${tier}`,
        description: `The ${tier} tier's key, shared by its customers (the authorizer's usageIdentifierKey)`,
        enabled: true,
      });
      plans[tier].addApiKey(keys[tier]);
    }
    this.tierKeys = keys;

    // Only the ids travel in the environment; the authorizer reads the values once per cold start.
    const ids = Object.fromEntries(TIER_NAMES.map((tier) => [tier, keys[tier].keyId]));
    this.authorizerFunction.lambdaFunction.addEnvironment(FUNCTION_ENV.tierApiKeyIds, Stack.of(this).toJsonString(ids));
    this.authorizerFunction.lambdaFunction.addToRolePolicy(
      new PolicyStatement({ actions: ['apigateway:GET'], resources: TIER_NAMES.map((tier) => keys[tier].keyArn) }),
    );
  }
}
