/**
 * AES-256-GCM sealing of secrets at rest (upstream keys, the webhook secret), each bound to the place it is
 * stored in: the binding (`channels:api_key:42`, see secret-bindings.ts) is the cipher's additional data, so a
 * sealed value copied to another row, or to another table, does not open there.
 *
 * Stored forms:
 * - `v2:` + base64(iv[12] | ciphertext+tag), key = PBKDF2-HMAC-SHA256(TOLLGATE_SECRET, salt
 *   "tollgate/secret-box/v2", 600,000 iterations), binding as additional data. TOLLGATE_SECRET may be a
 *   phrase a person typed (16 characters is the only rule), so the key is stretched: each guess at the
 *   secret against a copy of the database costs 600,000 HMACs instead of one hash. The salt is fixed and
 *   versioned rather than random because the box must open every value with no database at hand (the CLI,
 *   the gateway's catalog) and one derivation per process keeps decrypting free on the hot path; it still
 *   makes precomputed tables for plain SHA-256/PBKDF2 useless.
 * - `v1:` (before v2): key = SHA-256 of the secret, no additional data. Still opened, never written;
 *   the server re-seals v1 values as v2 when it starts (apps/server reseal-stored-secrets).
 */
export interface SecretBox {
  /** Seals `plaintext` for the place named by `binding`; it opens only with the same binding. */
  encrypt(plaintext: string, binding: string): Promise<string>;
  /** Opens a v2 value sealed for `binding`, or a v1 value (which carries no binding); throws otherwise. */
  decrypt(stored: string, binding: string): Promise<string>;
}

const V2_SALT = new TextEncoder().encode("tollgate/secret-box/v2");
/** OWASP's 2023 figure for PBKDF2-HMAC-SHA256; about 80 ms once per process. */
const V2_ITERATIONS = 600_000;
const IV_BYTES = 12;

interface BoxKeys {
  v1: CryptoKey;
  v2: CryptoKey;
}

/** Derivations by secret, so that the many boxes a test suite or a CLI run makes stretch the secret once. */
const derivedKeys = new Map<string, Promise<BoxKeys>>();

async function deriveKeys(secret: string): Promise<BoxKeys> {
  const secretBytes = new TextEncoder().encode(secret);
  const digest = await crypto.subtle.digest("SHA-256", secretBytes);
  const v1 = await crypto.subtle.importKey("raw", digest, { name: "AES-GCM" }, false, ["decrypt"]);
  const material = await crypto.subtle.importKey("raw", secretBytes, "PBKDF2", false, ["deriveKey"]);
  const v2 = await crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt: V2_SALT, iterations: V2_ITERATIONS },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
  return { v1, v2 };
}

function keysFor(secret: string): Promise<BoxKeys> {
  let keys = derivedKeys.get(secret);
  if (!keys) {
    keys = deriveKeys(secret);
    derivedKeys.set(secret, keys);
    keys.catch(() => derivedKeys.delete(secret));
  }
  return keys;
}

/** True for a value in a format older than the one encrypt() writes (the start-up re-seal looks for these). */
export function isSealedWithOldFormat(stored: string): boolean {
  return stored.startsWith("v1:");
}

export async function createSecretBox(secret: string): Promise<SecretBox> {
  if (!secret || secret.length < 16) throw new Error("TOLLGATE_SECRET must be at least 16 characters");
  const keys = await keysFor(secret);
  const encoder = new TextEncoder();
  const open = async (key: CryptoKey, encoded: string, binding?: string) => {
    const joined = Buffer.from(encoded, "base64");
    const iv = joined.subarray(0, IV_BYTES);
    const parameters: AesGcmParams = binding === undefined ? { name: "AES-GCM", iv } : { name: "AES-GCM", iv, additionalData: encoder.encode(binding) };
    return new TextDecoder().decode(await crypto.subtle.decrypt(parameters, key, joined.subarray(IV_BYTES)));
  };
  return {
    async encrypt(plaintext, binding) {
      if (!binding) throw new Error("a sealed secret needs a binding");
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(binding) }, keys.v2, encoder.encode(plaintext));
      const joined = new Uint8Array(iv.length + sealed.byteLength);
      joined.set(iv, 0);
      joined.set(new Uint8Array(sealed), iv.length);
      return `v2:${Buffer.from(joined).toString("base64")}`;
    },
    async decrypt(stored, binding) {
      if (stored.startsWith("v2:")) {
        if (!binding) throw new Error("a sealed secret needs a binding");
        return open(keys.v2, stored.slice(3), binding);
      }
      if (stored.startsWith("v1:")) return open(keys.v1, stored.slice(3));
      throw new Error("unknown encrypted key format");
    },
  };
}

/** Shows the shape of a key without revealing it: `sk-p…f3a9`. */
export function maskSecret(value: string): string {
  if (value.length <= 8) return "****";
  return `${value.slice(0, 4)}…${value.slice(-4)}`;
}
