import { join } from 'node:path';
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { ApiKeySourceType, BasePathMapping } from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { FUNCTION_ENV } from '../lambdas/composition/function-env';
import { TIER_QUOTAS_ENV } from '../lambdas/composition/tier-quotas-env';
import { DOCS_ASSET_CACHE_CONTROL, DOCS_ASSET_KEY, docsAssetBody, docsAssetIntegrityOf } from '../lambdas/http/docs-page';
import { ACCOUNT_API_PATH, ACCOUNT_ROUTES, API_ROUTES, type ApiRouteDefinition, type RouteBinding } from './api-routes';
import { checkUnreservedConcurrency, type Reservation } from './concurrency-budget';
import { type FunctionGroup, indexReplicasOf, type StageConfig } from './config';
import { AccountAccess } from './constructs/account-access';
import { ServiceApi } from './constructs/api';
import { ApiAccess } from './constructs/api-access';
import { ApiCanary } from './constructs/api-canary';
import type { ApiDomain } from './constructs/api-domain';
import { ApiFirewall } from './constructs/api-firewall';
import { ApiLoggingPrerequisite } from './constructs/api-logging-prerequisite';
import type { DashboardIdentity } from './constructs/dashboard-identity';
import type { DashboardSite } from './constructs/dashboard-site';
import { DashboardUpload } from './constructs/dashboard-upload';
import { DocsAssets } from './constructs/docs-assets';
import { RecordIndexer } from './constructs/record-indexer';
import { SearchIndexBootstrap } from './constructs/search-index-bootstrap';
import { ServiceAlarms } from './constructs/service-alarms';
import { ServiceDashboard } from './constructs/service-dashboard';
import type { ServiceFunction } from './constructs/service-function';
import { type MonitoredFunction, ServiceMetrics } from './constructs/service-metrics';
import { VectorBackfill } from './constructs/vector-backfill';
import { WebhookDelivery } from './constructs/webhook-delivery';
import type { WebhookSecretKey } from './constructs/webhook-secret-key';
import { addRouteFunctions } from './route-functions';
import { readScalarStandalone } from './scalar-bundle';
import { monitoringNameOf, STACK_OUTPUTS } from './stack-names';
import { WEBHOOK_SENDER_TIMEOUT } from './stateful-stack';

export interface StatelessStackProps extends StackProps {
  readonly config: StageConfig;
  readonly recordsTable: ITable;
  readonly searchDomain: IDomain;
  readonly indexerFailureQueue: IQueue;
  readonly webhookQueue: IQueue;
  readonly webhookDeadLetterQueue: IQueue;
  /** The list cursors' signing key (stateful: CursorKeySecret). */
  readonly cursorKeySecret: ISecret;
  /** Seals webhook signing secrets (stateful: WebhookSecrets); only the sender may open them. */
  readonly webhookSecretKey: WebhookSecretKey;
  /** The customers' host name (stateful: ApiDomain), mapped to this API; absent without `api.customDomain`. */
  readonly apiDomain?: ApiDomain;
  /** Directory holding package-lock.json; route entries are relative to it. */
  readonly projectRoot: string;
  /** @default API_ROUTES */
  readonly routes?: readonly ApiRouteDefinition[];
  /** @default ACCOUNT_ROUTES */
  readonly accountRoutes?: readonly ApiRouteDefinition[];
  /** The developer dashboard's sign-in and site (stateful). */
  readonly dashboardIdentity: DashboardIdentity;
  readonly dashboardSite: DashboardSite;
  /** The dashboard's build output. @default `<projectRoot>/dashboard/dist` */
  readonly dashboardSiteDirectory?: string;
}

