import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoWebhookStore, SUBSCRIPTIONS_PARTITION, WEBHOOK_ENTITY } from '../../lambdas/adapters/aws/dynamo-webhook-store';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { SECRETS_WITHHELD, SecretsWithheld } from '../../lambdas/ports/secret-sealer';
import type { WebhookSubscription } from '../../lambdas/ports/webhook-store';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';

const TABLE = 'gcf-records';

const subscription = (id: string, secret: string): WebhookSubscription => ({
  subscription_id: id,
  key_id: 'key_1',
  url: `https://hooks.example.org/${id}`,
  events: ['grant.created'],
  days_before: 7,
  state: 'active',
  disabled_reason: null,
  secret,
  previous_secret: null,
  previous_secret_valid_until: null,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
});

/** The webhook store with a sealer: what lands in the table, and the migration of plaintext secrets. */
describe('webhook secrets in the records table', () => {
  let table: DynaliteTable;
  let doc: DynamoDBDocumentClient;
  const sealer = new LocalSecretSealer();
  const stored = async (id: string) =>
    (await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: SUBSCRIPTIONS_PARTITION, sk: `subscription#${id}` } }))).Item!;

  beforeAll(async () => {
    table = await startDynaliteTable(TABLE);
    doc = DynamoDBDocumentClient.from(table.client());
  });
  afterAll(async () => {
    await table?.close();
  });

  it('stores secrets sealed and returns them open', async () => {
    const store = new DynamoWebhookStore(table.client(), TABLE, sealer);
    await store.create(subscription('whk_new', 'whsec_new'));
    const item = await stored('whk_new');
    expect(sealer.isSealed(String(item.secret))).toBe(true);
    expect(JSON.stringify(item)).not.toContain('whsec_new');
    expect((await store.get('whk_new'))!.secret).toBe('whsec_new');

    const rotated = await store.update('whk_new', {
      secret: 'whsec_next',
      previous_secret: 'whsec_new',
      previous_secret_valid_until: '2026-11-02T00:00:00.000Z',
    });
    expect(rotated).toMatchObject({ secret: 'whsec_next', previous_secret: 'whsec_new' });
    expect(JSON.stringify(await stored('whk_new'))).not.toMatch(/whsec_/);
    expect((await store.list('key_1')).find((s) => s.subscription_id === 'whk_new')!.secret).toBe('whsec_next');
  });

  it('reads a plaintext secret from before sealing, and seals it on the next write', async () => {
    await doc.send(
      new PutCommand({
        TableName: TABLE,
        Item: { pk: SUBSCRIPTIONS_PARTITION, sk: 'subscription#whk_old', entity: WEBHOOK_ENTITY, ...subscription('whk_old', 'whsec_old') },
      }),
    );
    const store = new DynamoWebhookStore(table.client(), TABLE, sealer);
    expect((await store.get('whk_old'))!.secret).toBe('whsec_old');
    expect((await stored('whk_old')).secret).toBe('whsec_old');

    const updated = await store.update('whk_old', { failing_since: '2026-11-03T00:00:00.000Z' });
    expect(updated.secret).toBe('whsec_old');
    expect(sealer.isSealed(String((await stored('whk_old')).secret))).toBe(true);
    expect((await store.get('whk_old'))!.secret).toBe('whsec_old');
  });

  it('gives a function without the key its subscriptions with the secrets sealed, and refuses its secret writes', async () => {
    const withheld = new DynamoWebhookStore(table.client(), TABLE, SECRETS_WITHHELD);
    const read = await withheld.get('whk_new');
    expect(read!.secret).not.toContain('whsec_');
    expect(read!.state).toBe('active');
    await expect(withheld.create(subscription('whk_refused', 'whsec_x'))).rejects.toBeInstanceOf(SecretsWithheld);
    expect(await withheld.get('whk_refused')).toBeNull();
    // State changes (a 410 Gone) need no key.
    expect((await withheld.update('whk_new', { state: 'disabled', disabled_reason: 'gone' })).state).toBe('disabled');
  });
});
