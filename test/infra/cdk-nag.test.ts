import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeOverrides, type StageConfigOverrides, stageConfig } from '../../lib/config';
import { checkWithCdkNag, NAG_ACKNOWLEDGEMENTS, type NagAcknowledgement } from '../../lib/nag-acknowledgements';
import { PROJECT_ROOT } from '../../lib/project-root';
import { createServiceStacks } from '../../lib/service-stacks';
import { stageOverridesFromContext } from '../../lib/stage-context';
import { DASHBOARD_SITE_FIXTURE } from './synth-stacks';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Synthesizes a stage as bin/app.ts does (its cdk.json `stages` entry, the cdk-nag gate), Lambda
 * bundling skipped. Returns what the gate found and whether synthesis failed on it.
 */
function synthWithNag(stage: string, acknowledgements: readonly NagAcknowledgement[] = NAG_ACKNOWLEDGEMENTS, extra: StageConfigOverrides = {}) {
  const context = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
  const outdir = mkdtempSync(join(tmpdir(), 'gcf-nag-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { ...context, stage, 'aws:cdk:bundling-stacks': [] } });
  createServiceStacks(app, stageConfig(stage, mergeOverrides(stageOverridesFromContext(context.stages, stage), extra)), undefined, {
    dashboardSiteDirectory: DASHBOARD_SITE_FIXTURE,
  });
  const gate = checkWithCdkNag(app, acknowledgements);
  let failure: string | null = null;
  try {
    app.synth();
  } catch (error) {
    failure = (error as Error).message;
  }
  const outcome = gate.lastOutcome!;
  return {
    failure,
    unexplained: outcome.unexplained.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`)),
    used: outcome.used,
  };
}

describe('cdk-nag AwsSolutions', () => {
  const dev = synthWithNag('dev');
  const prod = synthWithNag('prod');

  it('synthesizes dev and prod with nothing that is not fixed or acknowledged with a reason', () => {
    expect(dev.unexplained).toEqual([]);
    expect(prod.unexplained).toEqual([]);
    expect(dev.failure).toBeNull();
    expect(prod.failure).toBeNull();
  });

  it('needs no acknowledgement for a custom domain and its alias record', () => {
    const customDomain = {
      domainName: 'api.example.org',
      certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b8e3c4a-1d2e-4f5a-9b6c-7d8e9f0a1b2c',
      hostedZone: { id: 'Z0123456789ABCDEFGHIJ', name: 'example.org' },
    };
    const withDomain = synthWithNag('prod', NAG_ACKNOWLEDGEMENTS, { api: { customDomain } });
    expect(withDomain.unexplained).toEqual([]);
    expect(withDomain.failure).toBeNull();
    expect([...withDomain.used].length).toBe([...prod.used].length);
  });

  it('acknowledges no more than it does today: a new finding is fixed, or replaces an acknowledgement', () => {
    // A ratchet: lower it when an acknowledgement goes, never raise it without a review.
    expect(NAG_ACKNOWLEDGEMENTS.length).toBeLessThanOrEqual(17);
  });

  it('keeps no acknowledgement that no finding needs, and gives each a real reason', () => {
    const unused = NAG_ACKNOWLEDGEMENTS.filter((a) => !dev.used.has(a) && !prod.used.has(a)).map((a) => a.finding.source);
    expect(unused).toEqual([]);
    for (const acknowledgement of NAG_ACKNOWLEDGEMENTS) expect(acknowledgement.reason.length, acknowledgement.finding.source).toBeGreaterThan(60);
  });

  it('fails synthesis on a finding the acknowledgements do not explain', () => {
    const withoutCognito = synthWithNag(
      'prod',
      NAG_ACKNOWLEDGEMENTS.filter((a) => !a.finding.source.includes('COG4')),
    );
    expect(new Set(withoutCognito.unexplained.map((finding) => finding.split(' at ')[0]))).toEqual(new Set(['AwsSolutions-COG4']));
    // One per API-key route and one per route resource's ANY (the 405 mock), the account API's two
    // resources too; its own methods use the Cognito authorizer. cdk-nag leaves the CORS preflights
    // (OPTIONS, no authorizer by design) out of APIG4 and COG4.
    expect(withoutCognito.unexplained.filter((finding) => !finding.includes('/ANY/'))).toHaveLength(10);
    expect(withoutCognito.unexplained.filter((finding) => finding.includes('/ANY/'))).toHaveLength(12);
    expect(withoutCognito.unexplained.filter((finding) => finding.includes('/account'))).toEqual([
      'AwsSolutions-COG4 at Gcf-prod-Stateless/Api/RestApi/Default/v1/account/ANY/Resource',
      'AwsSolutions-COG4 at Gcf-prod-Stateless/Api/RestApi/Default/v1/account/{proxy+}/ANY/Resource',
    ]);
    expect(withoutCognito.unexplained.filter((finding) => finding.includes('/OPTIONS/'))).toEqual([]);
    expect(withoutCognito.failure).toContain('does not use a Cognito user pool authorizer');
  });
});
