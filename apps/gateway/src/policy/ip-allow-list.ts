import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** A parsed allow-list of single addresses and CIDR ranges, v4 and v6. */
export interface IpAllowList {
  allows(address: string | null): boolean;
}

function parseEntry(entry: string): Range {
  const trimmed = entry.trim();
  if (trimmed.includes("/")) {
    const [address, prefix] = ipaddr.parseCIDR(trimmed);
    return [normalize(address), address.kind() === "ipv6" && normalize(address).kind() === "ipv4" ? prefix - 96 : prefix];
  }
  const address = normalize(ipaddr.parse(trimmed));
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

/** IPv4-mapped IPv6 (::ffff:1.2.3.4, what dual-stack sockets report) compares as IPv4. */
function normalize(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

export function isValidIpOrCidr(entry: string): boolean {
  try {
    parseEntry(entry);
    return true;
  } catch {
    return false;
  }
}

/** Parsed client addresses: the same few addresses arrive again and again (bounded, oldest dropped). */
const parsedAddresses = new Map<string, ipaddr.IPv4 | ipaddr.IPv6 | null>();
const MAX_PARSED_ADDRESSES = 10_000;

function parseClientAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  let parsed = parsedAddresses.get(address);
  if (parsed !== undefined) return parsed;
  try {
    parsed = normalize(ipaddr.parse(address));
  } catch {
    parsed = null;
  }
  if (parsedAddresses.size >= MAX_PARSED_ADDRESSES) parsedAddresses.delete(parsedAddresses.keys().next().value as string);
  parsedAddresses.set(address, parsed);
  return parsed;
}

/** Throws on an invalid entry: lists are validated when written, so a bad one here is a data error. */
export function createIpAllowList(entries: readonly string[]): IpAllowList {
  const ranges = entries.filter((entry) => entry.trim() !== "").map(parseEntry);
  return {
    allows(address) {
      if (!address) return false;
      const parsed = parseClientAddress(address);
      if (!parsed) return false;
      for (const [range, prefix] of ranges) {
        if (range.kind() === parsed.kind() && parsed.match(range as never, prefix)) return true;
      }
      return false;
    },
  };
}
