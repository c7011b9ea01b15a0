/**
 * How deep a client's JSON may nest. JSON.parse accepts any depth, but the runtime's JSON.stringify (and any
 * recursive walk) throws RangeError somewhere past ten thousand levels, so a body that nests deeper than any
 * API needs is refused where it comes in, and every translator walking client JSON stays within this.
 */
export const MAX_JSON_DEPTH = 128;

/** What measureJson found over its limits: the first limit passed, or null within both. */
export type JsonBoundsProblem = "depth" | "nodes" | null;

/**
 * Walks `value` without recursion (an explicit stack, so the walk itself cannot overflow) and stops as soon
 * as it finds a container nested deeper than `maxDepth` or more than `maxNodes` containers (objects and
 * arrays; strings and numbers cost nothing to carry). The work is bounded by `maxNodes` and the widest
 * container, never by the nesting.
 */
export function measureJson(value: unknown, maxDepth: number, maxNodes = Number.POSITIVE_INFINITY): JsonBoundsProblem {
  if (typeof value !== "object" || value === null) return null;
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  let nodes = 0;
  while (pending.length > 0) {
    const current = pending.pop() as object;
    const depth = depths.pop()!;
    if (depth > maxDepth) return "depth";
    if (++nodes > maxNodes) return "nodes";
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === "object" && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return null;
}

/**
 * Whether `value` nests containers deeper than `maxDepth`: the check every request body gets, so it is
 * the cheap form of measureJson (no node count, no stack arrays). It recurses, but never deeper than
 * `maxDepth` frames, whatever the value.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (maxDepth <= 0) return true;
  if (Array.isArray(value)) {
    for (const child of value) if (typeof child === "object" && child !== null && nestsDeeperThan(child, maxDepth - 1)) return true;
    return false;
  }
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && nestsDeeperThan(child, maxDepth - 1)) return true;
  }
  return false;
}
