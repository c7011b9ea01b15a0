export const ranges = {
  "1h": { label: "Last hour", ms: 3_600_000 },
  "24h": { label: "Last 24 hours", ms: 86_400_000 },
  "7d": { label: "Last 7 days", ms: 7 * 86_400_000 },
  "30d": { label: "Last 30 days", ms: 30 * 86_400_000 },
} as const;

export type RangeKey = keyof typeof ranges;

/** [from, to) for a preset, fixed at the moment it is chosen so that query keys stay stable. */
export function rangeWindow(key: RangeKey, now = Date.now()): { from: Date; to: Date } {
  return { from: new Date(now - ranges[key].ms), to: new Date(now + 60_000) };
}
