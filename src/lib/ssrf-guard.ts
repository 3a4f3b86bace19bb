import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { TargetBlockedError } from '../errors.js';

/** Resolves a host name to every address it has (the shape of `dns.lookup` with `all: true`). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * True for addresses a public fetcher must never reach: loopback, RFC 1918 private, link-local
 * (including the 169.254.169.254 metadata endpoint), CGNAT, unique-local IPv6, multicast, reserved,
 * unspecified, and IPv4 addresses smuggled inside IPv6 (mapped, 6to4, Teredo, NAT64).
 */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() !== 'unicast';
}

export interface GuardOptions {
  allowPrivateNetworks: boolean;
  resolver: Resolver;
  /** Address policy; defaults to isBlockedAddress. Tests narrow it to declare the fixture's address public. */
  isBlocked?: (address: string) => boolean;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;
type LookupAllCallback = (
  err: NodeJS.ErrnoException | null,
  addresses: { address: string; family: number }[],
) => void;

/**
 * A `lookup` for net/tls connect that resolves once and refuses blocked addresses. The socket
 * connects to exactly the address checked here, so DNS rebinding has no window between check and use.
 */
export function guardedLookup(options: GuardOptions) {
  return (
    hostname: string,
    opts: { all?: boolean } | number | undefined,
    callback: LookupCallback | LookupAllCallback,
  ): void => {
    const all = typeof opts === 'object' && opts !== null && opts.all === true;
    const isBlocked = options.isBlocked ?? isBlockedAddress;
    options
      .resolver(hostname)
      .then((addresses) => {
        const allowed = options.allowPrivateNetworks
          ? addresses
          : addresses.filter((a) => !isBlocked(a.address));
        if (allowed.length === 0) {
          const shown = addresses.map((a) => a.address).join(', ') || 'no address';
          throw new TargetBlockedError(
            `Refused to connect to ${hostname}: it resolves to a private or reserved address (${shown})`,
          );
        }
        if (all) (callback as LookupAllCallback)(null, allowed);
        else (callback as LookupCallback)(null, allowed[0]!.address, allowed[0]!.family);
      })
      .catch((err: NodeJS.ErrnoException) => (callback as LookupCallback)(err, '', 0));
  };
}

/**
 * Checks what can be checked before connecting: the scheme, embedded credentials, and IP-literal
 * hosts (which never pass through `lookup`). Named hosts are checked at connect time by guardedLookup.
 */
export function assertTargetAllowed(url: URL, options: GuardOptions): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TargetBlockedError(`Refused URL scheme '${url.protocol}': only http and https are fetched`);
  }
  if (options.allowPrivateNetworks) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && (options.isBlocked ?? isBlockedAddress)(host)) {
    throw new TargetBlockedError(`Refused to fetch ${url.host}: private or reserved address`);
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    throw new TargetBlockedError(`Refused to fetch ${url.host}: loopback host name`);
  }
}
