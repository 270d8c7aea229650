import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { cdkJsonContext } from '../cdk-json-context';
import { stageConfig } from '../config';
import { createServiceStacks } from '../service-stacks';
import { stageOverridesFromContext } from '../stage-context';
import { costTable, fixedMonthlyCosts, perMillionCalls, type TemplateResource } from './monthly-cost';
import { PRICE_REGION, PRICES_AS_OF } from './prices';

/** The billed duration a call is assumed to take in the per-million table (not a measurement). */
export const ASSUMED_BILLED_MS = 100;

/** Every resource of a stage as cdk.json configures it, from all its stacks (Lambda bundling skipped). */
export function stageResources(stage: string): { resources: TemplateResource[]; memoryMb: number } {
  const context = cdkJsonContext();
  const app = new App({ context: { ...context, stage, 'aws:cdk:bundling-stacks': [] } });
  const config = stageConfig(stage, stageOverridesFromContext(context.stages, stage));
  createServiceStacks(app, config);
  const stacks = app.node.children.filter((child): child is Stack => Stack.isStack(child));
  const resources = stacks.flatMap((stack) => Object.values(Template.fromStack(stack).toJSON().Resources ?? {}) as TemplateResource[]);
  return { resources, memoryMb: config.functions.memorySizeMb };
}

/** The markdown of one stage's estimate: its fixed monthly cost, then the cost of a million calls. */
export function stageCostReport(stage: string): string {
  const { resources, memoryMb } = stageResources(stage);
  const arm64 = resources.some((r) => r.Type === 'AWS::Lambda::Function' && JSON.stringify(r.Properties?.Architectures ?? []).includes('arm64'));
  const waf = resources.some((r) => r.Type === 'AWS::WAFv2::WebACL');
  return [
    `**${stage}**, fixed per month (${PRICE_REGION} list prices, ${PRICES_AS_OF}):`,
    '',
    costTable(fixedMonthlyCosts(resources), 'idle per month'),
    '',
    `**${stage}**, per million API calls (assuming ${ASSUMED_BILLED_MS} ms billed per call and the authorizer's cache hit):`,
    '',
    costTable(perMillionCalls({ memoryMb, arm64, billedMs: ASSUMED_BILLED_MS, waf }), 'per million calls'),
  ].join('\n');
}

export const COST_BEGIN = '<!-- cost-estimate:begin (npm run cost -- --write) -->';
export const COST_END = '<!-- cost-estimate:end -->';
export const COST_STAGES = ['dev', 'prod'] as const;

/** The generated block of docs/deploy.md: every stage of COST_STAGES. */
export function costSection(): string {
  return [COST_BEGIN, ...COST_STAGES.map(stageCostReport), COST_END].join('\n\n');
}

/** A document with its generated block replaced. */
export function withCostSection(document: string, section: string): string {
  const begin = document.indexOf(COST_BEGIN);
  const end = document.indexOf(COST_END);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${COST_BEGIN} ... ${COST_END} block`);
  return document.slice(0, begin) + section + document.slice(end + COST_END.length);
}
