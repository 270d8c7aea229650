import { describe, expect, it } from 'vitest';
import { WEBHOOK_SECRETS_TAG_KEY } from '../../lib/constructs/webhook-secret-key';
import { type CfnResource, resourcesOfType, synthStage } from './synth-stacks';

type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string[]>> };

/** Issue 42 item 4: each function group reaches only the table items and index paths it needs. */
describe('least privilege of the function roles', () => {
  const { stateful, stateless } = synthStage('prod');
  const lambdas = resourcesOfType(stateless, 'AWS::Lambda::Function');
  const policies = resourcesOfType(stateless, 'AWS::IAM::Policy');

  function statementsOf(handler: string): Statement[] {
    const fn = Object.values(lambdas).find((resource) => String(resource.Properties?.Description).endsWith(`(lambdas/handlers/${handler})`));
    expect(fn, handler).toBeDefined();
    const role = (fn!.Properties!.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    return Object.values(policies)
      .filter((policy: CfnResource) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${role}"`))
      .flatMap((policy) => (policy.Properties!.PolicyDocument as { Statement: Statement[] }).Statement);
  }
  const actionsOf = (statement: Statement) => [statement.Action].flat();
  /** Statements on table items (the stream's own actions left out). */
  const STREAM_ACTIONS = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];
  const tableStatements = (handler: string) =>
    statementsOf(handler).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:') && !STREAM_ACTIONS.includes(a)));
  const domainStatements = (handler: string) => statementsOf(handler).filter((s) => actionsOf(s).some((a) => a.startsWith('es:')));
  /** The index paths of a statement, as the text after the domain ARN (`gcf-grants/_search`). */
  const domainPaths = (statement: Statement) =>
    [statement.Resource].flat().map((resource) => {
      const joined = (resource as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      return String(joined[joined.length - 1]).replace(/^\//, '');
    });
  const leadingKeysOf = (statement: Statement) => statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
  /** IAM's StringLike: `*` matches any run of characters. */
  const matchesAny = (patterns: string[], value: string) =>
    patterns.some((pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value));
  /** Partition keys of the items the read routes must never see (lambdas/adapters/aws/*.ts key designs). */
  const PRIVATE_PARTITIONS = [
    'apikey#k1',
    'apikeyhash#abc',
    'apikeyidem#abc',
    'webhooks',
    'webhookurl#k1#abc',
    'delivery#d1',
    'usage#k1',
    'reqlog#k1',
    'event#e1',
    'deadline-sent#m',
  ];

  it.each(['get-grant.ts', 'get-contract.ts', 'get-funder.ts'])(
    '%s gets record items only: no Scan, no Query, leading keys grant#/contract#/funder#',
    (handler) => {
      const records = tableStatements(handler).filter((s) => !/usage#|reqlog#/.test(JSON.stringify(s.Condition)));
      expect(records).toHaveLength(1);
      expect(actionsOf(records[0]!).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem']);
      expect(leadingKeysOf(records[0]!)).toEqual(['grant#*', 'contract#*', 'funder#*']);
      for (const partition of PRIVATE_PARTITIONS) expect(matchesAny(leadingKeysOf(records[0]!)!, partition), partition).toBe(false);
      // Every table statement of the route carries a leading-key condition, and none allows Scan.
      for (const statement of tableStatements(handler)) {
        expect(leadingKeysOf(statement)).toBeDefined();
        expect(actionsOf(statement)).not.toContain('dynamodb:Scan');
        expect(matchesAny(leadingKeysOf(statement)!, 'webhooks')).toBe(false);
        expect(matchesAny(leadingKeysOf(statement)!, 'apikey#k1')).toBe(false);
      }
    },
  );

  it.each(['list-grants.ts', 'list-contracts.ts', 'list-funders.ts', 'semantic-search.ts', 'match-grants.ts'])(
    '%s may only GET/HEAD the service indices and POST their read APIs; no key, webhook or record items',
    (handler) => {
      const domain = domainStatements(handler);
      expect(domain.flatMap(actionsOf).sort()).toEqual(['es:ESHttpGet', 'es:ESHttpHead', 'es:ESHttpPost']);
      for (const statement of domain) {
        for (const path of domainPaths(statement)) {
          if (actionsOf(statement).includes('es:ESHttpPost')) expect(path).toMatch(/^gcf-(grants|contracts|funders)\/(_search|_msearch|_count|_mget)$/);
          else expect(path).toMatch(/^(_alias\/)?gcf-(grants|contracts|funders)(-v\*)?(\/\*)?$/);
        }
      }
      // Their only table access is the usage counters, and writing (never reading) the request log.
      const table = tableStatements(handler).map((s) => [leadingKeysOf(s), actionsOf(s).sort()]);
      expect(table).toEqual([
        [['usage#*'], ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']],
        [['reqlog#*'], ['dynamodb:PutItem']],
      ]);
    },
  );

  it('lets the indexer write the service indices and _bulk, never DELETE, and touch only outbox and backlog items', () => {
    const domain = domainStatements('index-record-changes.ts');
    expect(domain.flatMap(actionsOf)).not.toContain('es:ESHttpDelete');
    expect(domain.flatMap(actionsOf)).not.toContain('es:ESHttp*');
    const paths = domain.flatMap(domainPaths);
    expect(paths).toContain('_bulk');
    for (const path of paths) expect(path).toMatch(/^(_bulk|(_alias\/)?gcf-(grants|contracts|funders)(-v\*)?(\/\*|\/_(search|msearch|count|mget))?)$/);
    const writes = tableStatements('index-record-changes.ts').filter((s) => actionsOf(s).includes('dynamodb:PutItem'));
    expect(writes).toHaveLength(1);
    expect(leadingKeysOf(writes[0]!)).toEqual(['event#*', 'vector-backlog#*']);
    for (const statement of tableStatements('index-record-changes.ts')) {
      expect(leadingKeysOf(statement)).toBeDefined();
      expect(actionsOf(statement)).not.toContain('dynamodb:DeleteItem');
    }
  });

  it('lets the vector backfill read records and its backlog by leading key, without Scan', () => {
    const table = tableStatements('backfill-vectors.ts');
    for (const statement of table) {
      expect(leadingKeysOf(statement)).toBeDefined();
      expect(actionsOf(statement)).not.toContain('dynamodb:Scan');
    }
    const queries = table.filter((s) => actionsOf(s).includes('dynamodb:Query'));
    expect(queries.map(leadingKeysOf)).toEqual([['vector-backlog#*']]);
    expect(domainStatements('backfill-vectors.ts').flatMap(actionsOf)).not.toContain('es:ESHttpDelete');
  });

  describe('the webhook secret key', () => {
    const keys = Object.values(resourcesOfType(stateful, 'AWS::KMS::Key')).filter((key) => String(key.Properties?.Description).includes('webhook'));
    const key = keys[0]!;
    const keyStatements = (key.Properties!.KeyPolicy as { Statement: Statement[] }).Statement;
    const CRYPTO = ['kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey', 'kms:GenerateDataKey*', 'kms:*'];

    it('is customer-managed, rotated, and kept with the stage data', () => {
      expect(keys).toHaveLength(1);
      expect(key.Properties).toMatchObject({ EnableKeyRotation: true });
      expect(key.DeletionPolicy).toBe('Retain');
      expect(
        Object.values(stateful.toJSON().Outputs as Record<string, { Value: unknown }>).some((output) =>
          JSON.stringify(output.Value).includes('WebhookSecrets'),
        ),
      ).toBe(true);
    });

    it('lets the account administer it but use it only as a role tagged for this stage, with a subscription as context', () => {
      for (const statement of keyStatements) expect(statement.Effect).toBe('Allow');
      const using = keyStatements.filter((statement) => actionsOf(statement).some((action) => CRYPTO.includes(action)));
      expect(using).toHaveLength(1);
      expect(actionsOf(using[0]!).sort()).toEqual(['kms:Decrypt', 'kms:Encrypt']);
      expect(using[0]!.Condition).toMatchObject({
        StringEquals: { [`aws:PrincipalTag/${WEBHOOK_SECRETS_TAG_KEY}`]: 'gcf-data-service-prod' },
        Null: { 'kms:EncryptionContext:subscription_id': 'false' },
      });
    });

    it('is granted to the webhook sender alone, for Decrypt, and the sender carries the tag', () => {
      const granted = Object.values(lambdas)
        .map((fn) => String(fn.Properties?.Description).match(/\((lambdas\/handlers\/[a-z-]+\.ts)\)$/)?.[1])
        .filter((entry): entry is string => entry !== undefined)
        .filter((entry) =>
          statementsOf(entry.replace('lambdas/handlers/', '')).some((statement) => actionsOf(statement).some((action) => action.startsWith('kms:'))),
        );
      expect(granted).toEqual(['lambdas/handlers/send-webhooks.ts']);
      const kms = statementsOf('send-webhooks.ts').filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')));
      expect(kms.flatMap(actionsOf)).toEqual(['kms:Decrypt']);
      const senderRole = Object.entries(resourcesOfType(stateless, 'AWS::IAM::Role')).filter(([, role]) =>
        JSON.stringify(role.Properties?.Tags ?? []).includes(WEBHOOK_SECRETS_TAG_KEY),
      );
      expect(senderRole).toHaveLength(1);
      expect(senderRole[0]![1].Properties!.Tags).toEqual(expect.arrayContaining([{ Key: WEBHOOK_SECRETS_TAG_KEY, Value: 'gcf-data-service-prod' }]));
      expect(senderRole[0]![0]).toMatch(/^WebhooksSender/);
    });
  });
});

describe('the search domain at rest', () => {
  const domainOf = (stage: string) => {
    const { stateful } = synthStage(stage);
    const domain = Object.values(resourcesOfType(stateful, 'AWS::OpenSearchService::Domain'))[0]!;
    return { stateful, options: domain.Properties!.EncryptionAtRestOptions as { Enabled: boolean; KmsKeyId?: { Ref?: string } } };
  };

  it('is encrypted with a rotated customer-managed key in prod, retained with the domain', () => {
    const { stateful, options } = domainOf('prod');
    expect(options.Enabled).toBe(true);
    const keyId = options.KmsKeyId?.Ref;
    expect(keyId).toBeDefined();
    const key = resourcesOfType(stateful, 'AWS::KMS::Key')[keyId!]!;
    expect(key.Properties).toMatchObject({ EnableKeyRotation: true, Description: 'Encrypts the search domain data at rest' });
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('keeps the AWS-owned key on throwaway dev stages, and either is a stage option', () => {
    expect(domainOf('dev').options).toEqual({ Enabled: true });
    const chosen = synthStage('dev', { search: { encryptionKey: 'customer-managed' } }).stateful;
    const domain = Object.values(resourcesOfType(chosen, 'AWS::OpenSearchService::Domain'))[0]!;
    expect((domain.Properties!.EncryptionAtRestOptions as { KmsKeyId?: unknown }).KmsKeyId).toBeDefined();
  });
});
