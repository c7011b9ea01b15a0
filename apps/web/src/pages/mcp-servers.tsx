import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { CheckboxChips } from "../components/checkbox-chips";
import { FormActions, SelectField, TextField } from "../components/form-fields";
import { ConfirmDelete, DeleteButton, NamedRecordTable, RowButton } from "../components/resource-table";
import { Badge, Modal, PageHeader } from "../components/ui";
import { formatMs, formatNumber } from "../lib/format";
import { formatUsd } from "../lib/money";
import type { Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useResourceList } from "../lib/use-resource-list";
import { useTRPC } from "../trpc";

type McpServerRow = Outputs["mcp"]["list"][number] & { status: string };
type McpTestResult = Outputs["mcp"]["test"];

const transports = [
  ["streamable-http", "Streamable HTTP (current)"],
  ["sse", "HTTP+SSE (older servers)"],
  ["stdio", "Local command (stdio; needs MCP_STDIO_ENABLED=true)"],
] as const;

/** A transport's short name, as a row shows it under the server's address. */
function transportLabel(transport: string): string {
  return transport === "streamable-http" ? "HTTP" : transport === "sse" ? "HTTP+SSE" : transport;
}

/** Enabled, disabled, or cooling down after a failure (until when, in the tooltip). */
function statusOf(server: Outputs["mcp"]["list"][number]): string {
  if (!server.enabled) return "disabled";
  return server.cooldownUntil && new Date(server.cooldownUntil).getTime() > Date.now() ? "cooling down" : "enabled";
}

/**
 * Register an MCP server, or (with `server`) change one: where it is, its credential (sealed, never shown
 * again; left empty when editing, the stored one is kept), who may use it, its price.
 */
