import { Duration, Lazy, type RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  type ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  type Method,
  MethodLoggingLevel,
  type MethodOptions,
  MockIntegration,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ErrorCode } from '../../lambdas/core/errors';
import { allowedMethods, allowsAnyOrigin, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, type CorsOrigins } from '../../lambdas/http/cors';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route of the API: `path` is relative to the version root, e.g. `/grants-api/{id}`. */
export interface ServiceApiRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly handler: IFunction;
  /** Per-route overrides of `defaultMethodOptions` (e.g. a different authorizer). */
  readonly methodOptions?: MethodOptions;
}

export interface ServiceApiProps {
  readonly apiName: string;
  readonly description?: string;
  /** Deployment stage; together with `versionPathPart` it forms the base path. @default 'functions' */
  readonly stageName?: string;
  /** @default 'v1' */
  readonly versionPathPart?: string;
  readonly routes?: readonly ServiceApiRoute[];
  /** Applied to every route, e.g. the authorizer. */
  readonly defaultMethodOptions?: MethodOptions;
  readonly accessLogRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** See ApiSettings.manageAccountCloudWatchRole. */
  readonly manageAccountCloudWatchRole: boolean;
  /** Where API Gateway finds a request's usage-plan key. @default HEADER (x-api-key) */
  readonly apiKeySource?: ApiKeySourceType;
  /**
   * The stage's default throttle for all callers together (each tier's usage plan throttles each
   * key further), protecting the functions and the search domain. @default 500 requests/s, bursts of 1,000
   */
  readonly throttling?: { readonly rateLimit: number; readonly burstLimit: number };
  /** The origins browser apps may call from (lib/config.ts `api.corsOrigins`): `['*']` or exact origins. */
  readonly corsOrigins: CorsOrigins;
}

interface GatewayErrorResponse {
  readonly type: ResponseType;
  /** Overrides API Gateway's own status code. */
  readonly statusCode?: string;
  readonly code: ErrorCode;
  /** A JSON-escaped mapping-template expression, or undefined to use `message`. */
  readonly messageExpression?: string;
  readonly message?: string;
}

/**
 * Errors raised by API Gateway itself (before or instead of a Lambda) answered in the service's
 * error body shape, so clients parse one format whichever layer failed.
 */
export const GATEWAY_ERROR_RESPONSES: readonly GatewayErrorResponse[] = [
  // Unknown paths (a known path's other methods get 405 from its ANY method); API Gateway calls these a missing token (403).
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, statusCode: '404', code: 'NOT_FOUND', message: 'No such route' },
  { type: ResponseType.RESOURCE_NOT_FOUND, statusCode: '404', code: 'NOT_FOUND', message: 'No such route' },
  { type: ResponseType.UNAUTHORIZED, statusCode: '401', code: 'UNAUTHORIZED', message: 'Missing or invalid API key' },
  { type: ResponseType.INVALID_API_KEY, statusCode: '401', code: 'UNAUTHORIZED', message: 'Missing or invalid API key' },
  { type: ResponseType.ACCESS_DENIED, statusCode: '403', code: 'FORBIDDEN', message: 'This API key does not have access to this resource' },
  { type: ResponseType.THROTTLED, statusCode: '429', code: 'RATE_LIMITED', message: 'Too many requests; slow down and retry' },
  { type: ResponseType.QUOTA_EXCEEDED, statusCode: '429', code: 'RATE_LIMITED', message: 'Daily request quota exceeded; it resets at 00:00 UTC' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, statusCode: '400', code: 'INVALID_PARAMETER', messageExpression: '$context.error.messageString' },
  { type: ResponseType.BAD_REQUEST_BODY, statusCode: '400', code: 'INVALID_PARAMETER', messageExpression: '$context.error.messageString' },
  // Remaining 4xx keep their status; the gateway's message is safe to show.
  { type: ResponseType.DEFAULT_4XX, code: 'INVALID_PARAMETER', messageExpression: '$context.error.messageString' },
  // A function that could not be invoked: above all, one at its reserved concurrency (a search
  // function sized to the domain, docs/deploy.md), which API Gateway would call a bare 500.
  {
    type: ResponseType.INTEGRATION_FAILURE,
    statusCode: '503',
    code: 'SEARCH_UNAVAILABLE',
    message: 'The service is at capacity right now; try again shortly (request $context.requestId)',
  },
  // 5xx never expose details; the request id lets support find the logs.
  { type: ResponseType.DEFAULT_5XX, code: 'INTERNAL', message: 'Internal server error (request $context.requestId)' },
];

