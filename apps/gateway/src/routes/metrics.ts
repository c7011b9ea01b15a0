import { secretsEqual } from "@tollgate/shared";
import { errorResponse, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { createIpAllowList } from "../policy/ip-allow-list";

/**
 * GET /metrics in Prometheus text format, for scrapers only: a request passes with
 * `Authorization: Bearer $METRICS_TOKEN` when a token is set, or from an address in METRICS_ALLOWED_IPS
 * (loopback by default).
 */
export function createMetricsHandler(services: Pick<GatewayServices, "options" | "prometheus">) {
  const allowList = createIpAllowList(services.options.metricsAllowedIps);
  const expected = services.options.metricsToken ? `Bearer ${services.options.metricsToken}` : null;
  return (request: Request, clientAddress: string | null): Response => {
    const bearerOk = expected !== null && secretsEqual(request.headers.get("authorization") ?? "", expected);
    if (!bearerOk && !allowList.allows(clientAddress)) {
      return errorResponse(
        new GatewayError("Metrics are restricted: send the metrics bearer token or scrape from an allowed network.", {
          status: 403,
          code: "metrics_forbidden",
        }),
      );
    }
    return new Response(services.prometheus.render(), { headers: { "content-type": services.prometheus.contentType } });
  };
}
