import { useQuery } from "@tanstack/react-query";
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
        <div className="card overflow-x-auto">
          <table className="w-full text-sm" data-testid="team-mcp-usage">
            <thead className="text-left text-xs uppercase text-slate-500">
              <tr>
                <th className="px-3 py-2">MCP server</th>
                <th className="px-3 py-2">Calls</th>
                <th className="px-3 py-2">Errors</th>
                <th className="px-3 py-2">Cost</th>
                <th className="px-3 py-2">Tools</th>
              </tr>
            </thead>
            <tbody>
              {usage.data.map((row) => (
                <tr key={row.server} className="border-t border-slate-100">
                  <td className="px-3 py-2">{row.server}</td>
                  <td className="px-3 py-2">{formatNumber(row.calls)}</td>
                  <td className="px-3 py-2">{formatNumber(row.errors)}</td>
                  <td className="px-3 py-2">{formatUsd(row.cost)}</td>
                  <td className="px-3 py-2 text-xs text-slate-500">{row.tools.map((tool) => `${tool.tool} (${formatNumber(tool.calls)})`).join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
