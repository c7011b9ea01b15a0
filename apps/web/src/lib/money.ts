/**
 * Money arrives from the console as integer micro-USD (1 USD = 1,000,000), as it is stored. Every page shows
 * an amount through formatUsd, so that one rule decides the digits: cents for an ordinary amount, six decimals
 * below a cent, so that a spend of a few micro-USD never reads as $0.00.
 */
export function formatUsd(micros: number | null | undefined, fallback = "—"): string {
  if (micros === null || micros === undefined) return fallback;
  // Amounts are whole micro-USD; should a fraction ever arrive, it rounds away from zero, never to nothing.
  const whole = Math.sign(micros) * Math.ceil(Math.abs(micros));
  const usd = Math.abs(whole) / 1_000_000;
  const digits = usd !== 0 && usd < 0.01 ? 6 : 2;
  const amount = usd.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${whole < 0 ? "-" : ""}$${amount}`;
}

/** Micro-USD as the plain decimal text a form field edits ("0.15"), which the console parses back exactly. */
export function microsToInput(micros: number | null | undefined): string {
  if (micros === null || micros === undefined) return "";
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000).padStart(6, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}