function McpServerForm(props: { server?: McpServerRow; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const current = props.server;
  const [name, setName] = useState(current?.name ?? "");
  const [transport, setTransport] = useState<(typeof transports)[number][0]>(current?.transport ?? "streamable-http");
  const [url, setUrl] = useState(current?.url ?? "");
  const [command, setCommand] = useState(current?.command?.join(" ") ?? "");
  const [credential, setCredential] = useState("");
  const [credentialHeader, setCredentialHeader] = useState(current?.credentialHeader ?? "");
  const [groups, setGroups] = useState(current?.groups.join(", ") ?? "");
  const [teamIds, setTeamIds] = useState<number[]>(current?.teams ?? []);
  const teams = useQuery(trpc.teams.list.queryOptions());
  const teamsMessageId = useId();
  const [price, setPrice] = useState(current?.pricePerCall == null ? "" : String(current.pricePerCall / 1_000_000));
  const form = useFormErrors();
  const create = useMutation(trpc.mcp.create.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
  const update = useMutation(trpc.mcp.update.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    const typedCredential = credential.trim() === "" ? null : credential.trim();
    const values = {
      name: name.trim(),
      transport,
      url: transport === "stdio" ? null : url.trim(),
      command: transport === "stdio" ? command.split(/\s+/).filter(Boolean) : null,
      credentialHeader: credentialHeader.trim() === "" ? null : credentialHeader.trim(),
      groups: groups.split(",").map((group) => group.trim()).filter(Boolean),
      teams: teamIds,
      pricePerCall: price.trim() === "" ? null : price.trim(),
    };
    if (current) update.mutate({ id: current.id, ...values, ...(typedCredential === null ? {} : { credential: typedCredential }) });
    else create.mutate({ ...values, credential: typedCredential });
  };
  const errors = form.errors.fields;
  return (
    <form onSubmit={submit} className="space-y-4">
      <TextField label="Name" name="name" value={name} onChange={setName} errors={errors} hint="Its tools are NAME__TOOL behind /mcp; /mcp/NAME serves it alone." required />
      <SelectField label="Transport" name="transport" value={transport} onChange={(value) => setTransport(value as typeof transport)} options={transports} errors={errors} />
      {transport === "stdio" ? (
        <TextField label="Command" name="command" value={command} onChange={setCommand} errors={errors} placeholder="npx -y @modelcontextprotocol/server-everything" />
      ) : (
        <TextField label="URL" name="url" value={url} onChange={setUrl} errors={errors} placeholder="https://mcp.example.com/mcp" />
      )}
      <TextField label="Credential" name="credential" type="password" autoComplete="off" value={credential} onChange={setCredential} errors={errors} hint={
          current?.credentialMasked
            ? `Set (${current.credentialMasked}). Leave empty to keep it; a new URL origin or transport drops it.`
            : "Sent as Authorization: Bearer …, or in the header below; stored encrypted."
        }
      />
      <TextField label="Credential header" name="credentialHeader" value={credentialHeader} onChange={setCredentialHeader} errors={errors} placeholder="authorization" />
      <TextField label="Groups" name="groups" value={groups} onChange={setGroups} errors={errors} hint="Routing groups whose tokens may use it, comma-separated; with no group and no team: everyone." />
      {(teams.data?.length ?? 0) > 0 ? (
        <fieldset className="min-w-0 space-y-1" aria-describedby={teamsMessageId}>
          <legend className="block text-sm font-medium text-slate-700">Teams</legend>
          <CheckboxChips
            name="teams"
            options={(teams.data ?? []).map((team) => [team.id, team.name] as const)}
            selected={teamIds}
            onToggle={(id) => setTeamIds((chosen) => (chosen.includes(id) ? chosen.filter((other) => other !== id) : [...chosen, id]))}
          />
          {errors.teams ? (
            <p id={teamsMessageId} className="text-xs text-red-600" role="alert" data-field-error>
              {errors.teams.join(" ")}
            </p>
          ) : (
            <p id={teamsMessageId} className="text-xs text-slate-500">
              Teams whose keys may use it besides the groups (a member's personal key is not a team key).
            </p>
          )}
        </fieldset>
      ) : null}
      <TextField label="Price per call (USD)" name="pricePerCall" inputMode="decimal" value={price} onChange={setPrice} errors={errors} placeholder="free" />
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel={current ? "Save" : "Add MCP server"} busy={create.isPending || update.isPending} />
    </form>
  );
}

/** The outcome of the last Test: the tools the server lists, or why it failed. */
function TestOutcome(props: { result: McpTestResult | undefined }) {
  const result = props.result;
  if (!result) return <span className="text-slate-400">not tested</span>;
  if (!result.ok) {
    return (
      <div className="max-w-48 whitespace-normal break-words text-xs text-red-600" data-testid="mcp-test-error">
        {result.error}
      </div>
    );
  }
  return (
    <div className="space-y-1" data-testid="mcp-tools">
      <Badge color="green">OK · {formatMs(result.latencyMs)}</Badge>
      <div className="flex max-w-72 flex-wrap gap-1">
        {result.tools.map((tool) => (
          <span key={tool.name} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs" title={tool.description ?? undefined}>
            {tool.name}
          </span>
        ))}
      </div>
    </div>
  );
}

export function McpServersPage() {
  const trpc = useTRPC();
  const list = useResourceList({
    query: trpc.mcp.list.queryOptions(),
    rowsOf: (servers): McpServerRow[] => servers.map((server) => ({ ...server, status: statusOf(server) })),
    remove: trpc.mcp.delete.mutationOptions(),
  });
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<McpServerRow | null>(null);
  const [results, setResults] = useState<Record<number, McpTestResult>>({});
  const test = useMutation(trpc.mcp.test.mutationOptions({ onSuccess: (result) => setResults((all) => ({ ...all, [result.id]: result })) }));
  const toggle = useMutation(trpc.mcp.update.mutationOptions({ onSuccess: list.refresh }));
  const usage = useQuery({ ...trpc.mcp.usage.queryOptions(), staleTime: 0 });
  const usageOf = (server: McpServerRow) => usage.data?.find((row) => row.server === server.name);
  const teams = useQuery(trpc.teams.list.queryOptions());
  const teamName = (id: number) => teams.data?.find((team) => team.id === id)?.name ?? `team ${id}`;
  /** Who may use the server: its groups and teams, or everyone when it lists neither. */
  const audienceOf = (server: McpServerRow) =>
    server.groups.length === 0 && server.teams.length === 0 ? "everyone" : [...server.groups, ...server.teams.map((id) => `team ${teamName(id)}`)].join(", ");
  const saved = async () => {
    await list.refresh();
    setAdding(false);
    setEditing(null);
  };

  return (
    <div>
      <PageHeader
        title="MCP servers"
        description="Model Context Protocol servers behind the gateway's /mcp endpoint: clients use their tools with a Tollgate key, under its limits, logged and priced."
        actions={
          <button type="button" className="button-primary" onClick={() => setAdding(true)}>
            Add MCP server
          </button>
        }
      />
      <NamedRecordTable
        noun="mcp-server"
        source={list}
        empty="No MCP servers yet. Add one, then grant tokens access to it on the token form."
        nameDetails={(server) => (
          <div className="max-w-56 text-xs font-normal text-slate-500">
            <div className="truncate" title={server.url ?? server.command?.join(" ") ?? undefined}>
              {transportLabel(server.transport)} · {server.url ?? server.command?.join(" ")}
            </div>
            <div className="font-mono">{server.credentialMasked ? `credential ${server.credentialMasked}` : "no credential"}</div>
          </div>
        )}
        columns={[
          {
            header: "Status",
            cell: (server) => (
              <Badge color={server.status === "enabled" ? "green" : server.status === "cooling down" ? "red" : "slate"} title={server.lastError ?? undefined}>
                {server.status}
              </Badge>
            ),
          },
          { header: "Open to", cell: audienceOf },
          { header: "Price/call", numeric: true, cell: (server) => (server.pricePerCall === null ? "free" : formatUsd(server.pricePerCall)) },
          { header: "Tools", cell: (server) => <TestOutcome result={results[server.id]} /> },
          {
            header: "Last 24h",
            cell: (server) => {
              const traffic = usageOf(server);
              if (!traffic) return <span className="text-slate-400">no calls</span>;
              return (
                <div className="whitespace-nowrap" data-testid="mcp-usage">
                  <div>{formatNumber(traffic.calls)} calls</div>
                  <div className="text-xs text-slate-500">
                    {formatNumber(traffic.errors)} errors · {formatUsd(traffic.cost)}
                  </div>
                </div>
              );
            },
          },
        ]}
        actions={(server) => (
          <>
            <RowButton disabled={test.isPending && test.variables?.id === server.id} onClick={() => test.mutate({ id: server.id })}>
              {test.isPending && test.variables?.id === server.id ? "Testing…" : "Test"}
            </RowButton>
            <RowButton onClick={() => setEditing(server)}>Edit</RowButton>
            <RowButton disabled={toggle.isPending} onClick={() => toggle.mutate({ id: server.id, enabled: !server.enabled })}>
              {server.enabled ? "Disable" : "Enable"}
            </RowButton>
            <DeleteButton list={list} row={server} />
          </>
        )}
      />
      {adding ? (
        <Modal title="Add MCP server" onClose={() => setAdding(false)} wide>
          <McpServerForm onCancel={() => setAdding(false)} onSaved={saved} />
        </Modal>
      ) : null}
      {editing ? (
        <Modal title={`Edit MCP server "${editing.name}"`} onClose={() => setEditing(null)} wide>
          <McpServerForm server={editing} onCancel={() => setEditing(null)} onSaved={saved} />
        </Modal>
      ) : null}
      <ConfirmDelete list={list} noun="MCP server" afterName={() => "? Its tools disappear from /mcp at once."} />
    </div>
  );
}
