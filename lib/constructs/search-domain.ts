import type { RemovalPolicy } from 'aws-cdk-lib';
import { EbsDeviceVolumeType } from 'aws-cdk-lib/aws-ec2';
import { CfnDomain, Domain, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
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
 * fine-grained access control): callers get identity-based grants, so the domain has no resource
 * policy of its own.
 */
export class SearchDomain extends Construct {
  readonly domain: Domain;

  constructor(scope: Construct, id: string, props: SearchDomainProps) {
    super(scope, id);
    const { settings } = props;
    const zoneAware = settings.availabilityZoneCount > 1;

    this.domain = new Domain(this, 'Domain', {
      version: settings.engineVersion,
      capacity: {
        dataNodeInstanceType: settings.dataNodeInstanceType,
        dataNodes: settings.dataNodeCount,
        // Multi-AZ with standby needs dedicated masters and 3 AZs; the feature flag would turn it on
        // by default and break small domains, so the choice is explicit here.
        multiAzWithStandbyEnabled: false,
      },
      zoneAwareness: zoneAware
        ? { enabled: true, availabilityZoneCount: settings.availabilityZoneCount }
        : { enabled: false },
      ebs: {
        enabled: true,
        volumeSize: settings.ebsVolumeSizeGiB,
        volumeType: EbsDeviceVolumeType.GP3,
      },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2,
      removalPolicy: props.removalPolicy,
    });

    (this.domain.node.defaultChild as CfnDomain).overrideLogicalId(props.logicalId);
  }
}
