import { type IPolicyValidationContext, type IPolicyValidationPlugin, type PolicyValidationPluginReport, type PolicyViolation, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag's AwsSolutions rules on every stack, with the findings we accept and why. Each
 * acknowledgement names the finding (its rule and, for IAM wildcards, the exact wildcard) and the
 * constructs it covers; a finding none of them explains fails `cdk synth` and the nag test
 * (test/infra/cdk-nag.test.ts), so a new one is either fixed or acknowledged here with a reason.
 */
export interface NagAcknowledgement {
  /** The finding id, e.g. `AwsSolutions-IAM5[Resource::*]`. */
  readonly finding: RegExp;
  /** The construct path of the resource, e.g. `Gcf-prod-Stateless/GetGrant/...`. */
  readonly path: RegExp;
  readonly reason: string;
}

const ANY = /./;
const FUNCTION_ROLE_POLICY = /\/ServiceRole\/DefaultPolicy\/Resource$/;
/** Stages whose data is thrown away (lib/config.ts isEphemeralStageName). */
const EPHEMERAL_STAGE = /^Gcf-dev(-[a-z0-9-]+)?-/;
/** The CloudFront distributions of static files (lib/constructs/private-site.ts). */
const STATIC_SITE_DISTRIBUTION = /\/(DocsAssets|DashboardSite)\/Distribution\/Resource$/;

export const NAG_ACKNOWLEDGEMENTS: readonly NagAcknowledgement[] = [
  {
    finding: /^AwsSolutions-IAM4\[Policy::arn:<AWS::Partition>:iam::aws:policy\/service-role\/AWSLambdaBasicExecutionRole\]$/,
    path: /\/ServiceRole\/Resource$/,
    reason:
      'The Lambda basic execution policy only lets a function create log streams and write its own logs; each function logs to its own explicit log group with a retention.',
  },
  {
    finding:
      /^AwsSolutions-IAM5\[Resource::(\*|<ApiCanaryArtifacts[A-F0-9]+\.Arn>\/\*|arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:\/aws\/lambda\/cwsyn-gcf-[a-z0-9-]+-\*)\]$/,
    path: FUNCTION_ROLE_POLICY,
    reason:
      'Only xray:PutTraceSegments, xray:PutTelemetryRecords (active tracing) and dynamodb:ListStreams (the stream event sources) carry Resource "*": these actions support no resource-level scoping. The synthetic canary\'s own role (lib/constructs/api-canary.ts, in place of CDK\'s default one) adds what the Synthetics runtime needs: s3:ListAllMyBuckets and cloudwatch:PutMetricData (namespace CloudWatchSynthetics only) on "*", s3:PutObject on the objects of its own artifacts bucket (Synthetics names each run\'s keys), and logs on its own Lambda log group, which Synthetics names cwsyn-<canary>-<id>.',
  },
  {
    finding: /^AwsSolutions-IAM5\[Resource::.*SearchDomain.*\/gcf-(grants|contracts|funders)(-v\*)?(\/\*)?\]$/,
    path: FUNCTION_ROLE_POLICY,
    reason:
      "The service's versioned indices (gcf-grants-v<version>, created by admin reindex --rebuild) and the paths under each index: readers get GET/HEAD there and POST on the read APIs only, writers also PUT and _bulk; nothing cluster-wide and no DELETE.",
  },
  {
    finding: /^AwsSolutions-IAM5\[Action::kms:(List|Describe)\*\]$/,
    path: /Stateful\/AWS679f53fac002430cb0da5b7982bd2287\/ServiceRole\/DefaultPolicy\/Resource$/,
    reason:
      "CDK's custom resource that applies the search domain's access policy gets kms:CreateGrant, List* and Describe* on the domain's customer-managed key only (the resource is that key): OpenSearch uses the key through a grant made on the domain update. It cannot encrypt or decrypt with it.",
  },
  {
    finding: /^AwsSolutions-IAM5\[Resource::<(SearchIndexBootstrap|ApiLoggingRole)Function[A-F0-9]+\.Arn>:\*\]$/,
    path: /\/(SearchIndexBootstrap|ApiLoggingRole)\/Provider\/framework-onEvent\//,
    reason:
      'The CDK custom-resource Provider framework invokes any version of the function it was created for (the index bootstrap, the logging-role check), and nothing else.',
  },
  {
    finding: /^AwsSolutions-SMG4$/,
    path: /\/(CursorKey\/Secret|ApiCanary\/KeySecret)\/Resource$/,
    reason:
      "The list cursors' signing key is not rotated: a cursor lives 24 hours and carries no secret (only a position in a public list, signed so it cannot be forged), and rotating would only end the walks under way. A leaked key is replaced by putting a new value (docs/deploy.md); every cursor signed with the old one is then a 400 that says to start again. The synthetic canary's API key secret holds a key record of the records table, which Secrets Manager cannot rotate alone: `admin canary provision` rotates it (docs/deploy.md).",
  },
  {
    finding: /^AwsSolutions-L1$/,
    path: ANY,
    reason:
      'Every function runs on Node.js 22, the runtime the bundles target (esbuild target node22) and the service is tested on; moving to a newer runtime is a deliberate upgrade, not a drift to the latest.',
  },
  {
    finding: /^AwsSolutions-COG4$/,
    path: /\/Api\/RestApi\/Default\/v1\//,
    reason:
      "Callers authenticate with the service's API keys (interface section 2), verified by a Lambda request authorizer backed by API Gateway usage plans; there are no Cognito users.",
  },
  {
    finding: /^AwsSolutions-APIG4$/,
    path: /\/Api\/RestApi\/Default\/v1\/((openapi\.json|docs)\/GET|.*\/ANY)\/Resource$/,
    reason:
      'Methods without the authorizer by design, none of which reads data: the OpenAPI document and the docs page rendered from it are public by the interface (clients read them before they have a key), and the ANY method of each resource is a mock integration that answers every method the resource does not serve with 405 METHOD_NOT_ALLOWED and its Allow header. Every other GET or POST has the authorizer.',
  },
  {
    finding: /^AwsSolutions-APIG2$/,
    path: /\/Api\/RestApi\/Resource$/,
    reason:
      'Requests are validated by the handlers (zod schemas, the same ones that generate the OpenAPI document), which answer 400 with the service error body naming the field; an API Gateway validator would answer in another shape.',
  },
  {
    finding: /^AwsSolutions-SQS3$/,
    path: /\/IndexerFailureQueue\/Resource$/,
    reason:
      "IndexerFailureQueue is itself the on-failure destination of the table stream's event sources: it keeps pointers to stream batches for replay and has no consumer whose failures would need another queue.",
  },
  {
    finding: /^AwsSolutions-OS1$/,
    path: /\/Search\/Domain\/Resource$/,
    reason:
      'The domain is reached only with SigV4-signed requests from IAM principals (IAM-only access policy, HTTPS, node-to-node encryption); keeping the Lambdas outside a VPC avoids NAT gateways for their Bedrock and DynamoDB calls.',
  },
  {
    finding: /^AwsSolutions-OS3$/,
    path: /\/Search\/Domain\/Resource$/,
    reason:
      "Access is by IAM identity (the functions' roles and operators' credentials, SigV4-signed), not by source IP: Lambda functions have no fixed addresses.",
  },
  {
    finding: /^AwsSolutions-OS(4|7)$/,
    path: new RegExp(`${EPHEMERAL_STAGE.source}Stateful/Search/Domain/Resource$`),
    reason:
      'Throwaway dev stages run a single small data node in one zone, without dedicated masters, to keep cost down; durable stages spread their data nodes over two or three zones and get dedicated master nodes (both from the stage config).',
  },
  {
    finding: /^AwsSolutions-CFR(1|2)$/,
    path: STATIC_SITE_DISTRIBUTION,
    reason:
      "The docs assets and developer dashboard distributions serve public static files (the API reference renderer; the dashboard's app, which holds no data before its user signs in) from private buckets to anyone the API serves, so no filter at the edge: the API has no geographic restriction (CFR1), so they have none; a CloudFront web ACL (CFR2) must live in us-east-1, a stack of its own per stage, and a flood of these cached files costs CloudFront egress only, never a function or the data. The API's own regional web ACL guards everything that reads data, and Cognito guards sign-in.",
  },
  {
    finding: /^AwsSolutions-CFR4$/,
    path: STATIC_SITE_DISTRIBUTION,
    reason:
      "The docs assets and dashboard distributions use CloudFront's default *.cloudfront.net certificate, whose security policy AWS fixes (a minimum TLS version is only settable with a custom certificate and alias). Neither takes credentials: the docs page loads its script with Subresource Integrity, so a browser runs only the exact file the release uploaded; the dashboard sends HSTS and its tokens go only to the API and Cognito, never to the distribution.",
  },
  {
    finding: /^AwsSolutions-COG(2|8)$/,
    path: /\/DashboardIdentity\/UserPool\/Resource$/,
    reason:
      "The developer dashboard's user pool is self-service sign-up for developers: it offers TOTP MFA without requiring it (a stage can require it, cdk.json dashboard.mfa) and asks for 12-character passwords of four kinds. It stays on the Essentials plan, free up to its monthly active user allowance: threat protection needs the Plus plan, billed for every active user, and a dashboard account reaches only its own keys and webhooks, which its owner can revoke.",
  },
];

export interface NagOutcome {
  /** Findings no acknowledgement explains. */
  unexplained: PolicyViolation[];
  /** The acknowledgements some finding needed. */
  used: Set<NagAcknowledgement>;
}

/** Splits a report's violations into those an acknowledgement explains and the rest. */
export function explainFindings(violations: readonly PolicyViolation[], acknowledgements: readonly NagAcknowledgement[]): NagOutcome {
  const unexplained: PolicyViolation[] = [];
  const used = new Set<NagAcknowledgement>();
  for (const violation of violations) {
    const left = violation.violatingResources.filter((resource) => {
      const path = resource.constructPath ?? '';
      const acknowledgement = acknowledgements.find((a) => a.finding.test(violation.ruleName) && a.path.test(path));
      if (acknowledgement) used.add(acknowledgement);
      return !acknowledgement;
    });
    if (left.length > 0) unexplained.push({ ...violation, violatingResources: left });
  }
  return { unexplained, used };
}

/**
 * cdk-nag's AwsSolutions pack as a policy validation plugin that leaves out the findings our
 * acknowledgements explain. It filters at synthesis, on the final tree, where IAM findings name
 * resolved references (cross-stack exports), so the patterns match what cdk-nag reports there.
 */
export class AcknowledgedAwsSolutionsChecks implements IPolicyValidationPlugin {
  readonly name = 'AwsSolutions';
  /** What the last validation found, explained or not (for tests). */
  lastOutcome: NagOutcome | null = null;
  private readonly checks: AwsSolutionsChecks;

  constructor(
    scope: IConstruct,
    private readonly acknowledgements: readonly NagAcknowledgement[] = NAG_ACKNOWLEDGEMENTS,
  ) {
    this.checks = new AwsSolutionsChecks(scope);
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const report = this.checks.validate(context);
    this.lastOutcome = explainFindings(report.violations, this.acknowledgements);
    return { ...report, success: this.lastOutcome.unexplained.length === 0, violations: this.lastOutcome.unexplained };
  }
}

/** The app's cdk-nag gate: `cdk synth` and `cdk deploy` fail on any finding the acknowledgements do not explain. */
export function checkWithCdkNag(app: IConstruct, acknowledgements: readonly NagAcknowledgement[] = NAG_ACKNOWLEDGEMENTS): AcknowledgedAwsSolutionsChecks {
  const plugin = new AcknowledgedAwsSolutionsChecks(app, acknowledgements);
  Validations.of(app).addPlugins(plugin);
  return plugin;
}
