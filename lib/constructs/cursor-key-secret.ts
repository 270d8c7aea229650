import type { RemovalPolicy } from 'aws-cdk-lib';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface CursorKeySecretProps {
  /** The stage's policy for stateful resources: a retained key keeps cursors valid across a stack replacement. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The key list cursors are signed with (deep paging: lambdas/core/query/list-cursor.ts), generated
 * by Secrets Manager at deploy time (64 letters and digits: about 380 bits) so it never appears in
 * the template, the code or a log. Only the list functions may read it
 * (ServiceFunction.bindCursorKey). Not rotated: a cursor lives 24 hours and carries nothing
 * secret, and a rotation would only end the walks under way (the remedy for a leaked key is the
 * same: put a new value; every cursor signed with the old one is then a 400, start again).
 */
export class CursorKeySecret extends Construct {
  readonly secret: ISecret;

  constructor(scope: Construct, id: string, props: CursorKeySecretProps) {
    super(scope, id);
    const secret = new Secret(this, 'Secret', {
      description: "Signing key of the list API's pagination cursors (HMAC-SHA256); read by the list functions at cold start",
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    secret.applyRemovalPolicy(props.removalPolicy);
    this.secret = secret;
  }
}
