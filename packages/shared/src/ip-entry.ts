import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

function parseAddress(text: string): Address | null {
  if (text.includes("%")) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/**
 * One allow-list entry in its stored form: an address (`1.2.3.4`, `2001:db8::1`) or a range reduced to
 * its network address (`10.1.2.3/8` -> `10.0.0.0/8`). IPv4 must be four-part decimal (ipaddr.js would
 * also take `0x7f.1`), and IPv4-mapped IPv6 is stored as IPv4, which is how the gateway compares it.
 */
export function normaliseIpEntry(entry: string): string | null {
  const slash = entry.indexOf("/");
  const address = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
  if (address === null) return null;
  if (slash === -1) {
    if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      return (address as ipaddr.IPv6).toIPv4Address().toString();
    }
    return address.toString();
  }
  const prefixText = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  let prefix = Number(prefixText);
  let base: Address = address;
  if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    base = (address as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const maximum = base.kind() === "ipv4" ? 32 : 128;
  if (prefix > maximum) return null;
  const cidr = `${base.toString()}/${prefix}`;
  const network =
    base.kind() === "ipv4" ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
  return `${network.toString()}/${prefix}`;
}
