/**
 * Money arrives from the console as integer micro-USD (1 USD = 1,000,000), as it is stored. Every page shows
 * an amount through one of the two formatters below, so that one rule decides the digits and the same figure
 * reads the same on every page:
 * - formatUsd (adaptive): cents for an amount of a cent or more, two significant digits below a cent, so that
 *   a spend of a few micro-USD never reads as $0.00;
 * - formatUsdExact: every micro-USD, for the places where a reader reconciles figures (a log's cost, a
 *   token's spend and what remains of its quota).
 */
export function formatUsd(micros: number | null | undefined, fallback = "—"): string {
  if (micros === null || micros === undefined) return fallback;
  const whole = wholeMicros(micros);
  const usd = Math.abs(whole) / 1_000_000;
  const amount =
    usd !== 0 && usd < 0.01
      ? usd.toLocaleString("en-US", { maximumSignificantDigits: 2, maximumFractionDigits: 6, roundingMode: "ceil" } as Intl.NumberFormatOptions)
      : usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return signed(whole, amount);
}

/** Exact to the micro-USD: at least cents, then as many of the six decimals as the amount needs. */
export function formatUsdExact(micros: number | null | undefined, fallback = "—"): string {
  if (micros === null || micros === undefined) return fallback;
  const whole = wholeMicros(micros);
  const amount = (Math.abs(whole) / 1_000_000).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 6 });
  return signed(whole, amount);
}

/** Amounts are whole micro-USD; should a fraction ever arrive, it rounds away from zero, never to nothing. */
function wholeMicros(micros: number): number {
  return Math.sign(micros) * Math.ceil(Math.abs(micros));
}

function signed(whole: number, amount: string): string {
  return `${whole < 0 ? "-" : ""}$${amount}`;
}

/** Micro-USD as the plain decimal text a form field edits ("0.15"), which the console parses back exactly. */
export function microsToInput(micros: number | null | undefined): string {
  if (micros === null || micros === undefined) return "";
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000).padStart(6, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}
