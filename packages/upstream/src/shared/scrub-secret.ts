/** Replaces every occurrence of the channel key, should an upstream (or a fetch error) ever echo it. */
export function scrubSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join("***") : text;
}
