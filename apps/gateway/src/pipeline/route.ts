import { computeCost, computeUnitCost, highestPromptPrice, type MeteredUnits } from "@tollgate/shared";
import { allowsBuiltInTools, builtInToolHold, builtInToolNotAllowed, type RequestedBuiltInTool } from "../accounting/built-in-tools";
import { promptUpperBound } from "../accounting/estimate-prompt-tokens";
import { fittedReservation, promptOverContextWindow } from "../accounting/fitted-reservation";
import { errors, type GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { checkModelAllowed } from "../policy/model-allowed";
import type { RoutableChannel } from "../routing/channel-catalog";
import { channelsFor, orderChannels } from "../routing/choose-channels";
import type { Admission } from "./admit";
import type { CallRecord } from "./call-record";

/**
 * The prompt is estimated past the model's context window: never an answer, only the signal that another
 * model of the call's fallback chain should take it (model-fallback.ts).
 */
export class ContextWindowExceeded extends Error {
  constructor(readonly model: string) {
    super(`the prompt is estimated past the context window of ${model}`);
    this.name = "ContextWindowExceeded";
  }
}

/**
 * The second stage: model rules (403/404/503) and routing, then the worst-case cost held against the
 * token's quota and the owner's balance (429): a cheap bound of the prompt (no tokenizing) while this
 * instance's slices, or new ones far from the end of the limits, cover it; near the end the fitted
 * estimate (accounting/estimate-prompt-tokens.ts), so that a call whose estimate fits what is left is
 * admitted. A call whose model is priced in another unit
 * (images, audio seconds, characters, requests) holds that unit's worst case, `worstCaseUnits`, instead.
 * A request that asks for fee-bearing built-in tools goes only to channels that allow them all, and holds
 * one call of each at the dearest of those channels' prices besides.
 * Only channels that `serves` (the codec's) can serve the endpoint are routed to: none is a 400
 * unsupported_endpoint, with nothing held. With `checkContextWindow`, a prompt estimated past the model's
 * context window (the same fitted estimate as the reservation's) is refused with ContextWindowExceeded,
 * before anything is held, so that a fallback model can take it (model-fallback.ts). Returns the channels
 * to try, in order.
 */
export async function route(
  services: GatewayServices,
  record: CallRecord,
  admission: Admission,
  worstCaseCompletionTokens: number,
  worstCaseUnits?: MeteredUnits,
  builtInTools?: readonly RequestedBuiltInTool[],
  serves?: (channel: RoutableChannel) => boolean,
  /** false for a call that is never billed: nothing is held. */
  holds = true,
  checkContextWindow = false,
): Promise<RoutableChannel[]> {
  const { caller, model } = admission;
  checkModelAllowed(caller, model);
  const catalogResult = services.catalog.get();
  const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
  const { usable, listedInGroup } = channelsFor(catalog.channelsByModel.get(model), caller.group);
  if (!listedInGroup) throw errors.modelNotFound(model);
  if (usable.length === 0) throw errors.noChannel(model);
  // Channels whose type cannot serve the endpoint are left out before anything is held for the call.
  let candidates = orderChannels(serves ? usable.filter(serves) : usable);
  if (candidates.length === 0) throw errors.unsupportedEndpoint(model, record.endpoint);
  let toolHold = 0;
  if (builtInTools && builtInTools.length > 0) {
    candidates = candidates.filter((channel) => allowsBuiltInTools(channel.config, builtInTools));
    if (candidates.length === 0) {
      const refused = builtInTools.find((tool) => !usable.some((channel) => allowsBuiltInTools(channel.config, [tool]))) ?? builtInTools[0]!;
      throw builtInToolNotAllowed(refused, model);
    }
    for (const channel of candidates) toolHold = Math.max(toolHold, builtInToolHold(channel.config, builtInTools));
  }
  const price = catalog.prices.get(model);
  if (checkContextWindow && price !== undefined && price.contextWindow !== null) {
    if (await promptOverContextWindow(admission.body, price.contextWindow, candidates, model)) throw new ContextWindowExceeded(model);
  }
  record.routed(model, price);
  if (!holds) return candidates;
  // The worst case bills every prompt token at the dearest prompt price: a prompt may be written to the
  // cache in full (Anthropic's 1-hour write costs twice the input price).
  const highest = price === undefined ? 0 : highestPromptPrice(price);
  const worstPrice = price === undefined || highest === price.inputPrice ? price : { ...price, inputPrice: highest };
  const costOf = (promptTokens: number) =>
    computeCost({ promptTokens, completionTokens: worstCaseCompletionTokens, cachedTokens: 0 }, worstPrice) + toolHold;
  const { value: body, bytes } = admission.body;
  const noTokens = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  const byUnit = worstCaseUnits ? computeUnitCost(noTokens, worstCaseUnits, price) : null;
  let holding: ReturnType<GatewayServices["ledger"]["reserve"]>;
  if (byUnit && byUnit.unit !== "token") {
    holding = services.ledger.reserve(caller.token, caller.user, byUnit.cost + toolHold, undefined);
  } else {
    const upperBound = promptUpperBound(body, bytes);
    const metered = price !== undefined && (caller.token.quotaLimit !== null || caller.user.budgetLimit !== null || !caller.user.balanceUnlimited);
    const fitted = metered ? fittedReservation(body, upperBound, candidates, model, costOf) : undefined;
    holding = services.ledger.reserve(caller.token, caller.user, costOf(upperBound), fitted);
  }
  const held = holding instanceof Promise ? await holding : holding;
  if ("refused" in held) throw quotaRefusal(held.refused);
  record.held(held);
  return candidates;
}

/** The 429 insufficient_quota of a hold the ledger refused, saying whose limit it was. */
export function quotaRefusal(refused: "token" | "budget" | "user"): GatewayError {
  return errors.insufficientQuota(
    refused === "token"
      ? "This API key's quota is used up or cannot cover this request. Raise its quota in the console."
      : refused === "budget"
        ? "Your account's spending budget is used up or cannot cover this request. Ask an administrator to raise it."
        : "Your account balance cannot cover this request. Top up in the console.",
  );
}
