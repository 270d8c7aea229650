import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** The principal tag a role needs to seal or open webhook secrets (its value names the stage). */
export const WEBHOOK_SECRETS_TAG_KEY = 'gcf-webhook-secrets';

/** Managing the key, never using it: the account may change or schedule deletion of the key, not decrypt with it. */
const KEY_ADMIN_ACTIONS = [
  'kms:Create*',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
];

export interface WebhookSecretKeyProps {
  /** The value of WEBHOOK_SECRETS_TAG_KEY on the roles that may use the key, e.g. `gcf-data-service-prod`. */
  readonly principalTagValue: string;
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The customer-managed key that seals webhook signing secrets (lambdas/adapters/aws/kms-secret-sealer.ts),
 * rotated yearly by KMS. Its policy lets the account administer it but lets only roles tagged
 * for this stage encrypt or decrypt, and only with a subscription as encryption context. The tag
 * admits no one alone: a role also needs kms:Encrypt or kms:Decrypt on this key in its own policy
 * (the webhook sender; an operator role for `admin webhooks --target aws`, docs/deploy.md).
 */
export class WebhookSecretKey extends Construct {
  readonly key: Key;
  readonly principalTag: { readonly key: string; readonly value: string };

  constructor(scope: Construct, id: string, props: WebhookSecretKeyProps) {
    super(scope, id);
    this.principalTag = { key: WEBHOOK_SECRETS_TAG_KEY, value: props.principalTagValue };
    const account = Stack.of(this).account;
    this.key = new Key(this, 'Key', {
      description: 'Seals webhook signing secrets in the records table',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      policy: new PolicyDocument({
        statements: [
          new PolicyStatement({ sid: 'AdministerKey', principals: [new AccountRootPrincipal()], actions: KEY_ADMIN_ACTIONS, resources: ['*'] }),
          new PolicyStatement({
            sid: 'SealAndOpenWebhookSecrets',
            principals: [new AccountRootPrincipal()],
            actions: ['kms:Encrypt', 'kms:Decrypt'],
            resources: ['*'],
            conditions: {
              StringEquals: { [`aws:PrincipalTag/${WEBHOOK_SECRETS_TAG_KEY}`]: props.principalTagValue, 'aws:PrincipalAccount': account },
              Null: { 'kms:EncryptionContext:subscription_id': 'false' },
            },
          }),
        ],
      }),
    });
  }
}