function errorBodyTemplate(response: GatewayErrorResponse): string {
  const message = response.messageExpression ?? JSON.stringify(response.message ?? '');
  // The request id the functions' responses carry as X-Request-Id and error.request_id; a gateway response
  // cannot set a header from it, but API Gateway adds its x-amzn-RequestId header with the same id.
  return `{"error":{"code":${JSON.stringify(response.code)},"message":${message},"request_id":"$context.requestId"}}`;
}

/**
 * The CORS headers of the answers made before or instead of a function (the gateway's errors, the
 * WAF's refusals).
 * A gateway response can only send fixed values or request parameters, with no condition, so it
 * cannot echo an Origin only when it is listed: with several origins it names the first, and the
 * apps on the others see a gateway error (a refused key, a throttle) as a failed request
 * (docs/deploy.md says so). Echoing method.request.header.Origin would allow every origin.
 */
export function edgeCorsHeaders(origins: CorsOrigins): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origins[0]!,
    'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
    ...(allowsAnyOrigin(origins) ? {} : { Vary: 'Origin' }),
  };
}

/** edgeCorsHeaders as a gateway response's static values (quoted literals). */
export function gatewayCorsHeaders(origins: CorsOrigins): Record<string, string> {
  return Object.fromEntries(Object.entries(edgeCorsHeaders(origins)).map(([name, value]) => [name, `'${value}'`]));
}

// Deliberately without headers, API keys or the authorizer context: access logs must not hold secrets.
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    extendedRequestId: AccessLogField.contextExtendedRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    path: AccessLogField.contextPath(),
    status: AccessLogField.contextStatus(),
    protocol: AccessLogField.contextProtocol(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    integrationStatus: AccessLogField.contextIntegrationStatus(),
    errorType: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
    sourceIp: AccessLogField.contextIdentitySourceIp(),
    userAgent: AccessLogField.contextIdentityUserAgent(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
  }),
);

/**
 * The public REST API: base URL `https://<id>.execute-api.<region>.amazonaws.com/functions/v1`,
 * Lambda proxy routes under the version root, gateway errors in the service's JSON error shape,
 * JSON access logs, error execution logs, X-Ray tracing, per-method metrics and a stage-wide throttle.
 */
