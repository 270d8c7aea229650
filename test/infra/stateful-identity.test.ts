import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { resourcesOfType, synthStage } from './synth-stacks';

const SNAPSHOT_PATH = join(__dirname, 'stateful-identity.snapshot.json');
const UPDATE_FLAG = 'UPDATE_STATEFUL_IDENTITY';

/** Per resource type, the properties whose change makes CloudFormation replace (and so empty) the resource. */
const REPLACING_PROPERTIES: Record<string, (properties: Record<string, unknown>) => Record<string, unknown>> = {
  'AWS::DynamoDB::Table': (p) => ({ TableName: p.TableName, KeySchema: p.KeySchema, LocalSecondaryIndexes: p.LocalSecondaryIndexes }),
  // A new engine family (Elasticsearch to OpenSearch) or a new name replaces the domain; a higher version does not.
  'AWS::OpenSearchService::Domain': (p) => ({ DomainName: p.DomainName, EngineFamily: String(p.EngineVersion).split('_')[0] }),
  'AWS::SQS::Queue': (p) => ({ QueueName: p.QueueName, FifoQueue: p.FifoQueue }),
  'AWS::SecretsManager::Secret': (p) => ({ Name: p.Name }),
  // The API and its usage plans hold the customers' base URL and every key.
  'AWS::ApiGateway::RestApi': (p) => ({ Name: p.Name }),
  'AWS::ApiGateway::UsagePlan': (p) => ({ UsagePlanName: p.UsagePlanName }),
  'AWS::ApiGateway::DomainName': (p) => ({ DomainName: p.DomainName }),
  // The dashboard's users: a new pool has none; a new domain prefix moves the managed login.
  'AWS::Cognito::UserPool': (p) => ({ UsernameAttributes: p.UsernameAttributes, AliasAttributes: p.AliasAttributes, Schema: p.Schema }),
  'AWS::Cognito::UserPoolDomain': (p) => ({ Domain: p.Domain }),
};

type Identity = Record<string, { Type: string } & Record<string, unknown>>;

/** Logical id -> type and replacing properties, of every resource that holds data or customers' keys. */
function identityOf(...templates: Template[]): Identity {
  const identity: Identity = {};
  for (const template of templates) {
    for (const [type, replacing] of Object.entries(REPLACING_PROPERTIES)) {
      for (const [logicalId, resource] of Object.entries(resourcesOfType(template, type))) {
        // JSON round trip drops undefined, so an absent property is absent in the snapshot too.
        identity[logicalId] = JSON.parse(JSON.stringify({ Type: type, ...replacing(resource.Properties ?? {}) }));
      }
    }
  }
  return Object.fromEntries(Object.entries(identity).sort(([a], [b]) => a.localeCompare(b)));
}

/** The stages the snapshot keeps: cdk.json's, and prod with a custom domain (docs/deploy.md "Custom domain"). */
const VARIANTS: Record<string, () => ReturnType<typeof synthStage>> = {
  dev: () => synthStage('dev'),
  prod: () => synthStage('prod'),
  'prod with a custom domain': () =>
    synthStage('prod', {
      api: {
        customDomain: { domainName: 'api.example.org', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0b8e3c4a-1d2e-4f5a-9b6c-7d8e9f0a1b2c' },
      },
    }),
};

describe('stateful identity', () => {
  const current: Record<string, Identity> = {};
  for (const [variant, synthesize] of Object.entries(VARIANTS)) {
    const synthesized = synthesize();
    current[variant] = identityOf(synthesized.stateful, synthesized.stateless);
  }
  if (process.env[UPDATE_FLAG] === '1') writeFileSync(SNAPSHOT_PATH, `${JSON.stringify(current, null, 2)}\n`);
  const snapshot = JSON.parse(readFileSync(SNAPSHOT_PATH, 'utf8')) as Record<string, Identity>;

  it.each(Object.keys(VARIANTS))('keeps the logical ids and replacing properties of %s stateful resources', (stage) => {
    expect(
      current[stage],
      `A stateful resource of stage ${stage} would be replaced (a new, empty one) or renamed. If that is a planned migration, ` +
        `rerun with ${UPDATE_FLAG}=1 to rewrite test/infra/stateful-identity.snapshot.json and commit it (docs/deploy.md "Upgrading a stage").`,
    ).toEqual(snapshot[stage]);
  });

  it('retains the API and its usage plans on a durable stage, and deletes them with a dev stack', () => {
    const policies = (stage: string) => {
      const { stateless } = synthStage(stage);
      return ['AWS::ApiGateway::RestApi', 'AWS::ApiGateway::UsagePlan'].flatMap((type) =>
        Object.values(resourcesOfType(stateless, type)).map((resource) => resource.DeletionPolicy),
      );
    };
    expect(new Set(policies('prod'))).toEqual(new Set(['Retain']));
    expect(new Set(policies('dev'))).toEqual(new Set(['Delete']));
  });

  it('retains the dashboard user pool under deletion protection on a durable stage, and deletes it with a dev stack', () => {
    const pool = (stage: string) => resourcesOfType(synthStage(stage).stateful, 'AWS::Cognito::UserPool').DashboardUserPool!;
    expect(pool('prod').DeletionPolicy).toBe('Retain');
    expect(pool('prod').Properties?.DeletionProtection).toBe('ACTIVE');
    expect(pool('dev').DeletionPolicy).toBe('Delete');
    expect(pool('dev').Properties?.DeletionProtection).toBe('INACTIVE');
  });

  it('covers the table, the domain, the queues, the secret, the API, its usage plans, its domain name and the dashboard user pool', () => {
    const types = new Set(Object.values(snapshot['prod with a custom domain'] ?? {}).map((resource) => resource.Type));
    expect([...types].sort()).toEqual(Object.keys(REPLACING_PROPERTIES).sort());
  });
});
