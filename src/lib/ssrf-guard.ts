import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { TargetBlockedError, TargetUnreachableError } from '../errors.js';

/** Resolves a host name to every address it has (the shape of `dns.lookup` with `all: true`). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The IPv4 address in the low 32 bits of an IPv6 address's 16-bit words. */
const low32 = (parts: number[]): ipaddr.IPv4 =>
  new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255]);

/**
 * The IPv4 addresses an IPv6 address carries, wherever a transition scheme puts one: IPv4-compatible
 * (::/96), mapped (::ffff:0:0/96), translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96 and the local-use
 * 64:ff9b:1::/48), 6to4 (2002::/16, bits 16-47), Teredo (2001::/32, the client inverted in the low bits)
 * and ISATAP interface identifiers (…:0:5efe:a.b.c.d and …:200:5efe:a.b.c.d).
 */
function embeddedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = v6.parts;
  const found: ipaddr.IPv4[] = [];
  const zeros = (from: number, to: number): boolean => p.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && (p[5] === 0 || p[5] === 0xffff)) found.push(low32(p));
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) found.push(low32(p));
  if (p[0] === 0x64 && p[1] === 0xff9b) found.push(low32(p));
  if (p[0] === 0x2002) found.push(new ipaddr.IPv4([p[1]! >> 8, p[1]! & 255, p[2]! >> 8, p[2]! & 255]));
  if (p[0] === 0x2001 && p[1] === 0) found.push(low32(p.map((w, i) => (i >= 6 ? w ^ 0xffff : w))));
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) found.push(low32(p));
  return found;
}

/**
 * True for addresses a public fetcher must never reach: loopback, RFC 1918 private, link-local
 * (including the 169.254.169.254 metadata endpoint), CGNAT, unique-local IPv6, multicast, reserved,
 * unspecified, and every IPv6 form that carries an IPv4 address whose IPv4 is one of those. Of the
 * transition ranges only mapped addresses with a public IPv4 pass (a dual-stack socket's form of IPv4);
 * IPv4-compatible addresses (::/96, deprecated) and the NAT64, 6to4 and Teredo ranges are refused whole.
 */
export function isBlockedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() !== 'unicast';
  if (embeddedIpv4(v6).some((v4) => v4.range() !== 'unicast')) return true;
  if (v6.parts.slice(0, 6).every((w) => w === 0)) return true;
  return v6.range() !== 'unicast';
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
 * The addresses of `hostname` a connection may go to: all of them with private networks allowed, else the
 * public ones, refused when there is none. A client that resolves names itself is pinned to exactly these.
 */
export async function guardedAddresses(
  hostname: string,
  options: GuardOptions,
): Promise<{ address: string; family: number }[]> {
  const isBlocked = options.isBlocked ?? isBlockedAddress;
  const addresses = await options.resolver(hostname);
  const allowed = options.allowPrivateNetworks ? addresses : addresses.filter((a) => !isBlocked(a.address));
  if (allowed.length === 0) {
    const shown = addresses.map((a) => a.address).join(', ') || 'no address';
    throw new TargetBlockedError(
      `Refused to connect to ${hostname}: it resolves to a private or reserved address (${shown})`,
    );
  }
  return allowed;
}

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
    guardedAddresses(hostname, options)
      .then((allowed) => {
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

/**
 * The guard of a request handed to a proxy, which resolves the name itself, so that guardedLookup never runs:
 * the name is resolved here with the same resolver first, and refused when any of its addresses is private or
 * reserved (the proxy may connect to any of them). A name that does not resolve here is refused too: what
 * cannot be checked is not fetched.
 */
export async function assertResolvesPublic(hostname: string, options: GuardOptions): Promise<void> {
  if (options.allowPrivateNetworks) return;
  const host = hostname.replace(/^\[|\]$/g, '');
  const isBlocked = options.isBlocked ?? isBlockedAddress;
  if (isIP(host)) {
    if (isBlocked(host))
      throw new TargetBlockedError(`Refused to fetch ${host}: private or reserved address`);
    return;
  }
  let addresses: { address: string }[];
  try {
    addresses = await options.resolver(host);
  } catch (err) {
    throw new TargetUnreachableError(`Could not fetch ${host}: host name could not be resolved`, {
      cause: err,
    });
  }
  if (addresses.length === 0 || addresses.some((a) => isBlocked(a.address))) {
    const shown = addresses.map((a) => a.address).join(', ') || 'no address';
    throw new TargetBlockedError(
      `Refused to connect to ${host}: it resolves to a private or reserved address (${shown})`,
    );
  }
}
