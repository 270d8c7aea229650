/** A stage's own host name for the API (cdk.json `api.customDomain`; docs/deploy.md "Custom domain"). */
export interface CustomDomainSettings {
  readonly domainName: string;
  /** An ACM certificate for the name, in the stage's Region (a regional endpoint). */
  readonly certificateArn: string;
  /** A public Route 53 zone holding the name: the stack then adds its alias record. Without it, point the name at the `ApiDomainTarget` output yourself. */
  readonly hostedZone?: { readonly id: string; readonly name: string };
}

const HOST_NAME_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN_PATTERN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]{36}$/;

/** The settings as given, or an error naming the key that cannot be served. */
export function checkCustomDomain(domain: CustomDomainSettings): CustomDomainSettings {
  if (!HOST_NAME_PATTERN.test(domain.domainName)) {
    throw new Error(`Api: customDomain.domainName must be a lower-case host name such as api.example.org, not ${JSON.stringify(domain.domainName)}`);
  }
  if (!CERTIFICATE_ARN_PATTERN.test(domain.certificateArn)) {
    throw new Error(`Api: customDomain.certificateArn must be an ACM certificate ARN, not ${JSON.stringify(domain.certificateArn)}`);
  }
  const zone = domain.hostedZone;
  if (zone && !(domain.domainName === zone.name || domain.domainName.endsWith(`.${zone.name}`))) {
    throw new Error(`Api: customDomain.domainName ${domain.domainName} is not inside the hosted zone ${zone.name}`);
  }
  if (zone && !/^Z[A-Z0-9]{1,31}$/.test(zone.id)) {
    throw new Error(`Api: customDomain.hostedZone.id must be a Route 53 zone id such as Z0123456789ABC, not ${JSON.stringify(zone.id)}`);
  }
  return domain;
}
