import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { stageConfig, stageOverridesFromContext } from '../../lib/config';
import { acknowledgeNagFindings, NAG_ACKNOWLEDGEMENTS } from '../../lib/nag-acknowledgements';
import { PROJECT_ROOT } from '../../lib/project-root';
import { createServiceStacks } from '../../lib/service-stacks';

/** A stage as bin/app.ts builds it from cdk.json (its `stages` entry), Lambda bundling skipped. */
function appOf(stage: string): App {
  const context = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
  const app = new App({ context: { ...context, stage, 'aws:cdk:bundling-stacks': [] } });
  createServiceStacks(app, stageConfig(stage, stageOverridesFromContext(context.stages, stage)));
  return app;
}

/** The findings of cdk-nag's AwsSolutions pack on a stage that nothing explains, and the acknowledgements used. */
function unexplainedFindings(stage: string) {
  const app = appOf(stage);
  const { unexplained, used } = acknowledgeNagFindings(app);
  return { unexplained: unexplained.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`)), used };
}

describe('cdk-nag AwsSolutions', () => {
  const dev = unexplainedFindings('dev');
  const prod = unexplainedFindings('prod');

  it('finds nothing that is not fixed or acknowledged with a reason, on a dev and a prod stage', () => {
    expect(dev.unexplained).toEqual([]);
    expect(prod.unexplained).toEqual([]);
  });

  it('keeps no acknowledgement that no finding needs, and gives each a real reason', () => {
    const unused = NAG_ACKNOWLEDGEMENTS.filter((a) => !dev.used.has(a) && !prod.used.has(a)).map((a) => a.finding.source);
    expect(unused).toEqual([]);
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS) expect(acknowledgement.reason.length, acknowledgement.finding.source).toBeGreaterThan(60);
  });

  it('fails on a finding the acknowledgements do not explain', () => {
    const { unexplained } = acknowledgeNagFindings(appOf('prod'), NAG_ACKNOWLEDGEMENTS.filter((a) => !a.finding.source.includes('COG4')));
    expect(unexplained.map((v) => v.ruleName)).toEqual(['AwsSolutions-COG4']);
    expect(unexplained[0]!.violatingResources).toHaveLength(9);
  });
});
