import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseRange(entry: string): Range | null {
  try {
    if (entry.includes("/")) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  } catch {
    return null;
  }
}

/**
 * Whether every address of `entry` (an address or CIDR range in its stored, normalised form) lies inside
 * `range`. Both are normalised by normaliseIpEntry, which stores IPv4-mapped IPv6 as IPv4, so an IPv4 entry
 * and an IPv6 range never contain each other.
 */
export function isIpEntryWithin(entry: string, range: string): boolean {
  const inner = parseRange(entry);
  const outer = parseRange(range);
  if (inner === null || outer === null) return false;
  const [address, prefix] = inner;
  const [base, basePrefix] = outer;
  if (address.kind() !== base.kind() || prefix < basePrefix) return false;
  return address.kind() === "ipv4"
    ? (address as ipaddr.IPv4).match(base as ipaddr.IPv4, basePrefix)
    : (address as ipaddr.IPv6).match(base as ipaddr.IPv6, basePrefix);
}
