/** Token secrets: `sk-` + 48 base62 characters (~285 bits). Only the SHA-256 hex and a display prefix are stored. */
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 48;

export function generateTokenSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_LENGTH * 2));
  let body = "";
  for (const byte of bytes) {
    // Rejection sampling keeps every character equally likely (248 = 4 * 62).
    if (byte < 248) body += ALPHABET[byte % 62];
    if (body.length === SECRET_LENGTH) break;
  }
  if (body.length < SECRET_LENGTH) return generateTokenSecret();
  return `sk-${body}`;
}

export function hashTokenSecret(secret: string): string {
  // The one-shot hash: no hasher object per call (0.2-0.3 us against 0.7-0.9 for a CryptoHasher, per request).
  return Bun.SHA256.hash(secret, "hex") as unknown as string;
}

/** `sk-abcd…wxyz`: enough to tell keys apart in a list, not enough to use one. */
export function displayPrefix(secret: string): string {
  return `${secret.slice(0, 7)}…${secret.slice(-4)}`;
}
