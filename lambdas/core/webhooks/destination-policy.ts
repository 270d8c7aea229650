import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be delivered. A subscriber's URL must never reach into our own network: a
 * URL that names or resolves to a private, loopback, link-local (cloud metadata lives there) or
 * otherwise non-public address is refused, at registration and again at every delivery, since a
 * name can resolve elsewhere later (DNS rebinding). In AWS mode only https is allowed; in local
 * mode plain http is allowed to loopback only, so developers can receive on their own machine.
 */

export type DestinationMode = 'aws' | 'local';

export const URL_MAX_LENGTH = 2048;

export class DestinationRefused extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`webhook URL refused: ${reason}`);
    this.name = 'DestinationRefused';
  }
}

// Metadata endpoints of the big clouds, named in the refusal so an operator knows what was tried.
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '169.254.170.2']);
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain']);

/** The URL, parsed, when its form is allowed (scheme, no credentials, a host); DNS is checked separately. */
export function parseWebhookUrl(raw: string, mode: DestinationMode): URL {
  if (raw.length > URL_MAX_LENGTH) throw new DestinationRefused(raw, `longer than ${URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused(raw, 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new DestinationRefused(raw, `scheme ${url.protocol.replace(/:$/, '')} is not allowed; use https`);
  if (url.username || url.password) throw new DestinationRefused(raw, 'credentials in the URL are not allowed; authenticate by verifying the signature');
  if (url.hostname === '') throw new DestinationRefused(raw, 'no host');
  const host = hostOf(url);
  // An address literal is judged first: "a cloud metadata address" says more than "use https".
  if (ipaddr.isValid(host)) checkAddress(raw, host, mode);
  if (url.protocol === 'http:') {
    if (mode === 'aws') throw new DestinationRefused(raw, 'plain http is not allowed; use https');
    if (!isLoopbackHost(host))
      throw new DestinationRefused(raw, 'plain http is allowed only to a loopback address (localhost, 127.0.0.1, ::1) in local mode; use https');
  }
  if (!ipaddr.isValid(host) && mode === 'aws' && (LOOPBACK_NAMES.has(host.toLowerCase()) || host.toLowerCase().endsWith('.localhost'))) {
    throw new DestinationRefused(raw, `${host} is a loopback name`);
  }
  return url;
}

/** The host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function isLoopbackHost(host: string): boolean {
  if (LOOPBACK_NAMES.has(host.toLowerCase())) return true;
  return ipaddr.isValid(host) && rangeOf(host) === 'loopback';
}

function rangeOf(address: string): string {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    // ::a.b.c.d (RFC 4291's deprecated IPv4-compatible form) is called unicast by ipaddr.js, yet some stacks route it to the IPv4 address.
    else if (v6.range() === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  }
  return parsed.range();
}

/**
 * Refuses an address a delivery must not reach: anything but a public unicast address, except
 * loopback in local mode. Throws DestinationRefused naming the range.
 */
export function checkAddress(url: string, address: string, mode: DestinationMode): void {
  if (!ipaddr.isValid(address)) throw new DestinationRefused(url, `${address} is not an IP address`);
  const normal = ipaddr.process(address).toString();
  if (CLOUD_METADATA.has(normal)) throw new DestinationRefused(url, `${address} is a cloud metadata address`);
  const range = rangeOf(address);
  if (range === 'unicast') return;
  if (range === 'loopback' && mode === 'local') return;
  const names: Record<string, string> = {
    loopback: 'a loopback address',
    private: 'a private address',
    uniqueLocal: 'a private (unique local) address',
    linkLocal: 'a link-local address',
    carrierGradeNat: 'a shared (carrier-grade NAT) address',
    unspecified: 'the unspecified address',
    multicast: 'a multicast address',
    broadcast: 'the broadcast address',
    reserved: 'a reserved address',
    ipv4Compatible: 'an IPv4-compatible IPv6 address (deprecated; it may reach the IPv4 address inside)',
  };
  throw new DestinationRefused(url, `${address} is ${names[range] ?? `not a public address (${range})`}`);
}

export interface ResolvedDestination {
  url: URL;
  /** The checked addresses; a delivery connects to one of these, never to a fresh lookup's answer. */
  addresses: string[];
}

/**
 * The URL's form and every address its host resolves to, checked: all must be allowed, since a
 * client may connect to any of them. A host that does not resolve is refused too.
 */
export async function resolveDestination(
  raw: string,
  mode: DestinationMode,
  resolver: { resolve(host: string): Promise<string[]> },
): Promise<ResolvedDestination> {
  const url = parseWebhookUrl(raw, mode);
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return { url, addresses: [ipaddr.process(host).toString()] };
  let addresses: string[];
  try {
    addresses = await resolver.resolve(host);
  } catch (error) {
    throw new DestinationRefused(raw, `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (addresses.length === 0) throw new DestinationRefused(raw, `${host} does not resolve`);
  for (const address of addresses) checkAddress(raw, address, mode);
  return { url, addresses };
}
