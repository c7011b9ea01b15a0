import { useQuery } from "@tanstack/react-query";
import { SimpleTable } from "../components/simple-table";
import { QueryState } from "../components/ui";
import { formatNumber } from "../lib/format";
import { formatUsd } from "../lib/money";
import { useTRPC } from "../trpc";

/** The MCP tool calls of the team's keys over the last 24 hours, per server (administrators and the team's admins). */
export function TeamMcpUsage(props: { teamId: number }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.mcp.teamUsage.queryOptions({ id: props.teamId }));
  return (
    <section>
      <h2 className="mb-2 font-semibold">MCP tool calls, last 24 hours</h2>
      <QueryState isPending={usage.isPending} error={usage.error} />
      {usage.data && usage.data.length === 0 ? <p className="text-sm text-slate-500">No MCP calls by the team's keys.</p> : null}
      {usage.data && usage.data.length > 0 ? (
        <SimpleTable
          testId="team-mcp-usage"
          headers={["MCP server", "Calls", "Errors", "Cost", "Tools"]}
          rows={usage.data}
          keyOf={(row) => row.server}
          cells={(row) => [
            row.server,
            formatNumber(row.calls),
            formatNumber(row.errors),
            formatUsd(row.cost),
            <span className="text-xs text-slate-500">{row.tools.map((tool) => `${tool.tool} (${formatNumber(tool.calls)})`).join(", ")}</span>,
          ]}
        />
      ) : null}
    </section>
  );
}
