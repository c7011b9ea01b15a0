/** A token count from an upstream's usage object: a finite number, truncated and never negative; 0 otherwise. */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : 0;
}
