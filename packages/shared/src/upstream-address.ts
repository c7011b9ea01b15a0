import ipaddr from "ipaddr.js";

/**
 * Which hosts a stored secret may be sent to (channel base URLs, the spend-alert webhook). Link-local
 * addresses and cloud metadata services are never a model server and are where a leaked request hurts most
 * (instance credentials), so they are always refused. Loopback and private ranges are where local vLLM or
 * Ollama live, so they are allowed unless the operator turns them off (UPSTREAM_ALLOW_PRIVATE_NETWORKS=false).
 */
export interface UpstreamAddressPolicy {
  allowPrivateNetworks: boolean;
}

export const DEFAULT_UPSTREAM_ADDRESS_POLICY: UpstreamAddressPolicy = { allowPrivateNetworks: true };

type AddressClass = "metadata" | "private" | "public";

/** Names of metadata services that answer inside clouds (GCP, AWS, generic). */
const METADATA_HOSTNAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"]);

/** Metadata addresses outside 169.254.0.0/16: AWS over IPv6, Alibaba Cloud. */
const METADATA_ADDRESSES = new Set(["fd00:ec2::254", "100.100.100.200"]);

const LINK_LOCAL_RANGES = new Set(["linkLocal"]);
const PRIVATE_RANGES = new Set(["loopback", "private", "uniqueLocal", "carrierGradeNat", "unspecified"]);

/** An IPv6 address that carries an IPv4 one the kernel would reach (mapped, compatible, NAT64): that IPv4. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const parts = address.parts;
  const lastTwo = () => ipaddr.IPv4.parse(`${parts[6]! >> 8}.${parts[6]! & 255}.${parts[7]! >> 8}.${parts[7]! & 255}`);
  if (address.range() === "rfc6052") return lastTwo();
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) return lastTwo();
  return null;
}

function classifyAddress(address: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  if (address.kind() === "ipv6") {
    const inner = embeddedIPv4(address as ipaddr.IPv6);
    if (inner) return classifyAddress(inner);
  }
  if (METADATA_ADDRESSES.has(address.toString())) return "metadata";
  const range = address.range();
  if (LINK_LOCAL_RANGES.has(range)) return "metadata";
  if (PRIVATE_RANGES.has(range)) return "private";
  return "public";
}

function parseIp(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = bare.indexOf("%");
  const address = zone === -1 ? bare : bare.slice(0, zone);
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address);
  if (ipaddr.IPv6.isValid(address)) return ipaddr.IPv6.parse(address);
  return null;
}

function refusalFor(kind: AddressClass, policy: UpstreamAddressPolicy): string | null {
  if (kind === "metadata") return "Must not be a link-local or cloud metadata address";
  if (kind === "private" && !policy.allowPrivateNetworks) {
    return "Must not be a loopback or private-network address (UPSTREAM_ALLOW_PRIVATE_NETWORKS is false)";
  }
  return null;
}

/**
 * Why the host of `url` is refused by what the URL itself says (a literal IP, a metadata or localhost name),
 * or null. Names that resolve to a refused address are caught by checkResolvedAddress at connect time.
 */
export function upstreamAddressRefusal(url: URL | string, policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY): string | null {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return "Must be an http:// or https:// URL";
  }
  const hostname = parsed.hostname.toLowerCase().replace(/\.+$/, "");
  const address = parseIp(hostname);
  if (address) return refusalFor(classifyAddress(address), policy);
  if (METADATA_HOSTNAMES.has(hostname)) return refusalFor("metadata", policy);
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return refusalFor("private", policy);
  return null;
}

export type HostResolver = (hostname: string) => Promise<string[]>;

/** Bun's resolver (the system's, as fetch uses it): every address the name has. */
export const resolveHostAddresses: HostResolver = async (hostname) => (await Bun.dns.lookup(hostname)).map((entry) => entry.address);

/**
 * The refusal for `url` once its name is resolved: a name pointing at a metadata address (or, with private
 * networks refused, a private one) is refused like the literal address. Null when every address is allowed
 * or the name does not resolve (fetch then fails on its own). A name can change between this check and the
 * connection (DNS rebinding); this check narrows that to one TTL, it does not close it.
 */
export async function checkResolvedAddress(
  url: URL | string,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
  resolve: HostResolver = resolveHostAddresses,
): Promise<string | null> {
  const literal = upstreamAddressRefusal(url, policy);
  if (literal !== null) return literal;
  const parsed = typeof url === "string" ? new URL(url) : url;
  const hostname = parsed.hostname.replace(/\.+$/, "");
  if (parseIp(hostname)) return null;
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch {
    return null;
  }
  for (const text of addresses) {
    const address = parseIp(text);
    if (!address) continue;
    const refusal = refusalFor(classifyAddress(address), policy);
    if (refusal !== null) return `${refusal} (the name resolves to one)`;
  }
  return null;
}
