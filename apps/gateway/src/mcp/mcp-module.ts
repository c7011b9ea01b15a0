import type { EndpointModule, SelfAdmittingRow } from "../pipeline/endpoint";

const serve: SelfAdmittingRow["serve"] = ({ services, request, clientAddress, params }) =>
  services.mcp.sessions.handle(services, request, clientAddress, params.server ?? null);

/** Streamable HTTP's three methods on one path. */
function rowsAt(path: string): SelfAdmittingRow[] {
  return (["POST", "GET", "DELETE"] as const).map((method) => ({ method, path, endpoint: "mcp", serve }));
}

/**
 * The MCP gateway (issue 28): `/mcp` aggregates the tools, prompts and resources of every upstream MCP
 * server the caller's key may use (`server__tool`); `/mcp/{server}` exposes one server alone. Its state
 * (servers, connections, sessions) lives in `services.mcp`; its calls are logged under the endpoint `mcp`.
 */
export const mcpModule: EndpointModule = {
  rows: [...rowsAt("/mcp"), ...rowsAt("/mcp/{server}")],
};
