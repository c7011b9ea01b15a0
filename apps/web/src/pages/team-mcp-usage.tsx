import { useQuery } from "@tanstack/react-query";
import { querySource, ResourceTable } from "../components/resource-table";
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
      <ResourceTable
        testId="team-mcp-usage"
        source={querySource(usage)}
        rowKey={(row) => row.server}
        empty="No MCP calls by the team's keys."
        columns={[
          { header: "MCP server", cell: (row) => row.server },
          { header: "Calls", numeric: true, cell: (row) => formatNumber(row.calls) },
          { header: "Errors", numeric: true, cell: (row) => formatNumber(row.errors) },
          { header: "Cost", numeric: true, cell: (row) => formatUsd(row.cost) },
          {
            header: "Tools",
            cell: (row) => <span className="text-xs text-slate-500">{row.tools.map((tool) => `${tool.tool} (${formatNumber(tool.calls)})`).join(", ")}</span>,
          },
        ]}
      />
    </section>
  );
}
