import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { cdkJsonContext } from '../../lib/cdk-json-context';
import { type StageConfigOverrides, stageConfig } from '../../lib/config';
import { PROJECT_ROOT } from '../../lib/project-root';
import { createServiceStacks, type ServiceStackOptions, type ServiceStacks } from '../../lib/service-stacks';

export interface SynthesizedStage {
  readonly stacks: ServiceStacks;
  readonly stateful: Template;
  readonly stateless: Template;
}

/** A built dashboard of two files, standing in for dashboard/dist (not built in the repository). */
export const DASHBOARD_SITE_FIXTURE = join(PROJECT_ROOT, 'test', 'infra', 'fixtures', 'dashboard-site');

/** Builds both stacks of a stage as bin/app.ts does, with Lambda bundling skipped (fast, no esbuild). */
export function synthStage(stage: string, overrides?: StageConfigOverrides, options: ServiceStackOptions = {}): SynthesizedStage {
  const app = new App({ context: { ...cdkJsonContext(), stage, 'aws:cdk:bundling-stacks': [] } });
  const stacks = createServiceStacks(app, stageConfig(stage, overrides), undefined, { dashboardSiteDirectory: DASHBOARD_SITE_FIXTURE, ...options });
  return {
    stacks,
    stateful: Template.fromStack(stacks.stateful),
    stateless: Template.fromStack(stacks.stateless),
  };
}

/**
 * A value the stateless stack reads from an output of the dev stateful stack (a weak reference,
 * `Fn::GetStackOutput`), the output named after the resource `outputName` matches.
 */
export function statefulOutputReference(outputName: RegExp, stage = 'dev'): unknown {
  return { 'Fn::GetStackOutput': { StackName: `Gcf-${stage}-Stateful`, OutputName: expect.stringMatching(outputName), Region: { Ref: 'AWS::Region' } } };
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdatePolicy?: Record<string, unknown>;
  readonly UpdateReplacePolicy?: string;
  readonly DependsOn?: string[];
}

export function resourcesOfType(template: Template, type: string): Record<string, CfnResource> {
  return template.findResources(type) as Record<string, CfnResource>;
}

/** Every `Fn::GetAtt [<id>, 'Arn']` / `Ref <id>` target inside a CloudFormation value. */
export function referencedLogicalIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencedLogicalIds);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const own: string[] = [];
  if (typeof object.Ref === 'string') own.push(object.Ref);
  const getAtt = object['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') own.push(getAtt[0]);
  return [...own, ...Object.values(object).flatMap(referencedLogicalIds)];
}

/** Full path of an API Gateway resource (e.g. `/v1/grants-api/{id}`), walking ParentId up to the root. */
export function resourcePath(template: Template, resourceLogicalId: string): string {
  const resources = resourcesOfType(template, 'AWS::ApiGateway::Resource');
  const parts: string[] = [];
  let current: string | undefined = resourceLogicalId;
  while (current !== undefined) {
    const resource: CfnResource | undefined = resources[current];
    if (resource === undefined) break; // the RestApi root
    parts.unshift(String(resource.Properties?.PathPart));
    const parent = resource.Properties?.ParentId as { Ref?: string } | undefined;
    current = parent?.Ref;
  }
  return `/${parts.join('/')}`;
}

export interface WiredMethod {
  readonly httpMethod: string;
  readonly path: string;
  readonly functionLogicalId: string;
  readonly integration: Record<string, unknown>;
}

/** API methods answered by API Gateway itself (the CORS preflights' mock integrations). */
function isMockMethod(method: CfnResource): boolean {
  return (method.Properties?.Integration as { Type?: string } | undefined)?.Type === 'MOCK';
}

export interface PreflightMethod {
  readonly path: string;
  readonly properties: Record<string, unknown>;
}

/** Every OPTIONS method answered by a mock integration (a CORS preflight), with its full path. */
export function preflightMethods(template: Template, httpMethod: 'OPTIONS' | 'ANY' = 'OPTIONS'): PreflightMethod[] {
  return Object.values(resourcesOfType(template, 'AWS::ApiGateway::Method'))
    .filter((method) => isMockMethod(method) && method.Properties?.HttpMethod === httpMethod)
    .map((method) => {
      const resourceId = method.Properties?.ResourceId as { Ref?: string } | undefined;
      return { path: resourceId?.Ref ? resourcePath(template, resourceId.Ref) : '/', properties: method.Properties ?? {} };
    });
}

/** Every API method with its full path and the Lambda its integration invokes (the preflights aside). */
export function wiredMethods(template: Template): WiredMethod[] {
  const functionIds = new Set(Object.keys(resourcesOfType(template, 'AWS::Lambda::Function')));
  return Object.values(resourcesOfType(template, 'AWS::ApiGateway::Method'))
    .filter((method) => !isMockMethod(method))
    .map((method) => {
      const properties = method.Properties ?? {};
      const integration = (properties.Integration ?? {}) as Record<string, unknown>;
      const targets = referencedLogicalIds(integration.Uri).filter((id) => functionIds.has(id));
      if (targets.length !== 1) throw new Error(`Method integration should target exactly one function, found ${targets.length}`);
      const resourceId = properties.ResourceId as { Ref?: string } | undefined;
      return {
        httpMethod: String(properties.HttpMethod),
        path: resourceId?.Ref ? resourcePath(template, resourceId.Ref) : '/',
        functionLogicalId: targets[0] as string,
        integration,
      };
    });
}
