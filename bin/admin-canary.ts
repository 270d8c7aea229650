// `npm run admin -- canary provision --target aws --stage S`: the synthetic canary's API key, made
// (or rotated) in the stage's table and stored in the canary's secret. The key itself is never printed.
import { randomBytes } from 'node:crypto';
import { type Command, Option } from 'commander';
import { CANARY_KEY_TIER, parseCanaryKeySecret } from '../lambdas/core/auth/canary-key';
import { CANARY_ROTATION_GRACE_HOURS, provisionCanaryKey } from '../lambdas/core/use-cases/provision-canary-key';
import { awsCanaryKeyPorts } from '../local/aws-canary-target';
import { type AdminContext, note } from './admin-context';
import { emit, type OutputOptions, withJsonOption } from './admin-output';
import { withStageOptions } from './admin-targets';

interface ProvisionOptions extends OutputOptions {
  target: 'aws';
  stage: string;
  region?: string;
  tableName?: string;
  secretId?: string;
}

export function addCanaryCommands(program: Command, context: AdminContext): void {
  const canary = program.command('canary').description("the synthetic canary's API key");

  withStageOptions(
    withJsonOption(canary.command('provision'))
      .description(
        `make the canary's key (tier ${CANARY_KEY_TIER}) and store it in its secret; run again, it rotates that key (the old one works ${CANARY_ROTATION_GRACE_HOURS} h more)`,
      )
      // The canary runs only on a deployed stage: aws is the only target, and the default.
      .addOption(new Option('--target <target>', 'aws: a deployed stage').choices(['aws']).default('aws')),
  )
    .option('--table-name <name>', 'aws: the records table, skipping the stack lookup')
    .option('--secret-id <arn>', "aws: the canary's key secret, skipping the stack lookup")
    .action(async (opts: ProvisionOptions) => {
      const ports = await awsCanaryKeyPorts(opts);
      try {
        const stored = parseCanaryKeySecret(await ports.readSecret());
        const provisioned = await provisionCanaryKey(ports.keys, stored, randomBytes, new Date());
        await ports.writeSecret(JSON.stringify(provisioned.secret));
        const { record } = provisioned;
        emit(
          context,
          opts,
          {
            key_id: record.key_id,
            prefix: record.prefix,
            tier: record.tier,
            rotated: provisioned.rotated,
            previous_valid_until: record.previous_valid_until,
            secret_id: ports.secretId,
          },
          () => [
            provisioned.rotated
              ? `key id ${record.key_id}: rotated; the old key works until ${record.previous_valid_until}`
              : `key id ${record.key_id}: made (${record.tier}, owner ${record.owner})`,
            `stored in ${ports.secretId}`,
          ],
        );
        if (!provisioned.rotated && stored) note(context, `the secret named key ${stored.key_id}, which is revoked or gone: a new key was made`);
      } finally {
        ports.close();
      }
    });
}
