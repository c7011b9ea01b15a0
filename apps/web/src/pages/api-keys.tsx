import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, FormActions, inputClass, SelectField, TextField } from "../components/form-fields";
import { querySource, ResourceTable, RowButton } from "../components/resource-table";
import { OneTimeSecret } from "../components/secret-dialog";
import { TeamOptions } from "../components/team-options";
import { Badge, ConfirmDialog, Modal, PageHeader } from "../components/ui";
import { formatDateTime } from "../lib/format";
import type { Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

type ApiKey = Outputs["apiKeys"]["list"][number];

/** Keys of the management API (/api/v1): created here or with the CLI, shown once, revoked at once. */
export function ApiKeysPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  const teams = useQuery(trpc.teams.list.queryOptions());
  const teamName = (id: number | null) => (id === null ? "every team" : (teams.data?.find((team) => team.id === id)?.name ?? `team ${id}`));
  const [name, setName] = useState("");
  const [scope, setScope] = useState("read");
  const [teamId, setTeamId] = useState("");
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const form = useFormErrors();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (result) => {
        form.clear();
        setName("");
        setTeamId("");
        setCreated({ name: result.apiKey.name, secret: result.secret });
        refresh();
      },
      onError: form.fromError,
    }),
  );
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        refresh();
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name, scope: scope as "read" | "write", teamId: teamId === "" ? null : Number(teamId) });
  };
  return (
    <div>
      <PageHeader title="API keys" description={<>Keys for the management API at /api/v1 (its OpenAPI document: /api/v1/openapi.json).</>} />
      <form className="card mb-4 flex flex-wrap items-end gap-3 p-3" onSubmit={submit}>
        <TextField label="Name" name="name" value={name} onChange={setName} errors={form.errors.fields} />
        <SelectField label="Scope" name="scope" value={scope} onChange={setScope} options={[["read", "read (GET only)"], ["write", "write (also changes)"]]} errors={form.errors.fields} />
        <Field label="Limited to team" error={form.errors.fields.teamId} hint="A team's key acts as that team's admin: its tokens, members and usage only.">
          {(id, invalid, describedBy) => (
            <select id={id} {...describedBy} name="teamId" className={inputClass(invalid)} value={teamId} onChange={(event) => setTeamId(event.target.value)}>
              <option value="">None: every object</option>
              <TeamOptions teams={teams.data} />
            </select>
          )}
        </Field>
        <FormActions error={form.errors.form} submitLabel="Create key" busy={create.isPending} />
      </form>
      <ResourceTable
        source={querySource(keys)}
        testId="api-keys-table"
        rowKey={(key) => key.id}
        actions={(key) => (key.revokedAt ? null : <RowButton onClick={() => setRevoking(key)}>Revoke</RowButton>)}
        empty="No API keys yet: create one above for a script or a CI job that manages Tollgate through /api/v1."
        columns={[
          { header: "Name", cell: (key) => key.name },
          { header: "Key", className: "font-mono text-xs", cell: (key) => key.keyPrefix },
          { header: "Scope", cell: (key) => key.scope },
          { header: "Team", cell: (key) => teamName(key.teamId) },
          { header: "Last used", cell: (key) => (key.lastUsedAt ? formatDateTime(key.lastUsedAt) : "never") },
          { header: "Status", cell: (key) => (key.revokedAt ? <Badge color="red">revoked</Badge> : <Badge color="green">active</Badge>) },
        ]}
      />
      {created ? (
        <Modal title={`API key "${created.name}" created`} onClose={() => setCreated(null)}>
          <OneTimeSecret secret={created.secret} testId="api-key-secret" warning="It is shown only this once; send it as Authorization: Bearer <key>." onDone={() => setCreated(null)} />
        </Modal>
      ) : null}
      {revoking ? (
        <ConfirmDialog
          title={`Revoke "${revoking.name}"?`}
          message="Requests with this key are refused from now on."
          confirmLabel="Revoke"
          busy={revoke.isPending}
          error={revoke.error?.message ?? null}
          onConfirm={() => revoke.mutate({ id: revoking.id })}
          onCancel={() => setRevoking(null)}
        />
      ) : null}
    </div>
  );
}