/** Functions and the API: holds no data, so it can be destroyed and redeployed at will. */
export class StatelessStack extends Stack {
  readonly api: ServiceApi;
  /** The `{base_url}` customers use: on the custom domain when the stage has one. */
  readonly baseUrl: string;
  /** Keyed by the route's construct id, e.g. `GetGrant`. */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  readonly indexer: RecordIndexer;
  readonly access: ApiAccess;
  readonly firewall: ApiFirewall;
  /** The docs page's script, on CloudFront from S3. */
  readonly docsAssets: DocsAssets;
  readonly searchBootstrap: SearchIndexBootstrap;
  readonly vectorBackfill: VectorBackfill;
  /** Absent on a stage that owns the account's API Gateway logging role. */
  readonly apiLoggingRole?: ApiLoggingPrerequisite;
  readonly webhooks: WebhookDelivery;
  /** Alarms to the stage's SNS topic (e-mail from config), and the dashboard that shows what they watch. */
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  /** Searches and reads through the API as a customer, every few minutes; pages through `alarms`. */
  readonly canary: ApiCanary;
  /** The account API's Cognito authorizer; absent while there are no account routes. */
  readonly accountAccess?: AccountAccess;
  /** The dashboard's files and config.json, put into its bucket at deploy time. */
  readonly dashboardUpload: DashboardUpload;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config } = props;

    // The docs page's script: uploaded as is, and named by its hash in the page (Subresource Integrity).
    const docsAssetText = docsAssetBody(readScalarStandalone());
    const bind: Record<RouteBinding, (fn: ServiceFunction) => void> = {
      records: (fn) => fn.bindRecordReader(props.recordsTable),
      search: (fn) => fn.bindSearchDomain(props.searchDomain, config.search.vectors),
      embeddings: (fn) => fn.bindEmbeddings(config.embeddings),
      cursors: (fn) => fn.bindCursorKey(props.cursorKeySecret),
      // The quotas the route counts against are the ones its tier's usage plan has; each answer goes to the key's request log.
      usage: (fn) => {
        fn.bindUsageMeter(props.recordsTable).bindRequestLogWriter(props.recordsTable);
        fn.lambdaFunction.addEnvironment(TIER_QUOTAS_ENV, JSON.stringify(config.tierQuotas));
      },
      // The account API: its table items (least privilege) and the stage's quotas, which its plan limits and usage show.
      accounts: (fn) => {
        fn.bindAccountApi(props.recordsTable);
        fn.lambdaFunction.addEnvironment(TIER_QUOTAS_ENV, JSON.stringify(config.tierQuotas));
      },
      docsAssets: (fn) =>
        fn.lambdaFunction
          .addEnvironment(FUNCTION_ENV.docsAssetBaseUrl, this.docsAssets.baseUrl)
          .addEnvironment(FUNCTION_ENV.docsAssetIntegrity, docsAssetIntegrityOf(docsAssetText)),
    };

    this.api = new ServiceApi(this, 'Api', {
      apiName: `${config.serviceName}-${config.stage}`,
      description: `Grants, Contracts and Funders Data Service (${config.stage})`,
      accessLogRetention: config.api.accessLogRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
      manageAccountCloudWatchRole: config.api.manageAccountCloudWatchRole,
      // The authorizer names the caller's tier key (usageIdentifierKey); clients send only their Bearer key.
      apiKeySource: ApiKeySourceType.AUTHORIZER,
      corsOrigins: config.api.corsOrigins,
    });
    this.docsAssets = new DocsAssets(this, 'DocsAssets', {
      objectKey: DOCS_ASSET_KEY,
      body: docsAssetText,
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: DOCS_ASSET_CACHE_CONTROL,
      // The docs page's origins: the execute-api host and, with a custom domain, that host too.
      pageOrigins: [
        `https://${this.api.restApi.restApiId}.execute-api.${this.region}.${this.urlSuffix}`,
        ...(props.apiDomain ? [`https://${props.apiDomain.hostName}`] : []),
      ],
      priceClass: config.docs.priceClass,
      removalPolicy: config.statefulRemovalPolicy,
      logRetention: config.functions.logRetention,
    });
    if (!config.api.manageAccountCloudWatchRole) {
      // The stage enables logging, which API Gateway refuses without the account's role: check it first.
      const loggingRole = (this.apiLoggingRole = new ApiLoggingPrerequisite(this, 'ApiLoggingRole', {
        projectRoot: props.projectRoot,
        serviceName: config.serviceName,
        logRetention: config.functions.logRetention,
        logRemovalPolicy: config.statefulRemovalPolicy,
      }));
      this.api.restApi.deploymentStage.node.addDependency(loggingRole.resource);
    }

    // The domain's base path is the stage's name, so `{base_url}` keeps its `/functions/v1` on both hosts.
    const stage = this.api.restApi.deploymentStage;
    if (props.apiDomain) {
      new BasePathMapping(this, 'ApiDomainMapping', { domainName: props.apiDomain.domainName, restApi: this.api.restApi, stage, basePath: stage.stageName });
    }
    this.baseUrl = props.apiDomain ? `https://${props.apiDomain.hostName}/${stage.stageName}${this.api.versionRoot.path}` : this.api.baseUrl;

    this.dashboardUpload = new DashboardUpload(this, 'DashboardUpload', {
      bucket: props.dashboardSite.bucket,
      siteDirectory: props.dashboardSiteDirectory ?? join(props.projectRoot, 'dashboard', 'dist'),
      config: {
        issuer: props.dashboardIdentity.issuerUrl,
        clientId: props.dashboardIdentity.client.userPoolClientId,
        signInUrl: props.dashboardIdentity.signInUrl,
        apiBaseUrl: this.baseUrl,
        accountApiBaseUrl: `${this.baseUrl}${ACCOUNT_API_PATH}`,
      },
      removalPolicy: config.statefulRemovalPolicy,
      logRetention: config.functions.logRetention,
    });

    this.firewall = new ApiFirewall(this, 'Firewall', {
      stageArn: this.api.restApi.deploymentStage.stageArn,
      namePrefix: `${config.serviceName}-${config.stage}`,
      limits: config.edge,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
      corsOrigins: config.api.corsOrigins,
    });

    this.access = new ApiAccess(this, 'Access', {
      restApi: this.api.restApi,
      table: props.recordsTable,
      projectRoot: props.projectRoot,
      serviceName: config.serviceName,
      memorySizeMb: config.functions.memorySizeMb,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
      tierQuotas: config.tierQuotas,
    });

    // The API and its usage plans hold the customers' base URL and every key's plan: a durable stage
    // keeps them even if this stack is destroyed (docs/deploy.md "Upgrading a stage").
    this.api.restApi.applyRemovalPolicy(config.statefulRemovalPolicy);
    for (const plan of Object.values(this.access.usagePlans)) plan.applyRemovalPolicy(config.statefulRemovalPolicy);

    this.searchBootstrap = new SearchIndexBootstrap(this, 'SearchIndexBootstrap', {
      searchDomain: props.searchDomain,
      indexReplicas: indexReplicasOf(config.search),
      vectors: config.search.vectors,
      embeddings: config.embeddings,
      projectRoot: props.projectRoot,
      serviceName: config.serviceName,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
    });

    const accountRoutes = props.accountRoutes ?? ACCOUNT_ROUTES;
    this.accountAccess =
      accountRoutes.length > 0
        ? new AccountAccess(this, 'AccountAccess', {
            userPool: props.dashboardIdentity.userPool,
            issuerUrl: props.dashboardIdentity.issuerUrl,
            clientId: props.dashboardIdentity.client.userPoolClientId,
          })
        : undefined;
    const { functions, searchFunctions, monitoredRoutes } = addRouteFunctions(this, {
      routes: props.routes ?? API_ROUTES,
      accountRoutes,
      accountAccess: this.accountAccess,
      access: this.access,
      api: this.api,
      searchBootstrap: this.searchBootstrap,
      bind,
      config,
      projectRoot: props.projectRoot,
    });
    this.functions = functions;

    this.indexer = new RecordIndexer(this, 'RecordIndexer', {
      table: props.recordsTable,
      searchDomain: props.searchDomain,
      indexReplicas: indexReplicasOf(config.search),
      vectors: config.search.vectors,
      embeddings: config.embeddings,
      failureQueue: props.indexerFailureQueue,
      projectRoot: props.projectRoot,
      serviceName: config.serviceName,
      memorySizeMb: config.functions.memorySizeMb,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
    });
    this.indexer.function.lambdaFunction.node.addDependency(this.searchBootstrap.resource);

    this.vectorBackfill = new VectorBackfill(this, 'VectorBackfill', {
      table: props.recordsTable,
      searchDomain: props.searchDomain,
      indexReplicas: indexReplicasOf(config.search),
      vectors: config.search.vectors,
      embeddings: config.embeddings,
      projectRoot: props.projectRoot,
      serviceName: config.serviceName,
      memorySizeMb: config.functions.memorySizeMb,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
    });
    this.vectorBackfill.function.lambdaFunction.node.addDependency(this.searchBootstrap.resource);

    this.webhooks = new WebhookDelivery(this, 'Webhooks', {
      table: props.recordsTable,
      searchDomain: props.searchDomain,
      vectors: config.search.vectors,
      embeddings: config.embeddings,
      queue: props.webhookQueue,
      deadLetterQueue: props.webhookDeadLetterQueue,
      streamFailureQueue: props.indexerFailureQueue,
      senderTimeout: WEBHOOK_SENDER_TIMEOUT,
      deadlineScanAtUtc: config.webhooks.deadlineScanAtUtc,
      projectRoot: props.projectRoot,
      serviceName: config.serviceName,
      memorySizeMb: config.functions.memorySizeMb,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
    });
    this.webhooks.deadlineScanner.lambdaFunction.node.addDependency(this.searchBootstrap.resource);
    this.webhooks.sender.bindWebhookSecretKey(props.webhookSecretKey);

    const reservations: Reservation[] = [];
    const reserve = (group: FunctionGroup, ...fns: ServiceFunction[]) => {
      const count = config.functions.reservedConcurrency[group];
      for (const fn of fns) fn.reserveConcurrency(count);
      if (count !== undefined) reservations.push(...fns.map((fn) => ({ functionName: fn.node.path, count })));
    };
    const searching = (fn: ServiceFunction) => searchFunctions.has(fn);
    reserve('api', ...[...functions.values()].filter((fn) => !searching(fn) || config.functions.reservedConcurrency.search === undefined));
    reserve('search', ...[...functions.values()].filter(searching));
    reserve('authorizer', this.access.authorizerFunction);
    reserve('indexer', this.indexer.function);
    reserve('webhookSender', this.webhooks.sender);
    reserve('webhookFanOut', this.webhooks.fanOut);
    reserve('deadlineScanner', this.webhooks.deadlineScanner);
    checkUnreservedConcurrency(reservations, config.functions.accountConcurrencyQuota);

    const monitoredFunctions: MonitoredFunction[] = [
      ...[...functions].map(([label, fn]): MonitoredFunction => ({ label, function: fn.lambdaFunction, kind: 'api' })),
      { label: 'Authorizer', function: this.access.authorizerFunction.lambdaFunction, kind: 'api' },
      { label: 'RecordIndexer', function: this.indexer.function.lambdaFunction, kind: 'background' },
      { label: 'WebhookFanOut', function: this.webhooks.fanOut.lambdaFunction, kind: 'background' },
      { label: 'WebhookSender', function: this.webhooks.sender.lambdaFunction, kind: 'background' },
      { label: 'DeadlineScanner', function: this.webhooks.deadlineScanner.lambdaFunction, kind: 'background' },
      { label: 'SearchIndexBootstrap', function: this.searchBootstrap.function.lambdaFunction, kind: 'background' },
      { label: 'VectorBackfill', function: this.vectorBackfill.function.lambdaFunction, kind: 'background' },
      ...(this.apiLoggingRole ? [{ label: 'ApiLoggingRoleCheck', function: this.apiLoggingRole.function.lambdaFunction, kind: 'background' } as const] : []),
    ];
    const metrics = new ServiceMetrics({
      serviceName: config.serviceName,
      apiName: this.api.restApi.restApiName,
      apiStageName: this.api.restApi.deploymentStage.stageName,
      routes: monitoredRoutes,
      functions: monitoredFunctions,
      authorizer: this.access.authorizerFunction.lambdaFunction,
      indexer: this.indexer.function.lambdaFunction,
      table: props.recordsTable,
      searchDomain: props.searchDomain,
      webhookQueue: props.webhookQueue,
      webhookDeadLetterQueue: props.webhookDeadLetterQueue,
      indexerFailureQueue: props.indexerFailureQueue,
    });
    const monitoringName = monitoringNameOf(config.serviceName, config.stage);
    const runbookUrl = config.alarms.docsBaseUrl && `${config.alarms.docsBaseUrl}/runbook.md`;
    this.canary = new ApiCanary(this, 'ApiCanary', {
      // What customers call: with a custom domain, its name, certificate and mapping are checked too.
      apiBaseUrl: this.baseUrl,
      settings: config.canary,
      // As the stacks are named (Gcf-<stage>-…): a canary name has at most 21 characters.
      namePrefix: `gcf-${config.stage}`,
      removalPolicy: config.statefulRemovalPolicy,
      logRetention: config.functions.logRetention,
      projectRoot: props.projectRoot,
    });
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      metrics,
      namePrefix: monitoringName,
      accessLogGroup: this.api.accessLogGroup,
      searchEbsVolumeSizeGiB: config.search.ebsVolumeSizeGiB,
      email: config.alarms.email,
      runbookUrl,
      additionalDefinitions: [this.canary.alarmDefinition],
    });
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      metrics,
      dashboardName: monitoringName,
      searchEbsVolumeSizeGiB: config.search.ebsVolumeSizeGiB,
      alarms: [...this.alarms.alarms.values()],
      runbookUrl,
      additionalWidgets: [this.canary.widget],
    });
    // What operators and the admin CLI read from this stack (lib/stack-names.ts STACK_OUTPUTS).
    const outputs: [keyof typeof STACK_OUTPUTS, string, string][] = [
      ['alarmTopicArn', 'The SNS topic paging alarms notify (subscribe the pager to it)', this.alarms.topics.page.topicArn],
      ['ticketAlarmTopicArn', 'The SNS topic ticket alarms notify (customer-owned failures, slow burns)', this.alarms.topics.ticket.topicArn],
      ['dashboardName', 'The CloudWatch dashboard of this stage, and the prefix of its alarm names', monitoringName],
      ['canaryKeySecretArn', 'The synthetic canary API key secret ({} until `admin canary provision` fills it)', this.canary.keySecret.secretArn],
      [
        'indexerFunctionName',
        'The indexer Lambda (admin CLI: npm run admin -- status --target aws reads its IteratorAge)',
        this.indexer.function.lambdaFunction.functionName,
      ],
      ['embeddingModel', 'The embedding model of the search index (admin reindex --target aws)', config.embeddings.model],
      ['embeddingDimensions', 'The dimensions of the search index vectors (admin reindex --target aws)', String(config.embeddings.dimensions)],
      ['apiBaseUrl', 'The {base_url} of the interface (ends in /functions/v1)', this.baseUrl],
    ];
    for (const [key, description, value] of outputs) new CfnOutput(this, STACK_OUTPUTS[key], { description, value });
  }
}
