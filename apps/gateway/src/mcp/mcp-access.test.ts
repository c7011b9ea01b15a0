import { describe, expect, test } from "bun:test";
import type { Caller } from "../auth/authenticate";
import { hasMcpAccess, serverAllowed, splitNamespaced, toolAllowed } from "./mcp-access";
import type { McpServerEntry } from "./mcp-directory";

const entry = (fields: Partial<McpServerEntry> = {}): McpServerEntry => ({
  id: 1,
  name: "github",
  transport: "streamable-http",
  url: "https://mcp.example.com/mcp",
  command: null,
  credentialHeader: null,
  credential: null,
  groups: [],
  teams: [],
  pricePerCall: null,
  enabled: true,
  cooldownUntil: null,
  ...fields,
});

const caller = (mcpServers: string[], group = "default", teamId: number | null = null): Caller =>
  ({ token: { mcpServers }, user: {}, group, team: teamId === null ? null : { id: teamId } }) as unknown as Caller;

describe("MCP access", () => {
  test("a token with no MCP server listed has no MCP access", () => {
    expect(hasMcpAccess({})).toBe(false);
    expect(hasMcpAccess({ mcpServers: [] })).toBe(false);
    expect(hasMcpAccess({ mcpServers: ["github"] })).toBe(true);
  });

  test("a server is allowed when the token lists it or *, its group may use it, and it is enabled", () => {
    expect(serverAllowed(caller(["github"]), entry())).toBe(true);
    expect(serverAllowed(caller(["*"]), entry())).toBe(true);
    expect(serverAllowed(caller(["jira"]), entry())).toBe(false);
    expect(serverAllowed(caller(["*"], "default"), entry({ groups: ["vip"] }))).toBe(false);
    expect(serverAllowed(caller(["*"], "vip"), entry({ groups: ["vip"] }))).toBe(true);
    expect(serverAllowed(caller(["*"]), entry({ enabled: false }))).toBe(false);
  });

  test("a server listing teams is open to keys of those teams and to its listed groups, not to personal keys", () => {
    expect(serverAllowed(caller(["*"], "default", 7), entry({ teams: [7] }))).toBe(true);
    expect(serverAllowed(caller(["*"], "default", 8), entry({ teams: [7] }))).toBe(false);
    expect(serverAllowed(caller(["*"], "default"), entry({ teams: [7] }))).toBe(false);
    expect(serverAllowed(caller(["*"], "vip"), entry({ groups: ["vip"], teams: [7] }))).toBe(true);
    expect(serverAllowed(caller(["*"], "default", 7), entry({ groups: ["vip"], teams: [7] }))).toBe(true);
  });

  test("an empty tool list allows every tool; otherwise server__tool or server__* must match", () => {
    expect(toolAllowed({ mcpTools: [] }, "github", "create_issue")).toBe(true);
    expect(toolAllowed({ mcpTools: ["github__create_issue"] }, "github", "create_issue")).toBe(true);
    expect(toolAllowed({ mcpTools: ["github__create_issue"] }, "github", "delete_repo")).toBe(false);
    expect(toolAllowed({ mcpTools: ["github__*"] }, "github", "delete_repo")).toBe(true);
    expect(toolAllowed({ mcpTools: ["github__*"] }, "gitlab", "delete_repo")).toBe(false);
  });

  test("a namespaced name splits at the first double underscore, and a name without a server is none", () => {
    expect(splitNamespaced("github__create__issue")).toEqual({ server: "github", item: "create__issue" });
    expect(splitNamespaced("create_issue")).toBeNull();
    expect(splitNamespaced("__x")).toBeNull();
    expect(splitNamespaced("github__")).toBeNull();
  });
});
