import net from 'node:net';
import os from 'node:os';

/** `10.1.2.3/8` → `10.0.0.0/8`; a bare address is a /32. Input is validated by the spec already. */
export function normaliseCidr(cidr: string): string {
  const [address, prefixText] = cidr.split('/');
  const prefix = prefixText === undefined ? 32 : Number(prefixText);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return `${intToIpv4((ipv4ToInt(address) & mask) >>> 0)}/${prefix}`;
}

export function ipv4ToInt(address: string): number {
  return address.split('.').reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0);
}

export function intToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

export function cidrContains(cidr: string, address: string): boolean {
  if (!net.isIPv4(address)) return false;
  const [network, prefixText] = normaliseCidr(cidr).split('/');
  const prefix = Number(prefixText);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (ipv4ToInt(address) & mask) >>> 0 === ipv4ToInt(network);
}

/**
 * Destinations the proxy never connects to on a sandbox's behalf unless the address is inside
 * one of the policy's `allow_cidrs`: loopback, private, shared (CGNAT), link-local (cloud metadata
 * lives at 169.254.169.254), multicast, reserved, and their IPv6 counterparts.
 */
const FORBIDDEN_V4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const FORBIDDEN_V6: ReadonlyArray<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96], // IPv4-mapped: checked again as IPv4 below
  ['64:ff9b::', 96], // NAT64 can reach private IPv4 space
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
];

// Two lists: Node's BlockList matches IPv4 addresses against IPv6 rules too (as IPv4-mapped).
const forbiddenV4 = new net.BlockList();
for (const [address, prefix] of FORBIDDEN_V4) forbiddenV4.addSubnet(address, prefix, 'ipv4');
const forbiddenV6 = new net.BlockList();
for (const [address, prefix] of FORBIDDEN_V6) forbiddenV6.addSubnet(address, prefix, 'ipv6');

let hostAddressCache: { at: number; addresses: Set<string> } | null = null;

/** Every address of this machine (Docker bridges, the LAN address…), re-read every few seconds. */
export function hostAddresses(now = Date.now()): Set<string> {
  if (!hostAddressCache || now - hostAddressCache.at > 5000) {
    const addresses = new Set<string>();
    for (const list of Object.values(os.networkInterfaces())) {
      for (const info of list ?? []) addresses.add(info.address.toLowerCase());
    }
    hostAddressCache = { at: now, addresses };
  }
  return hostAddressCache.addresses;
}

/**
 * Why the proxy must not connect to `address` for a sandbox whose policy allows `allowCidrs`,
 * or null when it may. Addresses inside an allowed CIDR are always fine (the policy says so).
 */
export function forbiddenReason(
  address: string,
  allowCidrs: readonly string[],
  ownAddresses: ReadonlySet<string> = hostAddresses(),
): string | null {
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
  if (!family) return 'is not an IP address';
  if (family === 'ipv4' && allowCidrs.some((cidr) => cidrContains(cidr, address))) return null;
  const mapped = family === 'ipv6' ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  if (mapped) return forbiddenReason(mapped, allowCidrs, ownAddresses);
  if (ownAddresses.has(address.toLowerCase())) return 'is an address of the Shoal host';
  if ((family === 'ipv4' ? forbiddenV4 : forbiddenV6).check(address, family))
    return 'is a private, loopback, link-local or reserved address';
  return null;
}
