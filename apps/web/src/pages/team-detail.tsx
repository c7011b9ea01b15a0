import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { BudgetCell } from "../components/budget-fields";
import { querySource, ResourceTable, RowButton } from "../components/resource-table";
import { FormActions, NumberField, SelectField, TextField } from "../components/form-fields";
import { Badge, ConfirmDialog, Modal, PageHeader, QueryState } from "../components/ui";
import { formatDateTime, formatNumber } from "../lib/format";
import { formatUsd } from "../lib/money";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";
import { TeamMcpUsage } from "./team-mcp-usage";
import { TeamForm } from "./teams";

/** When spend alerts fire for the team's budget, in words. */
function alertsText(thresholds: number[] | null): string {
  if (thresholds === null) return "alerts at the default thresholds";
  return thresholds.length === 0 ? "no alerts" : `alerts at ${thresholds.join(", ")}%`;
}

/** The dialog open over the page: the team's settings, a member to add, or a member to remove. */
type Dialog = { kind: "edit" } | { kind: "add" } | { kind: "remove"; member: { userId: number; name: string } };

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
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const close = () => setDialog(null);
  // After any change the team (its settings, its members) is read again before the dialog closes.
  const saved = async () => {
    await team.refetch();
    close();
  };
  const removeMember = useMutation(trpc.teams.removeMember.mutationOptions({ onSuccess: saved }));
  if (!team.data) return <QueryState isPending={team.isPending} error={team.error} />;
  const data = team.data;
  const managesMembers = props.isAdmin || data.yourRole === "team_admin";
  return (
    <div className="space-y-6">
      <Link className="-mb-4 inline-block text-sm text-indigo-700 hover:underline" to="/teams">
        ← All teams
      </Link>
      <PageHeader
        title={data.name}
        description={data.description || undefined}
        actions={
          <>
            {managesMembers ? (
              <button type="button" className="button" onClick={() => setDialog({ kind: "add" })}>
                Add member
              </button>
            ) : null}
            {props.isAdmin ? (
              <button type="button" className="button-primary" onClick={() => setDialog({ kind: "edit" })}>
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
            {data.budgetLimit === null ? null : (
              <div className="text-xs text-slate-500" data-testid="team-budget-settings">
                {data.budget.period === "none" ? "" : `periods start at midnight ${data.budgetTimeZone}; `}
                {alertsText(data.alertThresholds)}
              </div>
            )}
          </div>
          <div>
            <div className="text-xs text-slate-500">Models</div>
            {data.allowedModels.length === 0 ? "any" : data.allowedModels.join(", ")}
          </div>
          <div>
            <div className="text-xs text-slate-500">Per minute</div>
            {[data.rpmLimit === null ? null : `${formatNumber(data.rpmLimit)} requests`, data.tpmLimit === null ? null : `${formatNumber(data.tpmLimit)} tokens`].filter(Boolean).join(", ") || "no limit"}
          </div>
          <div>
            <div className="text-xs text-slate-500">Single sign-on group</div>
            {data.oidcGroup ?? "—"}
          </div>
        </div>
      </section>
      <section>
        <h2 className="mb-2 font-semibold">Members ({data.members.length})</h2>
        <ResourceTable
          testId="team-members"
          source={{ rows: data.members }}
          rowKey={(member) => member.userId}
          rowAttributes={(member) => ({ "data-member-name": member.name })}
          empty={managesMembers ? "No members yet: Add member puts a user in the team." : "No members yet."}
          columns={[
            { header: "Name", className: "font-medium", cell: (member) => member.name },
            {
              header: "Role",
              cell: (member) => <Badge color={member.role === "team_admin" ? "indigo" : "slate"}>{member.role === "team_admin" ? "team admin" : "member"}</Badge>,
            },
            { header: "Joined", className: "text-slate-500", cell: (member) => (member.source === "oidc" ? "from single sign-on" : "added by hand") },
          ]}
          actions={
            managesMembers
              ? (member) => (
                  <RowButton danger onClick={() => setDialog({ kind: "remove", member })}>
                    Remove
                  </RowButton>
                )
              : undefined
          }
        />
      </section>
      <section>
        <h2 className="mb-2 font-semibold">Usage, last 30 days</h2>
        <ResourceTable
          testId="team-usage"
          source={querySource(usage)}
          rowKey={(row) => row.model}
          empty="No calls yet."
          columns={[
            { header: "Model", cell: (row) => row.model },
            { header: "Requests", numeric: true, cell: (row) => formatNumber(row.requests) },
            { header: "Tokens", numeric: true, cell: (row) => formatNumber(row.promptTokens + row.completionTokens) },
            { header: "Cost", numeric: true, cell: (row) => formatUsd(row.cost) },
          ]}
        />
      </section>
      {managesMembers ? <TeamMcpUsage teamId={data.id} /> : null}
      <section>
        <h2 className="mb-2 font-semibold">Latest calls</h2>
        <QueryState isPending={logs.isPending} error={logs.error} />
        {logs.data ? (
          <ResourceTable
            testId="team-logs"
            source={{ rows: logs.data }}
            rowKey={(row) => row.id}
            empty="No calls yet: the team's tokens are made on the Tokens page, with this team chosen."
            columns={[
              { header: "Time", className: "whitespace-nowrap", cell: (row) => formatDateTime(row.createdAt) },
              { header: "Token", cell: (row) => row.tokenName ?? "—" },
              { header: "Model", cell: (row) => row.model },
              { header: "Status", numeric: true, cell: (row) => row.status },
              { header: "Cost", numeric: true, cell: (row) => formatUsd(row.cost) },
            ]}
          />
        ) : null}
      </section>
      {dialog?.kind === "edit" ? (
        <Modal title="Edit team" onClose={close} wide>
          <TeamForm team={data} onDone={saved} onCancel={close} />
        </Modal>
      ) : null}
      {dialog?.kind === "remove" ? (
        <ConfirmDialog
          title={`Remove ${dialog.member.name} from ${data.name}?`}
          message="They no longer see the team or manage it. No token is deleted: the team's tokens stay with the team."
          confirmLabel="Remove"
          busy={removeMember.isPending}
          error={removeMember.error?.message ?? null}
          onConfirm={() => removeMember.mutate({ teamId: id, userId: dialog.member.userId })}
          onCancel={() => {
            removeMember.reset();
            close();
          }}
        />
      ) : null}
      {dialog?.kind === "add" ? (
        <Modal title="Add member" onClose={close}>
          <AddMemberForm teamId={id} isAdmin={props.isAdmin} onDone={saved} onCancel={close} />
        </Modal>
      ) : null}
    </div>
  );
}

/**
 * Puts a user in the team. An administrator finds the user by name; a team admin (who cannot list users)
 * enters the user's id, which an administrator sees on the Users page.
 */
function AddMemberForm(props: { teamId: number; isAdmin: boolean; onDone: () => Promise<void>; onCancel: () => void }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [typedId, setTypedId] = useState("");
  const [picked, setPicked] = useState("");
  const [role, setRole] = useState<"member" | "team_admin">("member");
  const form = useFormErrors();
  const found = useQuery({ ...trpc.users.list.queryOptions({ query: search.trim() || undefined, offset: 0, limit: 50 }), enabled: props.isAdmin });
  const matches = found.data?.items ?? [];
  // The picked user while it is among the matches, else the first match.
  const chosen = props.isAdmin ? (matches.some((user) => String(user.id) === picked) ? picked : String(matches[0]?.id ?? "")) : typedId;
  const add = useMutation(trpc.teams.addMember.mutationOptions({ onSuccess: props.onDone, onError: form.fromError }));
  return (
    <form
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        form.clear();
        add.mutate({ teamId: props.teamId, userId: Number(chosen), role });
      }}
    >
      {props.isAdmin ? (
        <>
          <TextField label="Find a user" name="search" value={search} onChange={setSearch} placeholder="name or group contains" />
          <SelectField
            label="User"
            name="userId"
            value={chosen}
            onChange={setPicked}
            errors={form.errors.fields}
            hint={found.data && found.data.total > matches.length ? `The first ${matches.length} of ${found.data.total}: narrow the search.` : undefined}
            options={matches.length === 0 ? [["", found.isPending ? "Loading…" : "No user matches"]] : matches.map((user) => [String(user.id), user.name] as const)}
          />
        </>
      ) : (
        <NumberField label="User id" name="userId" hint="An administrator sees each user's id on the Users page." errors={form.errors.fields} value={typedId} onChange={setTypedId} />
      )}
      <SelectField
        label="Role"
        name="role"
        value={role}
        onChange={(value) => setRole(value === "team_admin" ? "team_admin" : "member")}
        errors={form.errors.fields}
        options={[
          ["member", "member (uses the team's tokens)"],
          ["team_admin", "team admin (also manages members and the team's tokens)"],
        ]}
      />
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel="Add member" busy={add.isPending} />
    </form>
  );
}
