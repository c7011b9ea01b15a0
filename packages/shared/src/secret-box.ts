/**
 * AES-256-GCM encryption of upstream API keys at rest. The key is SHA-256 of TOLLGATE_SECRET, so any
 * string of enough entropy works as a secret. Stored form: `v1:` + base64(iv[12] | ciphertext+tag).
 */
export interface SecretBox {
  encrypt(plaintext: string): Promise<string>;
  decrypt(stored: string): Promise<string>;
}

export async function createSecretBox(secret: string): Promise<SecretBox> {
  if (!secret || secret.length < 16) throw new Error("TOLLGATE_SECRET must be at least 16 characters");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  const key = await crypto.subtle.importKey("raw", digest, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
  return {
    async encrypt(plaintext) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext));
      const joined = new Uint8Array(iv.length + sealed.byteLength);
      joined.set(iv, 0);
      joined.set(new Uint8Array(sealed), iv.length);
      return `v1:${Buffer.from(joined).toString("base64")}`;
    },
    async decrypt(stored) {
      if (!stored.startsWith("v1:")) throw new Error("unknown encrypted key format");
      const joined = Buffer.from(stored.slice(3), "base64");
      const iv = joined.subarray(0, 12);
      const opened = await crypto.subtle.decrypt({ name: "AES-GCM", iv }, key, joined.subarray(12));
      return new TextDecoder().decode(opened);
    },
  };
}

/** Shows the shape of a key without revealing it: `sk-p…f3a9`. */
export function maskSecret(value: string): string {
  if (value.length <= 8) return "****";
  return `${value.slice(0, 4)}…${value.slice(-4)}`;
}
