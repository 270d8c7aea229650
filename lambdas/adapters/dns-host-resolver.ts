import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../ports/host-resolver';

/** The operating system's resolver (getaddrinfo), every address in the order it gives them. */
export const dnsHostResolver: HostResolver = {
  async resolve(host) {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.map((entry) => entry.address);
  },
};
