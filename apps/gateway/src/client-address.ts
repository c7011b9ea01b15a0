import type { IpAllowList } from "./policy/ip-allow-list";

/**
 * The caller's address: the socket's, unless the socket is a trusted proxy, in which case the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy (entries left of it could be forged by the client).
 */
export function resolveClientAddress(
  socketAddress: string | null,
  forwardedFor: string | null,
  trustedProxies: IpAllowList | null,
): string | null {
  if (!socketAddress || !trustedProxies || !forwardedFor || !trustedProxies.allows(socketAddress)) {
    return socketAddress;
  }
  const hops = forwardedFor.split(",");
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = (hops[index] as string).trim();
    if (hop && !trustedProxies.allows(hop)) return hop;
  }
  return (hops[0] as string).trim() || socketAddress;
}