export class ServiceApi extends Construct {
  readonly restApi: RestApi;
  /** The `/v1` resource every route hangs from. */
  readonly versionRoot: IResource;
  readonly accessLogGroup: LogGroup;
  private readonly defaultMethodOptions: MethodOptions | undefined;
  private readonly corsOrigins: CorsOrigins;
  /** The methods of each resource that has routes, which its CORS preflight allows. */
  private readonly resourceMethods = new Map<IResource, HttpMethod[]>();

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.defaultMethodOptions = props.defaultMethodOptions;
    this.corsOrigins = props.corsOrigins;

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention,
      removalPolicy: props.logRemovalPolicy,
    });

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: props.apiName,
      description: props.description,
      endpointTypes: [EndpointType.REGIONAL],
      apiKeySourceType: props.apiKeySource,
      cloudWatchRole: props.manageAccountCloudWatchRole,
      deployOptions: {
        stageName: props.stageName ?? 'functions',
        tracingEnabled: true,
        metricsEnabled: true,
        // Execution logs of failures only, and never the data trace: it would log request headers
        // (API keys) and bodies.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: props.throttling?.rateLimit ?? 500,
        throttlingBurstLimit: props.throttling?.burstLimit ?? 1_000,
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
    });

    this.versionRoot = this.restApi.root.addResource(props.versionPathPart ?? 'v1');

    for (const response of GATEWAY_ERROR_RESPONSES) {
      this.restApi.addGatewayResponse(`GatewayResponse${response.type.responseType}`, {
        type: response.type,
        statusCode: response.statusCode,
        responseHeaders: { 'Content-Type': "'application/json'", ...gatewayCorsHeaders(props.corsOrigins) },
        templates: { 'application/json': errorBodyTemplate(response) },
      });
    }

    for (const route of props.routes ?? []) {
      this.addRoute(route);
    }
  }

  /** Full URL of the version root, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/functions/v1 */
  get baseUrl(): string {
    return this.restApi.urlForPath(this.versionRoot.path);
  }

  addRoute(route: ServiceApiRoute): Method {
    const resource = route.path === '/' ? this.versionRoot : this.versionRoot.resourceForPath(route.path.replace(/^\//, ''));
    this.allowPreflight(resource).push(route.method);
    return resource.addMethod(
      route.method,
      // Test invocations from the console are not worth an extra resource policy per method.
      new LambdaIntegration(route.handler, { proxy: true, allowTestInvoke: false }),
      { ...this.defaultMethodOptions, ...route.methodOptions },
    );
  }

  /**
   * The resource's CORS preflight, added with its first route: an OPTIONS method with a mock
   * integration and no authorizer that answers 204 with the allowed origin (the request's own
   * when several are listed), the resource's methods (filled in at synthesis, as routes are
   * added one by one), the headers clients send, and a max age. Returns the methods list to add to.
   */
  private allowPreflight(resource: IResource): HttpMethod[] {
    const known = this.resourceMethods.get(resource);
    if (known) return known;
    const methods: HttpMethod[] = [];
    this.resourceMethods.set(resource, methods);
    resource.addCorsPreflight({
      allowOrigins: [...this.corsOrigins],
      allowMethods: [Lazy.string({ produce: () => allowedMethods(methods).join(',') })],
      allowHeaders: [...CORS_ALLOWED_HEADERS],
      maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      statusCode: 204,
    });
    this.refuseOtherMethods(resource, methods);
    return methods;
  }

  /**
   * Any other method on the resource: 405 METHOD_NOT_ALLOWED with Allow, in the service's error
   * body, from a mock integration (no authorizer: nothing is served). API Gateway prefers a
   * resource's own methods and its OPTIONS preflight to ANY, so this only answers what would
   * otherwise be its 403 "missing authentication token", as the local server answers.
   */
  private refuseOtherMethods(resource: IResource, methods: HttpMethod[]): void {
    const allow = Lazy.string({ produce: () => allowedMethods(methods).join(', ') });
    const headers: Record<string, string> = {
      Allow: `'${allow}'`,
      'X-Request-Id': 'context.requestId',
      'Content-Type': "'application/json'",
      ...gatewayCorsHeaders(this.corsOrigins),
    };
    const code: ErrorCode = 'METHOD_NOT_ALLOWED';
    resource.addMethod(
      'ANY',
      new MockIntegration({
        // One template per common body type: a body of a type with none would pass through to the mock, which answers 500.
        requestTemplates: Object.fromEntries(
          [
            'application/json',
            'text/plain',
            'text/csv',
            'application/xml',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
            'application/octet-stream',
          ].map((type) => [type, '{"statusCode": 405}']),
        ),
        integrationResponses: [
          {
            statusCode: '405',
            responseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value])),
            responseTemplates: {
              'application/json': `{"error":{"code":"${code}","message":"$context.httpMethod is not served here; this path serves ${allow}","request_id":"$context.requestId"}}`,
            },
          },
        ],
      }),
      {
        authorizationType: AuthorizationType.NONE,
        methodResponses: [
          { statusCode: '405', responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [`method.response.header.${name}`, true])) },
        ],
      },
    );
  }
}
