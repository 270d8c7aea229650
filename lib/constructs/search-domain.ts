import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { EbsDeviceVolumeType } from 'aws-cdk-lib/aws-ec2';
import { AccountRootPrincipal, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, ResourcePolicy } from 'aws-cdk-lib/aws-logs';
import { type CfnDomain, Domain, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';
import type { SearchDomainSettings } from '../config';

export interface SearchDomainProps {
  readonly settings: SearchDomainSettings;
  readonly removalPolicy: RemovalPolicy;
  /**
   * Pins the CloudFormation logical ID so moving this construct in the tree never replaces the
   * domain (a replacement would drop the whole index).
   */
  readonly logicalId: string;
}

/**
 * The OpenSearch domain behind list/filter/sort/count/search. Access is IAM-only (SigV4, no
 * fine-grained access control): the domain's access policy admits only signed requests of this
 * account's IAM principals, and each function's role grants it exactly the HTTP methods and paths
 * it needs (ServiceFunction.bindSearchDomain*). Anonymous and other accounts' requests are refused.
 */
export class SearchDomain extends Construct {
  readonly domain: Domain;
  /** The key of the data at rest, when the stage asks for a customer-managed one. */
  readonly encryptionKey?: Key;
  /** Queries and index writes over the slow-log thresholds (set per index), and the domain's error log. */
  readonly logGroups: { readonly slowSearch: LogGroup; readonly slowIndex: LogGroup; readonly application: LogGroup };

  constructor(scope: Construct, id: string, props: SearchDomainProps) {
    super(scope, id);
    const { settings } = props;
    const zoneAware = settings.availabilityZoneCount > 1;

    const logGroup = (logId: string) => new LogGroup(this, logId, { retention: settings.logRetention, removalPolicy: props.removalPolicy });
    this.logGroups = { slowSearch: logGroup('SlowSearchLogs'), slowIndex: logGroup('SlowIndexLogs'), application: logGroup('ErrorLogs') };
    // OpenSearch may write to the groups only with a CloudWatch Logs resource policy. A plain
    // AWS::Logs::ResourcePolicy, instead of the one CDK would apply through a custom-resource
    // function, scoped to this account's domains. (A region holds at most 10 such policies.)
    const stack = Stack.of(this);
    const logsPolicy = new ResourcePolicy(this, 'LogsPolicy', {
      policyStatements: [
        new PolicyStatement({
          principals: [new ServicePrincipal('es.amazonaws.com')],
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: Object.values(this.logGroups).map((group) => group.logGroupArn),
          conditions: {
            StringEquals: { 'aws:SourceAccount': stack.account },
            ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:es:${stack.region}:${stack.account}:domain/*` },
          },
        }),
      ],
    });

    if (settings.encryptionKey === 'customer-managed') {
      this.encryptionKey = new Key(this, 'EncryptionKey', {
        description: 'Encrypts the search domain data at rest',
        enableKeyRotation: true,
        removalPolicy: props.removalPolicy,
      });
    }

    this.domain = new Domain(this, 'Domain', {
      version: settings.engineVersion,
      // A higher engine version in stage config then upgrades the domain in place; without it CloudFormation replaces the domain.
      enableVersionUpgrade: true,
      capacity: {
        dataNodeInstanceType: settings.dataNodeInstanceType,
        dataNodes: settings.dataNodeCount,
        ...(settings.dedicatedMasters ? { masterNodes: settings.dedicatedMasters.count, masterNodeInstanceType: settings.dedicatedMasters.instanceType } : {}),
        // Multi-AZ with standby needs dedicated masters and 3 AZs; the feature flag would turn it on
        // by default and break small domains, so the choice is explicit here.
        multiAzWithStandbyEnabled: false,
      },
      zoneAwareness: zoneAware ? { enabled: true, availabilityZoneCount: settings.availabilityZoneCount } : { enabled: false },
      ebs: {
        enabled: true,
        volumeSize: settings.ebsVolumeSizeGiB,
        volumeType: EbsDeviceVolumeType.GP3,
      },
      encryptionAtRest: { enabled: true, kmsKey: this.encryptionKey },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2,
      logging: {
        slowSearchLogEnabled: true,
        slowSearchLogGroup: this.logGroups.slowSearch,
        slowIndexLogEnabled: true,
        slowIndexLogGroup: this.logGroups.slowIndex,
        appLogEnabled: true,
        appLogGroup: this.logGroups.application,
      },
      suppressLogsResourcePolicy: true,
      removalPolicy: props.removalPolicy,
    });
    this.domain.node.addDependency(logsPolicy);

    // Applied by CDK after the domain exists (its ARN names it); identity policies then decide.
    this.domain.addAccessPolicies(
      new PolicyStatement({
        principals: [new AccountRootPrincipal()],
        actions: ['es:ESHttp*'],
        resources: [`${this.domain.domainArn}/*`],
      }),
    );

    (this.domain.node.defaultChild as CfnDomain).overrideLogicalId(props.logicalId);
  }
}
