import { createHash, timingSafeEqual } from "node:crypto";

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Whether two secrets are the same, in time that does not depend on where they differ (or on the given
 * one's length): both are hashed to 32 bytes first, so timingSafeEqual always compares equal lengths.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
