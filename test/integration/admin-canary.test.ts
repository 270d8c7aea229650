import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApiCheck } from '../../lambdas/canary/api-check';
import { CANARY_ENV } from '../../lambdas/canary/canary-env';
import { handler } from '../../lambdas/canary/handler';
import { CANARY_KEY_LABEL, CANARY_KEY_TIER, parseCanaryKeySecret } from '../../lambdas/core/auth/canary-key';
import { type EmbeddedStack, LOCAL_TABLE_NAME, startEmbeddedStack } from '../../local/embedded-stack';
import { adminAwsEnv } from '../support/admin-aws-env';
import { type ServedApi, serveOverHttp } from '../support/api-server';
import { type StandInSecretsManager, startStandInSecretsManager } from '../support/stand-in-secrets-manager';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ApiCanaryKeySecret-AbCdEf';
const run = promisify(execFile);

/**
 * `admin canary provision --target aws` against stand-ins (the stage's table is dynalite, Secrets
 * Manager a loopback stand-in), then the canary's check and its Synthetics entry over HTTP with
 * the key the secret holds.
 */
describe('admin canary provision --target aws (against local stand-ins)', () => {
  let stack: EmbeddedStack;
  let secrets: StandInSecretsManager;
  let api: ServedApi;
  beforeAll(async () => {
    stack = await startEmbeddedStack({ seed: { funders: 12, grants: 60, contracts: 10, awardedGrants: 4, awardedContracts: 2 }, tableEndpoint: true });
    secrets = await startStandInSecretsManager({ [SECRET_ARN]: '{}' });
    api = await serveOverHttp(stack.services);
  });
  afterAll(async () => {
    await api?.close();
    await secrets?.close();
    await stack?.close();
  });

  const provision = async (...extra: string[]) => {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', 'canary', 'provision', '--target', 'aws', '--table-name', LOCAL_TABLE_NAME, '--secret-id', SECRET_ARN, ...extra],
      {
        timeout: 60_000,
        env: adminAwsEnv(stack, { AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint }),
      },
    );
    return { stdout, stderr };
  };
  const stored = () => parseCanaryKeySecret(secrets.secrets.get(SECRET_ARN))!;

  it('makes a key on the canary tier, stores it in the secret without printing it, and the check passes with it', async () => {
    const { stdout } = await provision();
    const secret = stored();
    expect(stdout).toBe(`key id ${secret.key_id}: made (${CANARY_KEY_TIER}, owner synthetic-canary)\nstored in ${SECRET_ARN}\n`);
    expect(stdout).not.toContain(secret.key);
    expect(await stack.services.keys.get(secret.key_id)).toMatchObject({ tier: CANARY_KEY_TIER, label: CANARY_KEY_LABEL, revoked_at: null });
    await runApiCheck({ baseUrl: api.baseUrl, apiKey: secret.key, searchTerm: 'research' });
  });

  it('rotates that key when run again (--json), the old key honoured for the grace hour', async () => {
    const before = stored();
    const { stdout } = await provision('--json');
    const document = JSON.parse(stdout);
    const after = stored();
    expect(document).toMatchObject({ key_id: before.key_id, rotated: true, tier: CANARY_KEY_TIER, secret_id: SECRET_ARN });
    expect(stdout).not.toContain(after.key);
    expect(after.key_id).toBe(before.key_id);
    expect(after.key).not.toBe(before.key);
    await runApiCheck({ baseUrl: api.baseUrl, apiKey: after.key, searchTerm: 'research' });
    await runApiCheck({ baseUrl: api.baseUrl, apiKey: before.key, searchTerm: 'research' });
  });

  it("the canary's entry reads the key from its secret and runs the check; an empty secret fails saying to provision", async () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      [CANARY_ENV.apiBaseUrl]: api.baseUrl,
      [CANARY_ENV.keySecretArn]: SECRET_ARN,
      [CANARY_ENV.searchTerm]: 'research',
    };
    const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
    Object.assign(process.env, env);
    try {
      await expect(handler()).resolves.toMatch(/^API check passed: \d+ grants matched, grant [0-9a-f-]{36} read, OpenAPI 3\./);
      const provisioned = secrets.secrets.get(SECRET_ARN)!;
      secrets.secrets.set(SECRET_ARN, '{}');
      await expect(handler()).rejects.toThrow(/^The canary key is not provisioned: run `npm run admin -- canary provision --target aws/);
      secrets.secrets.set(SECRET_ARN, provisioned);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('replaces a revoked key with a new one, and says so', async () => {
    const revoked = stored();
    await stack.services.keys.revoke(revoked.key_id, new Date().toISOString());
    const { stdout, stderr } = await provision();
    expect(stored().key_id).not.toBe(revoked.key_id);
    expect(stdout).toMatch(/: made \(pro, owner synthetic-canary\)/);
    expect(stderr).toContain(`the secret named key ${revoked.key_id}, which is revoked or gone: a new key was made`);
  });
});
