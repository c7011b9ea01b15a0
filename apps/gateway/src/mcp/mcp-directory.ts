import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Database, mcpServers } from "@tollgate/db";
import { mcpServerCredentialBinding, type SecretBox, type UpstreamAddressPolicy, upstreamAddressRefusal } from "@tollgate/shared";
import { connectMcpServer, describeMcpError, MAX_LIST_PAGES, type McpServerToConnect } from "@tollgate/upstream/mcp";
import { eq } from "drizzle-orm";
import type { Logger } from "../logger";

/** An upstream MCP server as the gateway serves it: its row, the credential opened, ready to connect. */
export interface McpServerEntry extends McpServerToConnect {
  id: number;
  /** Routing groups whose tokens may use it; empty: every group. */
  groups: readonly string[];
  /** Teams (ids) whose keys may use it besides the listed groups; empty with empty groups: everyone. */
  teams: readonly number[];
  /** Micro-USD per tools/call; null: free. */
  pricePerCall: number | null;
  enabled: boolean;
  /** Epoch ms until which calls are refused without reaching it (it failed); null: none. */
  cooldownUntil: number | null;
}

export type McpListKind = "tools" | "prompts" | "resources";

export interface McpOptions {
  /** MCP_STDIO_ENABLED: stdio servers' commands may run on the gateway's host. */
  stdioEnabled: boolean;
  /** MCP_COOLDOWN_MS: how long a failing server is left alone. */
  cooldownMs: number;
  /** Failures within failureWindowMs that cool a server down (CHANNEL_FAILURE_THRESHOLD, as for channels). */
  failureThreshold: number;
  failureWindowMs: number;
  /** Time allowed for one upstream request (tools/call, a list). */
  requestTimeoutMs: number;
  /** Client sessions kept per instance; past it the least recently used is closed. */
  maxSessions: number;
  /** A session unused this long is closed (its client initializes again, or resumes elsewhere). */
  sessionIdleMs: number;
}

export const defaultMcpOptions: McpOptions = {
  stdioEnabled: false,
  cooldownMs: 30_000,
  failureThreshold: 3,
  failureWindowMs: 60_000,
  requestTimeoutMs: 60_000,
  maxSessions: 10_000,
  sessionIdleMs: 3_600_000,
};

/** A listing kept until the server says it changed (or the registration changes). */
interface Listings {
  tools?: Promise<Tool[]>;
  prompts?: Promise<Prompt[]>;
  resources?: Promise<Resource[]>;
  resourceTemplates?: Promise<ResourceTemplate[]>;
}

type ListedItem<Key extends keyof Listings> = Awaited<NonNullable<Listings[Key]>>[number];

/** How a listing is fetched: the capability a server must offer for it, and one page of it (under the listing's name). */
interface PagedListing<Key extends keyof Listings> {
  capability: "tools" | "prompts" | "resources";
  fetchPage(client: Client, params: { cursor?: string }, options: { timeout: number }): Promise<{ [Name in Key]: ListedItem<Key>[] } & { nextCursor?: string }>;
}

const PAGED_LISTINGS: { [Key in keyof Listings]-?: PagedListing<Key> } = {
  tools: { capability: "tools", fetchPage: (client, params, options) => client.listTools(params, options) },
  prompts: { capability: "prompts", fetchPage: (client, params, options) => client.listPrompts(params, options) },
  resources: { capability: "resources", fetchPage: (client, params, options) => client.listResources(params, options) },
  resourceTemplates: { capability: "resources", fetchPage: (client, params, options) => client.listResourceTemplates(params, options) },
};

/** One connection per server per instance, shared by every client session; null once it closed. */
interface Connection {
  fingerprint: string;
  client: Promise<Client>;
  listings: Listings;
}

/** Most entries fetched from one paginated upstream list. */
const MAX_LISTED = 5_000;

/**
 * Most one listing may weigh (its entries as JSON): it is kept, and every client's list request sends it
 * again, so pages of huge entries stop here (each page alone may weigh up to the answer cap).
 */
export const MAX_LISTED_BYTES = 8 * 1024 * 1024;

async function collectPages<Item>(fetchPage: (cursor: string | undefined) => Promise<{ items: Item[]; nextCursor?: string }>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let bytes = 0;
  do {
    const page = await fetchPage(cursor);
    for (const item of page.items) {
      bytes += JSON.stringify(item).length;
      if (bytes > MAX_LISTED_BYTES || items.length >= MAX_LISTED) return items;
      items.push(item);
    }
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < MAX_LIST_PAGES);
  return items;
}

