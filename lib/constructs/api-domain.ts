import type { RemovalPolicy } from 'aws-cdk-lib';
import { type CfnDomainName, DomainName, EndpointType, SecurityPolicy } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { CustomDomainSettings } from '../custom-domain-settings';

export interface ApiDomainProps {
  readonly settings: CustomDomainSettings;
  readonly removalPolicy: RemovalPolicy;
  /** The pinned logical id: a new one would replace the domain name, and customers' URL with it. */
  readonly logicalId: string;
}

/**
 * The customers' host name for the API: a regional API Gateway domain name with the stage's
 * certificate, TLS 1.2 at least, and its alias record when the stage names its Route 53 zone. It
 * lives with the data so the API behind it (the stateless stack) can be replaced and remapped
 * without the base URL changing.
 */
export class ApiDomain extends Construct {
  readonly domainName: DomainName;
  /** The host name, e.g. `api.example.org`. */
  readonly hostName: string;

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    const { settings } = props;
    this.hostName = settings.domainName;
    this.domainName = new DomainName(this, 'Name', {
      domainName: settings.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', settings.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    const resource = this.domainName.node.defaultChild as CfnDomainName;
    resource.overrideLogicalId(props.logicalId);
    resource.applyRemovalPolicy(props.removalPolicy);

    if (settings.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: settings.hostedZone.id, zoneName: settings.hostedZone.name });
      new ARecord(this, 'Alias', { zone, recordName: settings.domainName, target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domainName)) });
    }
  }
}
