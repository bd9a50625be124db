/** Link-local addresses, where cloud hosts serve their instance credentials: no OAuth request goes there. */
import { BlockList } from 'node:net';

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

/** Whether `host` is a link-local IP address (IPv4-mapped IPv6 included); false for a name. */
export function isLinkLocal(host: string): boolean {
  const family = host.includes(':') ? 'ipv6' : /^[\d.]+$/.test(host) ? 'ipv4' : undefined;
  return family !== undefined && LINK_LOCAL.check(host, family);
}

/** An OAuth address refused before any connection; its message says why, naming only the host. */
export class UnsafeOAuthUrlError extends Error {
  override name = 'UnsafeOAuthUrlError';
}
