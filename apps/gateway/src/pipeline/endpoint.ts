import type { Caller } from "../auth/authenticate";
import type { GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { CallRecord } from "./call-record";
import type { Codec } from "./codec";

// A table holds codecs of every request and answer type.
export type AnyCodec = Codec<any, any, any>;

/**
 * One call on an endpoint served by a plain handler (not an exchange with an upstream): the caller is
 * already let in (key, IP list, requests per minute) and its record is open; the wrapper (app.ts) finishes
 * it with the answer's status unless the handler finished it itself.
 */
export interface EndpointCall {
  services: GatewayServices;
  request: Request;
  record: CallRecord;
  caller: Caller;
  /** The path's parameters by the names the row's path gives them (`{id}` -> `params.id`), as the router passes them. */
  params: Record<string, string>;
}

export type EndpointHandler = (call: EndpointCall) => Promise<Response>;

/** Where a row's codec comes from: the codec itself, or made once at startup from the services. */
export type CodecSource = AnyCodec | ((services: GatewayServices) => AnyCodec);

interface RowBase {
  method: "GET" | "POST" | "DELETE";
  /** The path as a client writes it; `{name}` is one parameter, `{name*}` one that may span segments (a model id with slashes). */
  path: string;
}

/** An endpoint served by the exchange (run-exchange.ts) through its codec. */
export interface CodecRow extends RowBase {
  codec: CodecSource;
}

/** An endpoint served by a plain handler inside the same admission and CallRecord as every /v1 call. */
export interface HandlerRow extends RowBase {
  /** The endpoint's name in request logs and metrics (e.g. "models.list"). */
  endpoint: string;
  handler: EndpointHandler;
  /** An error answer in the client's format; the OpenAI envelope when absent. */
  errorResponse?(error: GatewayError, headers: Record<string, string>, request: Request): Response;
}

/** What a self-admitting row's handler gets: the request, who sent it (the socket, trusted proxies applied) and the path's parameters. */
export interface SelfAdmittedCall {
  services: GatewayServices;
  request: Request;
  clientAddress: string | null;
  params: Record<string, string>;
}

/**
 * An endpoint that speaks a protocol with its own sessions, errors and unit of account (MCP's Streamable
 * HTTP at /mcp): it authenticates each HTTP request itself and opens a CallRecord per call it bills (a
 * tools/call), not per HTTP request. The wrapper only lifts the idle timeout and answers what it throws.
 */
export interface SelfAdmittingRow extends RowBase {
  /** The endpoint's name in the README's table (its calls are logged under the names it gives them). */
  endpoint: string;
  serve(call: SelfAdmittedCall): Promise<Response>;
}

export type EndpointRow = CodecRow | HandlerRow | SelfAdmittingRow;

/** Work an endpoint module needs done in the background while the gateway runs (a purge of what expired). */
export interface BackgroundJob {
  name: string;
  everyMs: number;
  /** Skipped while the database circuit is open; an error is logged, never thrown. */
  run(services: GatewayServices): Promise<unknown>;
}

/**
 * A family of endpoints with what it needs besides its rows: a stateful endpoint (stored responses) brings
 * its routes and its background jobs, so that adding one changes neither app.ts nor the services.
 */
export interface EndpointModule {
  rows: readonly EndpointRow[];
  jobs?: readonly BackgroundJob[];
}

export function isCodecRow(row: EndpointRow): row is CodecRow {
  return "codec" in row;
}

export function isSelfAdmittingRow(row: EndpointRow): row is SelfAdmittingRow {
  return "serve" in row;
}
