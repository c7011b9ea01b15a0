import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { BudgetCell, BudgetFields, browserTimeZone, useBudgetSettings } from "../components/budget-fields";
import { FormActions, NumberField, TextField } from "../components/form-fields";
import { ConfirmDelete, DeleteButton, ResourceTable, StatusButton } from "../components/resource-table";
import { Badge, Modal, PageHeader } from "../components/ui";
import type { Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useResourceList } from "../lib/use-resource-list";
import { useTRPC } from "../trpc";

/** "" means none; otherwise the text as typed (the server validates it). */
const optionalNumber = (text: string): number | null => (text.trim() === "" ? null : Number(text));
const listFrom = (text: string): string[] =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

type TeamRow = Outputs["teams"]["list"][number];
/** The settings of a team that its form edits, as the team's view returns them. */
type TeamSettings = Pick<
  Outputs["teams"]["byId"],
  "id" | "name" | "description" | "oidcGroup" | "budgetLimit" | "budgetPeriod" | "budgetTimeZone" | "alertThresholds" | "allowedModels" | "rpmLimit" | "tpmLimit"
>;

/** Teams: every team for an administrator, the teams one belongs to otherwise. */
export function TeamsPage(props: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const list = useResourceList({
    query: trpc.teams.list.queryOptions(),
    rowsOf: (rows): TeamRow[] => rows,
    update: trpc.teams.update.mutationOptions(),
    remove: trpc.teams.delete.mutationOptions(),
  });
  const [creating, setCreating] = useState(false);
  return (
    <div>
      <PageHeader
        title="Teams"
        description="A team's budget, model list and per-minute limits bind all of its tokens together, inside each token's and owner's own limits."
        actions={
          props.isAdmin ? (
            <button type="button" className="button-primary" onClick={() => setCreating(true)}>
              Add team
            </button>
          ) : null
        }
      />
      <ResourceTable
        testId="teams-table"
        source={list}
        rowKey={(team) => team.id}
        rowAttributes={(team) => ({ "data-team-name": team.name })}
        empty={
          props.isAdmin
            ? "No teams yet. Add one to give a group of people a shared budget and limits; its members then make tokens for it on the Tokens page."
            : "You are not a member of any team. An administrator adds you to one."
        }
        columns={[
          {
            header: "Name",
            className: "font-medium",
            cell: (team) => (
              <Link className="text-indigo-700 hover:underline" to={`/teams/${team.id}`}>
                {team.name}
              </Link>
            ),
          },
          { header: "Members", numeric: true, cell: (team) => team.memberCount },
          { header: "Tokens", numeric: true, cell: (team) => team.tokenCount },
          { header: "Budget", className: "whitespace-nowrap", cell: (team) => <BudgetCell budget={team.budget} /> },
          { header: "SSO group", cell: (team) => team.oidcGroup ?? "—" },
          { header: "Status", cell: (team) => <Badge color={team.status === "enabled" ? "green" : "slate"}>{team.status}</Badge> },
        ]}
        actions={(team) => (
          <>
            <Link className="button-small" to={`/teams/${team.id}`}>
              Members & usage
            </Link>
            {props.isAdmin ? (
              <>
                <StatusButton list={list} row={team} />
                <DeleteButton list={list} row={team} />
              </>
            ) : null}
          </>
        )}
      />
      <ConfirmDelete list={list} noun="team" afterName={() => "? Its API keys go with it; a team that still has tokens is kept."} />
      {creating ? (
        <Modal title="Add team" onClose={() => setCreating(false)} wide>
          <TeamForm
            onDone={async () => {
              await list.refresh();
              setCreating(false);
            }}
            onCancel={() => setCreating(false)}
          />
        </Modal>
      ) : null}
    </div>
  );
}

/** Creates a team, or (with `team`) changes its settings: administrators only. */
export function TeamForm(props: {
  team?: TeamSettings;
  onDone: () => Promise<void> | void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const current = props.team;
  const [name, setName] = useState(current?.name ?? "");
  const [description, setDescription] = useState(current?.description ?? "");
  const [oidcGroup, setOidcGroup] = useState(current?.oidcGroup ?? "");
  const [budget, setBudget] = useState(current?.budgetLimit == null ? "" : String(current.budgetLimit / 1_000_000));
  // A new team's periods start at the admin's midnight; an edit keeps the stored zone unless changed (a new zone restarts the period's count).
  const budgetSettings = useBudgetSettings({ period: current?.budgetPeriod ?? "none", timeZone: current ? current.budgetTimeZone : browserTimeZone(), thresholds: current?.alertThresholds });
  const [models, setModels] = useState(current?.allowedModels.join(", ") ?? "");
  const [rpm, setRpm] = useState(current?.rpmLimit == null ? "" : String(current.rpmLimit));
  const [tpm, setTpm] = useState(current?.tpmLimit == null ? "" : String(current.tpmLimit));
  const form = useFormErrors();
  const create = useMutation(trpc.teams.create.mutationOptions({ onSuccess: props.onDone, onError: form.fromError }));
  const update = useMutation(trpc.teams.update.mutationOptions({ onSuccess: props.onDone, onError: form.fromError }));
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    form.clear();
    const values = {
      name,
      description,
      oidcGroup: oidcGroup.trim() === "" ? null : oidcGroup.trim(),
      budget: budget.trim() === "" ? "unlimited" : budget.trim(),
      ...budgetSettings.values(),
      allowedModels: listFrom(models),
      rpmLimit: optionalNumber(rpm),
      tpmLimit: optionalNumber(tpm),
    };
    if (current) update.mutate({ id: current.id, ...values });
    else create.mutate(values);
  };
  return (
    <form className="space-y-4" onSubmit={submit}>
      <TextField label="Name" name="name" errors={form.errors.fields} value={name} onChange={setName} />
      <TextField label="Description" name="description" errors={form.errors.fields} value={description} onChange={setDescription} />
      <TextField
        label="Single sign-on group"
        name="oidcGroup"
        hint="Members of this identity-provider group join the team when they sign in."
        errors={form.errors.fields}
        value={oidcGroup}
        onChange={setOidcGroup}
      />
      <TextField label="Budget (USD)" name="budget" placeholder="unlimited" errors={form.errors.fields} value={budget} onChange={setBudget} />
      <BudgetFields errors={form.errors.fields} {...budgetSettings.fields} hint="The budget applies to each period and resets by itself." />
      <TextField label="Models (comma-separated; empty: any)" name="allowedModels" errors={form.errors.fields} value={models} onChange={setModels} />
      <NumberField label="Requests per minute (all tokens together)" name="rpmLimit" errors={form.errors.fields} value={rpm} onChange={setRpm} />
      <NumberField label="Tokens per minute (all tokens together)" name="tpmLimit" errors={form.errors.fields} value={tpm} onChange={setTpm} />
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel={current ? "Save" : "Add team"} busy={create.isPending || update.isPending} />
    </form>
  );
}
