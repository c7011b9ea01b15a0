import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describeMcpError } from "@tollgate/upstream/mcp";
import type { Caller } from "../auth/authenticate";
import { GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { checkRateLimits, hasRateLimits } from "../pipeline/admit";
import { CallRecord } from "../pipeline/call-record";
import { quotaRefusal } from "../pipeline/route";
import type { PricedModel } from "../routing/channel-catalog";
import { NAMESPACE_SEPARATOR, toolAllowed } from "./mcp-access";
import type { McpServerEntry } from "./mcp-directory";

/** Who is calling, per HTTP request: every MCP handler reads it from the request's authInfo. */
export interface McpRequestContext {
  services: GatewayServices;
  caller: Caller;
  clientAddress: string | null;
  /** The /mcp request's headers when tracing is on (its traceparent is continued); null otherwise. */
  traceHeaders: Headers | null;
}

/** A price per call as the call record bills it: one request, at the server's price. */
function perCallPrice(pricePerCall: number): PricedModel {
  return {
    inputPrice: 0,
    outputPrice: 0,
    cachedInputPrice: null,
    cacheWritePrice: null,
    cacheWrite1hPrice: null,
    unit: "request",
    unitPrice: pricePerCall,
    imagePrices: null,
    ownedBy: null,
    defaultMaxTokens: null,
    fallbacks: null,
    contextWindow: null,
    cacheHitPrice: 0,
  };
}

/**
 * An error the upstream server answered with on purpose (bad arguments, an unknown tool): relayed, and not
 * the server's fault. Anything else (unreachable, timed out, connection closed, not MCP) is its fault.
 */
function isServersOwnAnswer(error: unknown): error is McpError {
  return error instanceof McpError && error.code !== ErrorCode.ConnectionClosed && error.code !== ErrorCode.RequestTimeout;
}

const encoder = new TextEncoder();

/**
 * One tools/call, governed like a model call: the token's tool list (a refused tool never reaches the
 * server), the server's cool-down, the token's and its owner's requests per minute, the price per call held
 * against its quota, budget and balance, then the call through
 * the server's shared connection; a request-log row (endpoint `mcp`, model `server__tool`, the result's
 * bytes), metrics and the price per call, whatever the outcome. A server that keeps failing is cooled down.
 */
export async function callTool(
  context: McpRequestContext,
  entry: McpServerEntry,
  tool: string,
  upstream: {
    tools(entry: McpServerEntry): Promise<{ name: string }[]>;
    client(entry: McpServerEntry): Promise<Client>;
    cooldownOf(entry: McpServerEntry): number;
    recordFailure(entry: McpServerEntry, error: unknown): boolean;
    options: { requestTimeoutMs: number };
  },
  call: { arguments?: Record<string, unknown>; signal: AbortSignal },
): Promise<CallToolResult> {
  const { services, caller } = context;
  const record = new CallRecord(services, context.clientAddress, "mcp");
  record.identified(caller);
  const model = `${entry.name}${NAMESPACE_SEPARATOR}${tool}`;
  record.modelAsked(model);
  if (services.tracing) record.trace = services.tracing.startToolCall(context.traceHeaders, { server: entry.name, tool: model, requestId: record.requestId });
  let failure: unknown = null;
  try {
    if (!toolAllowed(caller.token, entry.name, tool)) throw new GatewayError(`This API key may not call the tool ${model}.`, { status: 403, code: "tool_not_allowed" });
    if (upstream.cooldownOf(entry) > 0) {
      throw new GatewayError(`The MCP server ${entry.name} failed recently and is cooling down; retry shortly.`, { status: 503, code: "mcp_server_cooling_down" });
    }
    let listed: { name: string }[];
    try {
      listed = await upstream.tools(entry);
    } catch (error) {
      failure = error;
      throw error;
    }
    // Only a tool the server lists is forwarded: the log and the metrics never label calls with made-up names.
    if (!listed.some((candidate) => candidate.name === tool)) throw new GatewayError(`Unknown tool: ${model}.`, { status: 404, code: "tool_not_found" });
    const { token, user } = caller;
    if (hasRateLimits(caller)) {
      await checkRateLimits(services, record, caller);
    }
    record.routed(model, entry.pricePerCall === null ? undefined : perCallPrice(entry.pricePerCall));
    if (entry.pricePerCall !== null) {
      // A priced call is held against the key's quota, its owner's budget and balance and its team's budget, like a model call.
      const holding = services.ledger.reserve(token, user, entry.pricePerCall, undefined, caller.team);
      const held = holding instanceof Promise ? await holding : holding;
      if ("refused" in held) throw quotaRefusal(held.refused);
      record.held(held);
    }
    let result: CallToolResult;
    try {
      const client = await upstream.client(entry);
      result = (await client.callTool({ name: tool, arguments: call.arguments }, undefined, {
        timeout: upstream.options.requestTimeoutMs,
        signal: call.signal,
      })) as CallToolResult;
    } catch (error) {
      failure = error;
      throw error;
    }
    record.finish({
      status: 200,
      usage: null,
      units: entry.pricePerCall === null ? null : { unit: "request" },
      upstreamModel: tool,
      errorCode: result.isError ? "tool_error" : null,
      responseBytes: encoder.encode(JSON.stringify(result)).byteLength,
    });
    return result;
  } catch (error) {
    if (error instanceof GatewayError) {
      record.finish({ status: error.status, usage: null, errorCode: error.code, upstreamModel: tool });
      throw new McpError(ErrorCode.InvalidRequest, error.message, { status: error.status, code: error.code });
    }
    if (call.signal.aborted) {
      record.finish({ status: 499, usage: null, errorCode: "client_closed", upstreamModel: tool });
      throw error;
    }
    if (failure !== null && isServersOwnAnswer(failure)) {
      record.finish({ status: 400, usage: null, errorCode: "mcp_upstream_error", upstreamModel: tool });
      throw failure;
    }
    const coolingDown = upstream.recordFailure(entry, error);
    record.finish({ status: 502, usage: null, errorCode: "mcp_server_unavailable", upstreamModel: tool });
    services.log("warn", "MCP server call failed", { requestId: record.requestId, mcpServer: entry.id, error: describeMcpError(error) });
    throw new McpError(ErrorCode.InternalError, `The MCP server ${entry.name} failed${coolingDown ? "; it is cooling down" : ""}.`, { status: 502, code: "mcp_server_unavailable" });
  }
}
