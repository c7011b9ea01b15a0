import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { FormActions, TextField } from "../components/form-fields";
import { QueryState } from "../components/ui";
import { useSaveForm } from "../lib/use-save-form";
import { useTRPC } from "../trpc";

/** `a, b` <-> ["a", "b"]. */
const listOf = (text: string) => text.split(",").map((item) => item.trim()).filter(Boolean);

/**
 * A token's MCP access (administrators only): the MCP servers it may use through /mcp (`*`: every one its
 * group may; empty: none, 403) and the tools (`server__tool`, `server__*`; empty: every tool of them).
 */
export function TokenMcpAccess(props: { tokenId: number }) {
  const trpc = useTRPC();
  const access = useQuery(trpc.mcp.tokenAccess.queryOptions({ id: props.tokenId }));
  // The fields appear once the stored access is known: what the admin types is never overwritten by its arrival.
  if (!access.data) return <QueryState isPending={access.isPending} error={access.error} />;
  return <TokenMcpAccessForm tokenId={props.tokenId} initial={access.data} />;
}

function TokenMcpAccessForm(props: { tokenId: number; initial: { mcpServers: string[]; mcpTools: string[] } }) {
  const trpc = useTRPC();
  const servers = useQuery(trpc.mcp.list.queryOptions());
  const [mcpServers, setMcpServers] = useState(props.initial.mcpServers.join(", "));
  const [mcpTools, setMcpTools] = useState(props.initial.mcpTools.join(", "));
  const save = useSaveForm((callbacks) => trpc.mcp.setTokenAccess.mutationOptions(callbacks));
  const submit = save.submit(() => ({ id: props.tokenId, mcpServers: listOf(mcpServers), mcpTools: listOf(mcpTools) }));
  const names = servers.data?.map((server) => server.name).join(", ");
  // Both are comma-separated lists, read back with listOf on submit.
  const listFields = [
    {
      label: "MCP servers",
      name: "mcpServers",
      value: mcpServers,
      onChange: setMcpServers,
      placeholder: "none: no MCP access",
      hint: `Comma-separated names, or * for every server the token's group may use.${names ? ` Registered: ${names}.` : ""}`,
    },
    { label: "MCP tools", name: "mcpTools", value: mcpTools, onChange: setMcpTools, placeholder: "every tool of those servers", hint: "server__tool or server__*, comma-separated." },
  ];
  return (
    <form onSubmit={submit} className="mt-6 space-y-4 border-t border-slate-200 pt-4" data-testid="token-mcp-access">
      <div>
        <h3 className="text-sm font-semibold">MCP access</h3>
        <p className="text-xs text-slate-500">Saved on its own with Save MCP access, apart from the token's settings above.</p>
      </div>
      {listFields.map((field) => (
        <TextField key={field.name} errors={save.errors.fields} {...field} />
      ))}
      {save.saved ? <p className="text-sm text-green-700">MCP access saved.</p> : null}
      <FormActions error={save.errors.form} submitLabel="Save MCP access" busy={save.isPending} />
    </form>
  );
}
