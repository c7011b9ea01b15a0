import { createHmac } from "node:crypto";
import { type Database, settings, users } from "@tollgate/db";
import { secretsEqual } from "@tollgate/shared";
import { eq } from "drizzle-orm";

/** The settings row that holds the current first run's nonce (never the code itself). */
export const SETUP_NONCE_KEY = "first_run_setup_nonce";

/** Crockford's base32: no I, L, O or U, so a code read from a log is typed back without confusion. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODE_CHARACTERS = 20;

/**
 * The one-time code that the console's first-run page asks for while no administrator exists, so that a
 * fresh install does not belong to whoever reaches it first.
 *
 * The code is an HMAC of a random nonce under the deployment's secret (TOLLGATE_SECRET, or the embedded
 * secret file). The nonce lives in the settings table, made by whichever instance asks first: so every
 * instance sharing a database derives (and prints) the same code, and only processes holding the secret
 * can. Creating the first administrator deletes the nonce in the same transaction: the code is spent.
 */
export interface SetupCodes {
  /**
   * The current code while no administrator exists (creating the nonce if there is none), or null once
   * one exists (its nonce is then deleted).
   */
  current(db: Database): Promise<string | null>;
  /** Whether `given` is the code of `nonce` (spaces, dashes and case ignored); constant time. */
  matches(nonce: string, given: string): boolean;
  /** Called after this process saw the code spent (e.g. to delete the file it was written to). */
  spent(): void;
}

function codeFor(secret: string, nonce: string): string {
  const digest = createHmac("sha256", secret).update(`tollgate first-run setup code\u0000${nonce}`).digest();
  let bits = 0;
  let value = 0;
  let code = "";
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && code.length < CODE_CHARACTERS) {
      code += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (code.length === CODE_CHARACTERS) break;
  }
  return code.match(/.{5}/g)!.join("-");
}

/** How a person may type it back: any case, with or without the dashes or spaces. */
function normalise(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, "");
}

export async function readSetupNonce(db: Pick<Database, "select">): Promise<string | null> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, SETUP_NONCE_KEY)).limit(1);
  return typeof row?.value === "string" ? row.value : null;
}

export function createSetupCodes(secret: string, options: { onSpent?: () => void } = {}): SetupCodes {
  return {
    async current(db) {
      const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
      if (admin) {
        await db.delete(settings).where(eq(settings.key, SETUP_NONCE_KEY));
        return null;
      }
      const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
      // Instances starting together: the first insert wins, and every one reads the winner back.
      await db.insert(settings).values({ key: SETUP_NONCE_KEY, value: nonce }).onConflictDoNothing({ target: settings.key });
      const stored = await readSetupNonce(db);
      return stored === null ? null : codeFor(secret, stored);
    },
    matches(nonce, given) {
      return secretsEqual(normalise(given), normalise(codeFor(secret, nonce)));
    },
    spent() {
      options.onSpent?.();
    },
  };
}
