import type { GatewayServices } from "../gateway-services";

/**
 * Completion tokens held against quota for a request that names no max_tokens: the model's own default
 * (model_prices.default_max_tokens, so that a model with long outputs gets a sensible bound and one with
 * short outputs does not hold more than it can spend), else the global setting reservationDefaultMaxTokens.
 */
export async function defaultMaxTokensFor(services: Pick<GatewayServices, "catalog" | "settings">, model: string): Promise<number> {
  const catalogResult = services.catalog.get();
  const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
  const own = catalog.prices.get(model)?.defaultMaxTokens;
  if (own !== undefined && own !== null) return own;
  const settingsResult = services.settings.get();
  const settings = settingsResult instanceof Promise ? await settingsResult : settingsResult;
  return settings.reservationDefaultMaxTokens;
}
