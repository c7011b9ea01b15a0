import { upstreamModelFor } from "@tollgate/upstream";
import type { RoutableChannel } from "../routing/channel-catalog";
import { loadedTokenizer, loadTokenizer } from "./count-tokens";
import { fittedPromptTokens, TOKENIZER_MARGINS, type TokenizerFamily, tokenizerFamily } from "./estimate-prompt-tokens";
import type { FittedAmount } from "./quota-ledger";

/** The family with the widest margin among the channels failover may try: the reservation holds for any of them. */
export function widestTokenizerFamily(candidates: readonly RoutableChannel[], model: string): TokenizerFamily {
  let widest: TokenizerFamily = "openai";
  for (const channel of candidates) {
    const family = tokenizerFamily(upstreamModelFor(channel, model), channel.type);
    if (TOKENIZER_MARGINS[family] > TOKENIZER_MARGINS[widest]) widest = family;
  }
  return widest;
}

/**
 * The fitted amount for the ledger, computed only when the ledger asks (the cheap bound did not fit):
 * `costOf` turns prompt tokens into the call's worst-case cost (its completion bound included).
 */
export function fittedReservation(
  body: Record<string, unknown>,
  upperBound: number,
  candidates: readonly RoutableChannel[],
  model: string,
  costOf: (promptTokens: number) => number,
): FittedAmount {
  return () => {
    const family = widestTokenizerFamily(candidates, model);
    const count = loadedTokenizer();
    if (count) return costOf(fittedPromptTokens(body, count, family, upperBound));
    return loadTokenizer().then((loaded) => costOf(fittedPromptTokens(body, loaded, family, upperBound)));
  };
}
