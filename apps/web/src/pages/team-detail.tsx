import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useParams } from "react-router";
import { BudgetCell } from "../components/budget-fields";
import { SimpleTable } from "../components/simple-table";
import { FormActions, NumberField } from "../components/form-fields";
import { Badge, Modal, PageHeader, QueryState } from "../components/ui";
import { formatDateTime, formatNumber } from "../lib/format";
import { formatUsd } from "../lib/money";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";
import { TeamMcpUsage } from "./team-mcp-usage";
import { TeamForm } from "./teams";

/**
 * One team: its limits, members, usage and latest calls. Administrators change its settings; its team
 * admins add and remove members (tokens of the team are made on the Tokens page, with the team chosen).
 */
export function TeamDetailPage(props: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const id = Number(useParams().id);
  const team = useQuery(trpc.teams.byId.queryOptions({ id }));
  const usage = useQuery(trpc.teams.usage.queryOptions({ id }));
  const logs = useQuery(trpc.teams.logs.queryOptions({ id, limit: 20 }));
  const [editing, setEditing] = useState(false);
  const [adding, setAdding] = useState(false);
  const removeMember = useMutation(trpc.teams.removeMember.mutationOptions({ onSuccess: () => team.refetch() }));
  if (!team.data) return <QueryState isPending={team.isPending} error={team.error} />;
  const data = team.data;
  const managesMembers = props.isAdmin || data.yourRole === "team_admin";
  return (
    <div className="space-y-6">
      <PageHeader
        title={data.name}
        description={data.description || undefined}
        actions={
          <>
            {managesMembers ? (
              <button type="button" className="button" onClick={() => setAdding(true)}>
                Add member
              </button>
            ) : null}
            {props.isAdmin ? (
              <button type="button" className="button-primary" onClick={() => setEditing(true)}>
                Edit team
              </button>
            ) : null}
          </>
        }
      />
      <section className="card p-4 text-sm" data-testid="team-limits">
        <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
          <div>
            <div className="text-xs text-slate-500">Budget</div>
            <BudgetCell budget={data.budget} />
          </div>
          <div>
            <div className="text-xs text-slate-500">Models</div>
            {data.allowedModels.length === 0 ? "any" : data.allowedModels.join(", ")}
          </div>
          <div>
            <div className="text-xs text-slate-500">Per minute</div>
            {data.rpmLimit ?? "—"} requests, {data.tpmLimit ?? "—"} tokens
          </div>
          <div>
            <div className="text-xs text-slate-500">Single sign-on group</div>
            {data.oidcGroup ?? "—"}
          </div>
        </div>
      </section>
      <section>
        <h2 className="mb-2 font-semibold">Members ({data.members.length})</h2>
        <div className="card overflow-x-auto">
          <table className="w-full text-sm" data-testid="team-members">
            <tbody>
              {data.members.map((member) => (
                <tr key={member.userId} className="border-t border-slate-100 first:border-t-0">
                  <td className="px-3 py-2 font-medium">{member.name}</td>
                  <td className="px-3 py-2">
                    <Badge color={member.role === "team_admin" ? "indigo" : "slate"}>{member.role === "team_admin" ? "team admin" : "member"}</Badge>
                  </td>
                  <td className="px-3 py-2 text-slate-500">{member.source === "oidc" ? "from single sign-on" : "added by hand"}</td>
                  <td className="px-3 py-2 text-right">
                    {managesMembers ? (
                      <button type="button" className="button" disabled={removeMember.isPending} onClick={() => removeMember.mutate({ teamId: id, userId: member.userId })}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section>
        <h2 className="mb-2 font-semibold">Usage, last 30 days</h2>
        <QueryState isPending={usage.isPending} error={usage.error} />
        {usage.data && usage.data.length === 0 ? <p className="text-sm text-slate-500">No calls yet.</p> : null}
        {usage.data && usage.data.length > 0 ? (
          <SimpleTable
            testId="team-usage"
            headers={["Model", "Requests", "Tokens", "Cost"]}
            rows={usage.data}
            keyOf={(row) => row.model}
            cells={(row) => [row.model, formatNumber(row.requests), formatNumber(row.promptTokens + row.completionTokens), formatUsd(row.cost)]}
          />
        ) : null}
      </section>
      {managesMembers ? <TeamMcpUsage teamId={data.id} /> : null}
      <section>
        <h2 className="mb-2 font-semibold">Latest calls</h2>
        <QueryState isPending={logs.isPending} error={logs.error} />
        {logs.data && logs.data.length > 0 ? (
          <div className="card overflow-x-auto">
            <table className="w-full text-sm" data-testid="team-logs">
              <tbody>
                {logs.data.map((row) => (
                  <tr key={row.id} className="border-t border-slate-100 first:border-t-0">
                    <td className="px-3 py-2 whitespace-nowrap">{formatDateTime(row.createdAt)}</td>
                    <td className="px-3 py-2">{row.tokenName ?? "—"}</td>
                    <td className="px-3 py-2">{row.model}</td>
                    <td className="px-3 py-2">{row.status}</td>
                    <td className="px-3 py-2">{formatUsd(row.cost)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : logs.data ? (
          <p className="text-sm text-slate-500">No calls yet.</p>
        ) : null}
      </section>
      {editing ? (
        <Modal title="Edit team" onClose={() => setEditing(false)}>
          <TeamForm
            team={data}
            onDone={async () => {
              await team.refetch();
              setEditing(false);
            }}
            onCancel={() => setEditing(false)}
          />
        </Modal>
      ) : null}
      {adding ? (
        <Modal title="Add member" onClose={() => setAdding(false)}>
          <AddMemberForm
            teamId={id}
            onDone={async () => {
              await team.refetch();
              setAdding(false);
            }}
            onCancel={() => setAdding(false)}
          />
        </Modal>
      ) : null}
    </div>
  );
}

function AddMemberForm(props: { teamId: number; onDone: () => Promise<void>; onCancel: () => void }) {
  const trpc = useTRPC();
  const [userId, setUserId] = useState("");
  const [role, setRole] = useState<"member" | "team_admin">("member");
  const form = useFormErrors();
  const add = useMutation(trpc.teams.addMember.mutationOptions({ onSuccess: props.onDone, onError: form.fromError }));
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        form.clear();
        add.mutate({ teamId: props.teamId, userId: Number(userId), role });
      }}
    >
      <NumberField label="User id" name="userId" errors={form.errors.fields} value={userId} onChange={setUserId} />
      <label className="block text-sm">
        <span className="font-medium text-slate-700">Role</span>
        <select className="input mt-1" name="role" value={role} onChange={(event) => setRole(event.target.value === "team_admin" ? "team_admin" : "member")}>
          <option value="member">member</option>
          <option value="team_admin">team admin</option>
        </select>
      </label>
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel="Add member" busy={add.isPending} />
    </form>
  );
}
