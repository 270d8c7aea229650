#!/usr/bin/env node
/**
 * The CDK app: the only place that reads context and environment. Stacks are environment-agnostic
 * (no account/region) so `cdk synth` works offline without credentials.
 *
 * A stage's settings come from cdk.json's `stages` context (search sizing, embedding dimensions,
 * tier quotas, alarm e-mail, deadline scan time, reserved concurrency); a stage it does not list
 * gets the defaults of lib/config.ts (dev-like for dev-*, prod-like otherwise). `-c` flags win:
 *
 *   cdk synth -c stage=prod                  retained, production-sized stage
 *   cdk synth -c stage=dev-alice -c ephemeral=false
 *   cdk synth -c embeddingDimensions=1024 -c semanticFloor=0.35
 *   cdk synth -c deadlineScanAtUtc=13:30      the daily webhook deadline scan, UTC
 *   cdk synth -c alarmEmail=oncall@acme.org     a durable stage refuses a placeholder (example.org) address
 *   cdk synth -c docsBaseUrl=https://github.com/acme/gcf/blob/main/docs   alarms link to the runbook
 */
import { App } from 'aws-cdk-lib';
import { checkDeployable, mergeOverrides, stageConfig } from '../lib/config';
import { checkWithCdkNag } from '../lib/nag-acknowledgements';
import { createServiceStacks } from '../lib/service-stacks';
import { stageOverridesFromContext } from '../lib/stage-context';

function optionalBoolean(name: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`Context "${name}" must be true or false, got ${JSON.stringify(value)}`);
}

function optionalNumber(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) throw new Error(`Context "${name}" must be a number, got ${JSON.stringify(value)}`);
  return number;
}

function optionalString(value: unknown): string | undefined {
  return value === undefined ? undefined : String(value);
}

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? process.env.GCF_STAGE ?? 'dev');
const fromCdkJson = stageOverridesFromContext(app.node.tryGetContext('stages'), stage);
const config = stageConfig(
  stage,
  mergeOverrides(fromCdkJson, {
    ephemeral: optionalBoolean('ephemeral', app.node.tryGetContext('ephemeral')),
    embeddings: {
      dimensions: optionalNumber('embeddingDimensions', app.node.tryGetContext('embeddingDimensions')) as 256 | 512 | 1024 | undefined,
      semanticFloor: optionalNumber('semanticFloor', app.node.tryGetContext('semanticFloor')),
    },
    webhooks: {
      deadlineScanAtUtc: optionalString(app.node.tryGetContext('deadlineScanAtUtc')),
    },
    api: {
      manageAccountCloudWatchRole: optionalBoolean('apiCloudWatchRole', app.node.tryGetContext('apiCloudWatchRole')),
    },
    alarms: {
      email: optionalString(app.node.tryGetContext('alarmEmail')),
      docsBaseUrl: optionalString(app.node.tryGetContext('docsBaseUrl')),
    },
  }),
);
try {
  checkDeployable(
    config,
    app.node.tryGetContext('alarmEmail') !== undefined ? 'context alarmEmail (-c alarmEmail)' : `cdk.json context stages.${stage}.alarms.email`,
  );
} catch (error) {
  // A configuration mistake, not a bug: one line, no stack.
  console.error(`synth refused: ${(error as Error).message}`);
  process.exit(1);
}

createServiceStacks(app, config);
// cdk-nag AwsSolutions: synth (and so deploy) fails on a finding lib/nag-acknowledgements.ts does not explain.
checkWithCdkNag(app);
