import type { RoutableChannel } from "./channel-catalog";

/**
 * The order in which to try channels: highest priority tier first; inside a tier, a weighted random
 * order (weight 0 channels come last in their tier, as a fallback only).
 */
export function orderChannels(candidates: readonly RoutableChannel[], random: () => number = Math.random): RoutableChannel[] {
  if (candidates.length <= 1) return [...candidates];
  const tiers = new Map<number, RoutableChannel[]>();
  for (const channel of candidates) {
    const tier = tiers.get(channel.priority);
    if (tier) tier.push(channel);
    else tiers.set(channel.priority, [channel]);
  }
  const ordered: RoutableChannel[] = [];
  for (const priority of [...tiers.keys()].sort((a, b) => b - a)) {
    const pool = [...(tiers.get(priority) as RoutableChannel[])];
    while (pool.length > 0) {
      const total = pool.reduce((sum, channel) => sum + channel.weight, 0);
      let index = 0;
      if (total > 0) {
        let pick = random() * total;
        index = pool.findIndex((channel) => (pick -= channel.weight) < 0);
        if (index < 0) index = pool.length - 1;
      }
      ordered.push(pool[index] as RoutableChannel);
      pool.splice(index, 1);
    }
  }
  return ordered;
}

/** Channels that may serve `model` for a token of `group`: enabled ones, and whether any exist at all. */
export function channelsFor(
  listed: readonly RoutableChannel[] | undefined,
  group: string,
): { usable: RoutableChannel[]; listedInGroup: boolean } {
  const usable: RoutableChannel[] = [];
  let listedInGroup = false;
  for (const channel of listed ?? []) {
    if (!channel.groups.has(group)) continue;
    listedInGroup = true;
    if (channel.enabled) usable.push(channel);
  }
  return { usable, listedInGroup };
}