/** What decides whether a connection may be kept across a reload: where it goes and with which credential. */
function fingerprintOf(entry: McpServerToConnect): string {
  return JSON.stringify([entry.transport, entry.url, entry.command, entry.credentialHeader, entry.credential]);
}

/**
 * The registered MCP servers, from memory (loaded once, evicted by the NOTIFY trigger on mcp_servers), and
 * one upstream connection per server, made with the SDK's client on first use and shared by every session.
 * A failing server is cooled down on every instance: the cool-down is written to its row, whose NOTIFY
 * reloads the others.
 */
export class McpDirectory {
  private snapshot: Promise<Map<string, McpServerEntry>> | null = null;
  private readonly connections = new Map<string, Connection>();
  private readonly listeners = new Set<(server: string | null, kind: McpListKind) => void>();
  /** Cool-downs this instance set, before its own NOTIFY brings them back from the row. */
  private readonly localCooldowns = new Map<string, number>();
  /** Each server's recent failures on this instance (epoch ms), within the failure window. */
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly db: Database,
    private readonly secretBox: SecretBox,
    private readonly log: Logger,
    readonly options: McpOptions,
    private readonly addressPolicy: UpstreamAddressPolicy,
  ) {}

  /** Every registered server by name (disabled ones too: access decides). */
  servers(): Promise<Map<string, McpServerEntry>> {
    if (!this.snapshot) {
      const loading = this.load();
      this.snapshot = loading;
      loading.catch(() => {
        if (this.snapshot === loading) this.snapshot = null;
      });
    }
    return this.snapshot;
  }

  private async load(): Promise<Map<string, McpServerEntry>> {
    const rows = await this.db.select().from(mcpServers);
    const entries = new Map<string, McpServerEntry>();
    for (const row of rows) {
      if (row.url !== null && upstreamAddressRefusal(row.url, this.addressPolicy) !== null) {
        this.log("warn", "MCP server address not allowed by UPSTREAM_ALLOW_PRIVATE_NETWORKS; skipped", { mcpServer: row.id });
        continue;
      }
      let credential: string | null = null;
      try {
        credential = row.credentialEncrypted === null ? null : await this.secretBox.decrypt(row.credentialEncrypted, mcpServerCredentialBinding(row.id));
      } catch {
        this.log("warn", "MCP server credential cannot be decrypted with TOLLGATE_SECRET; server skipped", { mcpServer: row.id });
        continue;
      }
      entries.set(row.name, {
        id: row.id,
        name: row.name,
        transport: row.transport,
        url: row.url,
        command: row.command,
        credentialHeader: row.credentialHeader,
        credential,
        groups: row.groups,
        teams: row.teams,
        pricePerCall: row.pricePerCall,
        enabled: row.enabled,
        cooldownUntil: row.cooldownUntil?.getTime() ?? null,
      });
    }
    // A connection whose server is gone or now points elsewhere is closed; the others are kept.
    for (const [name, connection] of this.connections) {
      const entry = entries.get(name);
      if (!entry || !entry.enabled || fingerprintOf(entry) !== connection.fingerprint) this.dropConnection(name);
    }
    return entries;
  }

  /** A registration changed (NOTIFY on mcp_servers, or the listener reconnected): reload on next use, tell the sessions. */
  invalidate(): void {
    this.snapshot = null;
    // The rows say again who is cooling down (an edit by hand ends a cool-down everywhere, this one too).
    this.localCooldowns.clear();
    for (const kind of ["tools", "prompts", "resources"] as const) this.emit(null, kind);
  }

  /** Called with a server's name when its list changed upstream, or null when the registrations changed. */
  onListChanged(listener: (server: string | null, kind: McpListKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(server: string | null, kind: McpListKind): void {
    for (const listener of this.listeners) listener(server, kind);
  }

  /** This instance can reach the server: a stdio server only where MCP_STDIO_ENABLED is on (never cooled down for it). */
  usable(entry: McpServerEntry): boolean {
    return entry.transport !== "stdio" || this.options.stdioEnabled;
  }

  /** Epoch ms until which the server is refused, or 0 when it may be called. */
  cooldownOf(entry: McpServerEntry): number {
    const until = Math.max(entry.cooldownUntil ?? 0, this.localCooldowns.get(entry.name) ?? 0);
    return until > Date.now() ? until : 0;
  }

  /**
   * The server failed (unreachable, timed out, broke the protocol): its connection is dropped, to be made
   * anew, and past the failure threshold within the window it is cooled down. Returns whether it was.
   */
  recordFailure(entry: McpServerEntry, error: unknown): boolean {
    this.dropConnection(entry.name);
    const now = Date.now();
    const recent = (this.failures.get(entry.name) ?? []).filter((at) => now - at < this.options.failureWindowMs);
    recent.push(now);
    if (recent.length < this.options.failureThreshold) {
      this.failures.set(entry.name, recent);
      return false;
    }
    this.failures.delete(entry.name);
    this.coolDown(entry, error);
    return true;
  }

  /**
   * Refused for the cool-down here at once, and on every other instance once its row's NOTIFY arrives.
   */
  private coolDown(entry: McpServerEntry, error: unknown): void {
    const until = Date.now() + this.options.cooldownMs;
    this.localCooldowns.set(entry.name, until);
    this.dropConnection(entry.name);
    const reason = describeMcpError(error);
    this.log("warn", "MCP server cooling down after a failure", { mcpServer: entry.id, until: new Date(until).toISOString() });
    this.db
      .update(mcpServers)
      .set({ cooldownUntil: new Date(until), lastError: reason })
      .where(eq(mcpServers.id, entry.id))
      .catch((writeError: unknown) => this.log("warn", "could not record an MCP server's cool-down", { mcpServer: entry.id, error: String(writeError) }));
  }

  private dropConnection(name: string): void {
    const connection = this.connections.get(name);
    if (!connection) return;
    this.connections.delete(name);
    connection.client.then((client) => client.close()).catch(() => undefined);
  }

  private connection(entry: McpServerEntry): Connection {
    const fingerprint = fingerprintOf(entry);
    const existing = this.connections.get(entry.name);
    if (existing && existing.fingerprint === fingerprint) return existing;
    if (existing) this.dropConnection(entry.name);
    const listings: Listings = {};
    // The callbacks run once connected, when `connection` below is the registered one (or was replaced).
    const forget = () => {
      if (this.connections.get(entry.name) === connection) this.connections.delete(entry.name);
    };
    const client = connectMcpServer(
      entry,
      {
        stdioEnabled: this.options.stdioEnabled,
        onListChanged: (kind) => {
          if (kind === "tools") listings.tools = undefined;
          if (kind === "prompts") listings.prompts = undefined;
          if (kind === "resources") {
            listings.resources = undefined;
            listings.resourceTemplates = undefined;
          }
          this.emit(entry.name, kind);
        },
        onClose: forget,
      },
      this.options.requestTimeoutMs,
    );
    const connection: Connection = { fingerprint, listings, client };
    client.catch(forget);
    this.connections.set(entry.name, connection);
    return connection;
  }

  /** The server's connected client (made on first use). */
  client(entry: McpServerEntry): Promise<Client> {
    return this.connection(entry).client;
  }

  /** A listing, fetched once per connection and kept until the server says it changed. */
  private listing<Item>(entry: McpServerEntry, key: keyof Listings, fetch: (client: Client) => Promise<Item[]>): Promise<Item[]> {
    const connection = this.connection(entry);
    const kept = connection.listings[key] as Promise<Item[]> | undefined;
    if (kept) return kept;
    const loading = connection.client.then(fetch);
    (connection.listings as Record<string, Promise<Item[]> | undefined>)[key] = loading;
    loading.catch(() => {
      if (connection.listings[key] === (loading as unknown)) connection.listings[key] = undefined;
    });
    return loading;
  }

  /** Every page of one of the server's lists, when it offers that capability (none otherwise). */
  private pagedListing<Key extends keyof Listings>(entry: McpServerEntry, key: Key): Promise<ListedItem<Key>[]> {
    const { capability, fetchPage } = PAGED_LISTINGS[key] as PagedListing<Key>;
    const timeout = this.options.requestTimeoutMs;
    return this.listing(entry, key, (client) =>
      client.getServerCapabilities()?.[capability]
        ? collectPages(async (cursor) => {
            const page = await fetchPage(client, cursor ? { cursor } : {}, { timeout });
            return { items: page[key], nextCursor: page.nextCursor };
          })
        : Promise.resolve([]),
    );
  }

  tools(entry: McpServerEntry): Promise<Tool[]> {
    return this.pagedListing(entry, "tools");
  }

  prompts(entry: McpServerEntry): Promise<Prompt[]> {
    return this.pagedListing(entry, "prompts");
  }

  resources(entry: McpServerEntry): Promise<Resource[]> {
    return this.pagedListing(entry, "resources");
  }

  resourceTemplates(entry: McpServerEntry): Promise<ResourceTemplate[]> {
    return this.pagedListing(entry, "resourceTemplates");
  }

  /** Closes every upstream connection (the services stop). */
  async close(): Promise<void> {
    const names = [...this.connections.keys()];
    for (const name of names) this.dropConnection(name);
  }
}
