import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never reach (SSRF): private, loopback, link-local (including the cloud
 * metadata address 169.254.169.254), CGNAT, unique-local IPv6, multicast and reserved ranges.
 * An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is checked against the IPv4 ranges (BlockList
 * maps it), so a private IPv4 cannot hide inside one. Ranges that embed or translate to an IPv4
 * address are refused whole, as the embedded address could be private: NAT64 (64:ff9b::/96 and the
 * local-use 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo with the rest of the IETF protocol
 * assignments (2001::/32, whose server and client fields carry IPv4 addresses).
 */
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blockedV4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2002::', 16],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blockedV6.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  if (family === 4) return blockedV4.check(address, 'ipv4');
  return blockedV6.check(address, 'ipv6') || blockedV4.check(address, 'ipv6');
}
