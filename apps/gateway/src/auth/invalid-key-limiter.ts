import ipaddr from "ipaddr.js";

const WINDOW_MS = 60_000;

interface AddressCount {
  /** Epoch ms of the first refusal counted in this window. */
  windowStart: number;
  count: number;
}

/**
 * What invalid keys are counted by: an IPv4 address, or an IPv6 address's /64 (one subscriber's network,
 * whose 2^64 addresses would otherwise each get a limit of their own). IPv4-mapped IPv6 counts as IPv4.
 */
export function addressGroup(address: string): string {
  if (!address.includes(":")) return address;
  try {
    const parsed = ipaddr.parse(address);
    if (parsed.kind() === "ipv4") return parsed.toString();
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
    return `${ipv6.parts.slice(0, 4).map((part) => part.toString(16)).join(":")}::/64`;
  } catch {
    return address;
  }
}

export interface InvalidKeyLimiterOptions {
  /** Invalid keys one address may present per minute before its unknown keys are refused unchecked; 0: no limit. */
  perMinute: number;
  /** Addresses tracked at once (oldest dropped first). Default 100,000. */
  maxAddresses?: number;
  /** Epoch ms. */
  now?: () => number;
}

/**
 * Invalid API keys per client address (TRUSTED_PROXIES applied by the caller): an unknown key costs a hash
 * and a database query, so an address that has presented `perMinute` of them in a minute is answered from
 * memory only until the minute is over. Its keys that are cached as valid still pass (clients sharing a NAT
 * or an untrusted proxy with a key-guesser are not locked out by it); every other key gets 429 without a
 * query. Per process, like the in-memory rate limits: N instances allow N times the limit.
 */
export class InvalidKeyLimiter {
  private readonly counts = new Map<string, AddressCount>();
  private readonly perMinute: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;

  constructor(options: InvalidKeyLimiterOptions) {
    this.perMinute = options.perMinute;
    this.maxAddresses = options.maxAddresses ?? 100_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Milliseconds until `address` may have unknown keys looked up again; 0 when it may now. The common case
   * (no address has presented an invalid key lately) is one size check.
   */
  refusedFor(address: string | null): number {
    if (this.counts.size === 0 || address === null) return 0;
    const entry = this.counts.get(addressGroup(address));
    if (!entry || entry.count < this.perMinute) return 0;
    const remaining = entry.windowStart + WINDOW_MS - this.now();
    return remaining > 0 ? remaining : 0;
  }

  /** Counts one invalid key presented by `address`. */
  record(address: string | null): void {
    if (address === null || this.perMinute === 0) return;
    const group = addressGroup(address);
    const now = this.now();
    const entry = this.counts.get(group);
    if (entry && now - entry.windowStart < WINDOW_MS) {
      entry.count++;
      return;
    }
    // A new window goes to the end of the map, so that the map's order is the windows' age.
    if (entry) this.counts.delete(group);
    else if (this.counts.size >= this.maxAddresses) this.counts.delete(this.counts.keys().next().value as string);
    this.counts.set(group, { windowStart: now, count: 1 });
  }

  /** Drops windows that have ended; called from a timer so memory follows the addresses seen lately. */
  prune(): void {
    const now = this.now();
    for (const [group, entry] of this.counts) {
      if (now - entry.windowStart < WINDOW_MS) break;
      this.counts.delete(group);
    }
  }

  get size(): number {
    return this.counts.size;
  }
}
