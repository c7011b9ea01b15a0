/**
 * A value sealed as the secret box wrote it before v2 (key = SHA-256 of the secret, no binding), for tests
 * of reading and re-sealing rows an older Tollgate left behind. Nothing in the product writes v1 any more.
 */
export async function sealWithVersionOne(secret: string, plaintext: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  const key = await crypto.subtle.importKey("raw", digest, { name: "AES-GCM" }, false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext));
  const joined = new Uint8Array(iv.length + sealed.byteLength);
  joined.set(iv, 0);
  joined.set(new Uint8Array(sealed), iv.length);
  return `v1:${Buffer.from(joined).toString("base64")}`;
}
