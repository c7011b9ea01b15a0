import { upstreamModelFor } from "@tollgate/upstream";
import type { RoutableChannel } from "../routing/channel-catalog";
import { countJobTokens } from "./count-tokens";
import { promptUpperBound, TOKENIZER_MARGINS, type TokenizerFamily, tokenizerFamily } from "./estimate-prompt-tokens";
import type { FittedAmount } from "./quota-ledger";

/** The family with the widest margin among the channels failover may try: the reservation holds for any of them. */
export function widestTokenizerFamily(candidates: readonly RoutableChannel[], model: string): TokenizerFamily {
  let widest: TokenizerFamily = "openai";
  for (const channel of candidates) {
    const family = tokenizerFamily(upstreamModelFor(channel, model), channel.adapter);
    if (TOKENIZER_MARGINS[family] > TOKENIZER_MARGINS[widest]) widest = family;
  }
  return widest;
}

/**
 * The fitted amount for the ledger, computed only when the ledger asks (the cheap bound did not fit):
 * `costOf` turns prompt tokens into the call's worst-case cost (its completion bound included). The count
 * is that of fittedPromptTokens, made on the counting worker; when it cannot be made in time, the cheap
 * bound is what is held.
 */
export function fittedReservation(
  body: Record<string, unknown>,
  upperBound: number,
  candidates: readonly RoutableChannel[],
  model: string,
  costOf: (promptTokens: number) => number,
): FittedAmount {
  return () => {
    const margin = TOKENIZER_MARGINS[widestTokenizerFamily(candidates, model)];
    const fit = (counted: number) => costOf(Math.min(Math.ceil(counted * (1 + margin)), upperBound));
    return countJobTokens({ kind: "reservation", body }).then(fit, () => costOf(upperBound));
  };
}

/**
 * Whether the prompt is estimated past `contextWindow` tokens, by the reservation's own estimate: the cheap
 * bound when it fits (no tokenizing), else the fitted count (the widest margin of the channels that may
 * serve it). A count that cannot be made in time says "fits": the upstream then decides.
 */
export async function promptOverContextWindow(
  body: { value: Record<string, unknown>; bytes: number },
  contextWindow: number,
  candidates: readonly RoutableChannel[],
  model: string,
): Promise<boolean> {
  const upperBound = promptUpperBound(body.value, body.bytes);
  if (upperBound <= contextWindow) return false;
  const margin = TOKENIZER_MARGINS[widestTokenizerFamily(candidates, model)];
  return countJobTokens({ kind: "reservation", body: body.value }).then(
    (counted) => Math.min(Math.ceil(counted * (1 + margin)), upperBound) > contextWindow,
    () => false,
  );
}
