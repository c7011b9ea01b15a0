import { environmentIssues, optionalVariable, storageVariables } from "@tollgate/db";
import type { OidcSettings } from "@tollgate/console";
import type { UpstreamAddressPolicy } from "@tollgate/shared";
import { OTLP_PROTOCOLS } from "@tollgate/gateway/tracing/call-trace";
import { z } from "zod";
import { modeProfiles, type ServerMode } from "./server-mode";

const integer = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

/**
 * OTEL_EXPORTER_OTLP_PROTOCOL and its traces form; empty is unset (http/json, see tracing-config.ts). An
 * unknown value stops the server rather than export with another protocol than the collector expects.
 */
const otlpProtocol = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value === "") return undefined;
    const known = OTLP_PROTOCOLS.find((protocol) => protocol === value);
    if (known) return known;
    context.addIssue({ code: "custom", message: `must be one of ${OTLP_PROTOCOLS.join(", ")}` });
    return z.NEVER;
  });

/** Every variable the server reads, whatever its mode: nothing else in the process reads process.env. */
const schema = z.object({
  ...storageVariables,
  /** Default 3000; 3001 in console mode. */
  PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  HOST: z.string().default("0.0.0.0"),
  /** Default 10; 5 in console mode. */
  DATABASE_POOL_SIZE: z.coerce.number().int().nonnegative().optional(),
  /** Base URL shown in the console's Quick start (e.g. https://llm.example.com); default: the request's host. */
  TOLLGATE_PUBLIC_URL: optionalVariable(z.string().url()),
  /** Comma-separated IPs/CIDRs whose X-Forwarded-For is believed. */
  TRUSTED_PROXIES: z.string().default(""),
  /** Largest request body accepted on /v1, in bytes. */
  MAX_BODY_BYTES: integer(16 * 1024 * 1024),
  /** How often usage, quota and request logs are written behind. */
  USAGE_FLUSH_INTERVAL_MS: integer(1000),
  /** Request-log rows kept in memory while the database is unreachable; quota deltas are never dropped. */
  USAGE_BUFFER_MAX: integer(100_000),
  /** The write-behind runs on a worker thread; "false" keeps it on the request thread. */
  USAGE_WRITER_THREAD: z.enum(["true", "false"]).default("true").transform((value) => value === "true"),
  /** Time allowed for an upstream's whole non-streamed answer, headers and body (they can take minutes). */
  UPSTREAM_TIMEOUT_MS: integer(600_000),
  /** The most a whole (non-streamed) upstream answer may weigh, decoded; larger: 502 upstream_response_too_large. */
  UPSTREAM_MAX_BODY_BYTES: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /** The most one event of an upstream stream may weigh; larger: the stream ends with an error event. */
  UPSTREAM_MAX_EVENT_BYTES: z.coerce.number().int().positive().default(4 * 1024 * 1024),
  /** Channels tried for one request before giving up (failover). */
  UPSTREAM_MAX_ATTEMPTS: integer(3),
  /** Longest silence between two chunks of an upstream stream before it is ended with an error; also the longest a client may leave a stream unread. */
  STREAM_IDLE_TIMEOUT_MS: integer(120_000),
  /** Failures within CHANNEL_FAILURE_WINDOW_MS that put a channel into cool-down. */
  CHANNEL_FAILURE_THRESHOLD: integer(3),
  CHANNEL_FAILURE_WINDOW_MS: integer(60_000),
  /** First cool-down; doubles after each failed probe, up to ten times as long. */
  CHANNEL_COOLDOWN_MS: integer(30_000),
  /** redis://host:6379: per-token rate limits shared by every instance; unset: counted per process. */
  REDIS_URL: optionalVariable(z.string()),
  REDIS_KEY_PREFIX: z.string().default("tollgate:rl:"),
  /** Bearer token that opens GET /metrics; without it only METRICS_ALLOWED_IPS may scrape. */
  METRICS_TOKEN: optionalVariable(z.string().min(16)),
  METRICS_ALLOWED_IPS: z.string().default("127.0.0.1,::1"),
  /** Folder of the durable usage spool (usage not yet written survives SIGTERM, kill -9 and outages); default TOLLGATE_DATA_DIR/spool. */
  USAGE_SPOOL_DIR: optionalVariable(z.string()),
  /** How often the spool is fsync'd (what a power loss can lose; kill -9 loses nothing already recorded). */
  USAGE_SPOOL_SYNC_MS: integer(50),
  /** /readyz answers 503 once usage writes have failed for this long. */
  USAGE_WRITE_STALL_MS: integer(30_000),
  /**
   * While the database cannot grant quota leases, a token with a limit is served on an allowance: this
   * percentage of its tightest limit (quota, owner's budget or balance), at most OUTAGE_ALLOWANCE_MAX_USD.
   */
  OUTAGE_ALLOWANCE_PERCENT: z.coerce.number().min(0).max(100).default(2),
  OUTAGE_ALLOWANCE_MAX_USD: z.coerce.number().min(0).default(1),
  /** Cached tokens, users, channels and settings are re-validated against the database after this age. */
  CACHE_MAX_AGE_MS: integer(60_000),
  /** How often the LISTEN connection is checked by a NOTIFY to itself; no echo within this time: reconnect. */
  LISTENER_CHECK_INTERVAL_MS: integer(10_000),
  /** Seconds a connection may stay silent (keep-alive between requests, slow headers) before it is closed. */
  HTTP_IDLE_TIMEOUT_S: integer(30),
  /** Invalid API keys one client address may present per minute; past it, unknown keys get 429 without a lookup (0: no limit). */
  INVALID_KEYS_PER_MINUTE: integer(30),
  /** Time allowed to receive a whole request body on /v1; a slower body gets 408. */
  BODY_READ_TIMEOUT_MS: integer(30_000),
  /** Time in-flight requests and streams get to finish on SIGTERM/SIGINT before they are cut (and billed). */
  SHUTDOWN_DRAIN_MS: integer(30_000),
  /** MCP servers registered as a local command (stdio) may run on this host; off unless "true". */
  MCP_STDIO_ENABLED: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
  /** How long an MCP server that failed is left alone before it is called again. */
  MCP_COOLDOWN_MS: integer(30_000),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** One JSON line per /v1 request on stdout ("false" to turn off). */
  LOG_REQUESTS: z.enum(["true", "false"]).default("true").transform((value) => value === "true"),
  /** Single sign-on for the console: the OpenID provider's issuer URL (discovery at /.well-known/openid-configuration). */
  OIDC_ISSUER: optionalVariable(z.string().url()),
  OIDC_CLIENT_ID: optionalVariable(z.string().min(1)),
  OIDC_CLIENT_SECRET: optionalVariable(z.string().min(1)),
  /** The ID token claim that lists the user's groups. */
  OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
  /** Comma-separated groups whose members sign in as administrators. */
  OIDC_ADMIN_GROUPS: z.string().default(""),
  /** What the sign-in button names ("Sign in with <OIDC_NAME>"); default the issuer's host. */
  OIDC_NAME: optionalVariable(z.string().min(1)),
  /** "true": password sign-in is turned off in the console (the CLI still works). */
  OIDC_ONLY: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
  /** "true": signing out of the console ends the identity provider's session too (RP-initiated logout). */
  OIDC_PROVIDER_LOGOUT: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
  /** OTLP collector base URL (…/v1/traces is appended over HTTP; used as it is with grpc); set (or the next one): OpenTelemetry traces on. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalVariable(z.string().url()),
  /** OTLP traces URL, used as it is; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalVariable(z.string().url()),
  /** key=value,key=value (URL-encoded values): headers sent to the collector (an API key, for instance). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().default(""),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().default(""),
  /** How spans are sent: http/json (the default here, unlike the OpenTelemetry SDKs' http/protobuf), http/protobuf or grpc. */
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  /** As OTEL_EXPORTER_OTLP_PROTOCOL, for traces; wins over it. */
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_SERVICE_NAME: optionalVariable(z.string()),
  /** key=value,key=value: resource attributes of every span (deployment.environment.name=prod, ...). */
  OTEL_RESOURCE_ATTRIBUTES: z.string().default(""),
  OTEL_TRACES_SAMPLER: z
    .enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"])
    .default("parentbased_always_on"),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** Delay between two batch exports of spans, in ms. */
  OTEL_BSP_SCHEDULE_DELAY: integer(5000),
  /** "true": no traces, whatever the endpoint says (the OpenTelemetry SDKs' switch). */
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
  /** "true": prompts and answers are recorded on the upstream spans (off by default: they may hold personal data). */
  OTEL_GENAI_CAPTURE_CONTENT: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
  /** Entries the in-process response cache keeps (without REDIS_URL); the least recently used go first. */
  RESPONSE_CACHE_MAX_ENTRIES: integer(10_000),
  /** The largest answer the response cache stores, in bytes; a larger one is not cached. */
  RESPONSE_CACHE_MAX_ENTRY_BYTES: integer(1024 * 1024),
});

