import { Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  readonly displayName: string;
  /** A customer-managed key whose policy lets cloudwatch.amazonaws.com use it. */
  readonly key: IKey;
  /** Subscribed by e-mail; none without it. */
  readonly email?: string;
}

/** An encrypted, TLS-only SNS topic that only this account's CloudWatch alarms may publish to. */
export class AlarmTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.topic = new Topic(this, 'Resource', { displayName: props.displayName, masterKey: props.key, enforceSSL: true });
    // The topic policy CDK writes for enforceSSL replaces SNS's default one: say who may publish.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowThisAccountsAlarms',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*` },
        },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }
}