export type ServerEnvironment = Omit<z.infer<typeof schema>, "PORT" | "DATABASE_POOL_SIZE"> & {
  PORT: number;
  DATABASE_POOL_SIZE: number;
};

/** Which hosts channels and the spend-alert webhook may point at (UPSTREAM_ALLOW_PRIVATE_NETWORKS). */
export function addressPolicyFrom(environment: ServerEnvironment): UpstreamAddressPolicy {
  return { allowPrivateNetworks: environment.UPSTREAM_ALLOW_PRIVATE_NETWORKS };
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The console's single sign-on settings, or null when OIDC_ISSUER is not set. */
export function oidcSettingsFrom(environment: ServerEnvironment): OidcSettings | null {
  const issuer = environment.OIDC_ISSUER;
  if (issuer === undefined) return null;
  const url = new URL(issuer);
  return {
    issuer,
    clientId: environment.OIDC_CLIENT_ID ?? "",
    clientSecret: environment.OIDC_CLIENT_SECRET ?? "",
    groupsClaim: environment.OIDC_GROUPS_CLAIM,
    adminGroups: environment.OIDC_ADMIN_GROUPS.split(",").map((group) => group.trim()).filter((group) => group !== ""),
    displayName: environment.OIDC_NAME ?? url.host,
    only: environment.OIDC_ONLY,
    providerLogout: environment.OIDC_PROVIDER_LOGOUT,
    allowHttpIssuer: url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname),
  };
}

/** Parses the environment once, with the mode's defaults; exits with a readable message when a variable is malformed. */
export function readServerEnvironment(mode: ServerMode, source: Record<string, string | undefined> = process.env): ServerEnvironment {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    console.error(`tollgate: invalid environment\n${environmentIssues(parsed.error).map((line) => `  ${line}`).join("\n")}`);
    process.exit(2);
  }
  const { OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_ONLY } = parsed.data;
  if (OIDC_ISSUER !== undefined && (OIDC_CLIENT_ID === undefined || OIDC_CLIENT_SECRET === undefined)) {
    console.error("tollgate: invalid environment\n  OIDC_ISSUER is set: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required too");
    process.exit(2);
  }
  if (OIDC_ONLY && OIDC_ISSUER === undefined) {
    console.error("tollgate: invalid environment\n  OIDC_ONLY=true needs OIDC_ISSUER (otherwise no one could sign in to the console)");
    process.exit(2);
  }
  const profile = modeProfiles[mode];
  return {
    ...parsed.data,
    PORT: parsed.data.PORT ?? profile.defaultPort,
    DATABASE_POOL_SIZE: parsed.data.DATABASE_POOL_SIZE ?? profile.defaultPoolSize,
  };
}
