import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { FormActions, SelectField, TextField } from "../components/form-fields";
import { ResourceTable, RowButton } from "../components/resource-table";
import { LoadOlder } from "../components/search-pager";
import { Badge, Modal, PageHeader } from "../components/ui";
import { changedFields } from "../lib/audit-changes";
import { formatTime } from "../lib/format";
import { type RangeKey, rangeWindow, ranges } from "../lib/ranges";
import type { Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

type AuditRow = Outputs["audit"]["list"]["items"][number];

function actorOf(row: AuditRow): string {
  const kind = row.actorKind === "api_key" ? "API key" : row.actorKind === "cli" ? "CLI" : "user";
  return `${kind} ${row.actorName ?? ""}${row.actorId === null ? "" : ` #${row.actorId}`}`.trim();
}

/** The object's name at the time (from the row's after, else its before), so that a row reads "team Platform (#3)", not "team 3". */
function nameOf(row: AuditRow): string | null {
  for (const side of [row.after, row.before]) {
    if (side !== null && typeof side === "object" && !Array.isArray(side)) {
      const name = (side as Record<string, unknown>).name;
      if (typeof name === "string" && name !== "") return name;
    }
  }
  return null;
}

function objectOf(row: AuditRow): string {
  const name = nameOf(row);
  if (name === null || name === row.objectId) return `${row.objectType} ${row.objectId ?? ""}`.trim();
  return `${row.objectType} ${name}${row.objectId === null ? "" : ` (#${row.objectId})`}`;
}

function ChangeDetail(props: { row: AuditRow; onClose: () => void }) {
  const json = (value: unknown) => (value === null || value === undefined ? "(none)" : JSON.stringify(value, null, 2));
  const changed = changedFields(props.row.before, props.row.after);
  return (
    <Modal title={`${props.row.action} · ${objectOf(props.row)}`} onClose={props.onClose} wide>
      {changed.length > 0 ? (
        <p className="mb-3 text-sm text-slate-700" data-testid="audit-changed">
          <span className="font-medium">Changed:</span> <span className="font-mono text-xs">{changed.join(", ")}</span>
        </p>
      ) : null}
      <div className="grid gap-3 md:grid-cols-2">
        {(["before", "after"] as const).map((side) => (
          <div key={side}>
            <p className="mb-1 text-sm font-medium capitalize text-slate-700">{side}</p>
            <pre className="max-h-96 overflow-auto rounded-md bg-slate-50 p-2 text-xs" data-testid={`audit-${side}`}>
              {json(props.row[side])}
            </pre>
          </div>
        ))}
      </div>
      <p className="mt-3 break-all font-mono text-xs text-slate-400">hash {props.row.hash}</p>
    </Modal>
  );
}

function RetentionForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.audit.retention.queryOptions());
  const [days, setDays] = useState<string | null>(null);
  const form = useFormErrors();
  const save = useMutation(
    trpc.audit.setRetention.mutationOptions({
      onSuccess: () => {
        form.clear();
        setDays(null);
        void queryClient.invalidateQueries({ queryKey: trpc.audit.retention.queryKey() });
      },
      onError: form.fromError,
    }),
  );
  const shown = days ?? (current.data?.days == null ? "" : String(current.data.days));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ days: shown.trim() === "" ? null : Number(shown) });
  };
  const kept = current.data ? (current.data.days == null ? "rows are kept forever" : `rows older than ${current.data.days} days are deleted`) : "…";
  // A setting changed once in a while: folded, so that the log itself comes first (on a phone above all).
  return (
    <details className="card mb-4 p-3" data-testid="audit-retention">
      <summary className="cursor-pointer text-sm text-slate-700">
        <span className="font-medium">Retention:</span> {kept}
      </summary>
      <form className="mt-3 flex flex-wrap items-end gap-3" onSubmit={submit}>
        <TextField label="Keep audit rows (days; empty: forever)" name="days" value={shown} onChange={setDays} errors={form.errors.fields} inputMode="numeric" />
        <FormActions error={form.errors.form} submitLabel="Save retention" busy={save.isPending} />
      </form>
    </details>
  );
}

/** The audit log: who changed what, from where, filtered, with its chain's verification and a CSV export. */
export function AuditPage() {
  const trpc = useTRPC();
  const [range, setRange] = useState<RangeKey | "all">("7d");
  const [span, setSpan] = useState(() => rangeWindow("7d"));
  const [actor, setActor] = useState("");
  const [action, setAction] = useState("");
  const [objectType, setObjectType] = useState("");
  const [objectId, setObjectId] = useState("");
  const [detail, setDetail] = useState<AuditRow | null>(null);
  const filters = {
    actor: actor.trim() || undefined,
    action: action.trim() || undefined,
    objectType: objectType.trim() || undefined,
    objectId: objectId.trim() || undefined,
    ...(range === "all" ? {} : span),
  };
  const rows = useInfiniteQuery(trpc.audit.list.infiniteQueryOptions({ ...filters, limit: 50 }, { getNextPageParam: (page) => page.nextCursor }));
  const verification = useQuery({ ...trpc.audit.verify.queryOptions(), enabled: false });
  const csvQuery = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) csvQuery.set(name, value instanceof Date ? value.toISOString() : value);
  const items = rows.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <div>
      <PageHeader
        title="Audit log"
        description="Every change made in the console, with the CLI or through the management API, newest first."
        actions={
          <>
            <a className="button" href={`/export/audit.csv?${csvQuery}`} download>
              Export CSV
            </a>
            <button type="button" className="button" onClick={() => void verification.refetch()} disabled={verification.isFetching}>
              {verification.isFetching ? "Verifying…" : "Verify chain"}
            </button>
          </>
        }
      />
      {verification.data ? (
        <div className="card mb-4 p-3 text-sm" role="status" data-testid="audit-verification">
          {verification.data.ok ? (
            <Badge color="green">intact: {verification.data.checked} rows chain correctly</Badge>
          ) : (
            <Badge color="red">
              broken at row {verification.data.firstBroken?.id}: {verification.data.firstBroken?.reason}
            </Badge>
          )}
        </div>
      ) : null}
      <RetentionForm />
      <div className="card mb-4 grid grid-cols-1 gap-3 p-3 sm:grid-cols-3 lg:grid-cols-5">
        <SelectField
          label="Time"
          name="range"
          value={range}
          onChange={(value) => {
            const chosen = value as RangeKey | "all";
            setRange(chosen);
            if (chosen !== "all") setSpan(rangeWindow(chosen));
          }}
          options={[...Object.entries(ranges).map(([value, { label }]) => [value, label] as const), ["all", "All time"]]}
        />
        <TextField label="Actor" name="actor" value={actor} onChange={setActor} placeholder="name contains" />
        <TextField label="Action" name="action" value={action} onChange={setAction} placeholder="token.create or token." />
        <TextField label="Object type" name="objectType" value={objectType} onChange={setObjectType} placeholder="token, user, channel…" />
        <TextField label="Object id" name="objectId" value={objectId} onChange={setObjectId} />
      </div>
      <ResourceTable
        source={{ rows: rows.isPending ? undefined : items, isPending: rows.isPending, error: rows.error }}
        testId="audit-table"
        rowKey={(row) => row.id}
        actions={(row) => <RowButton onClick={() => setDetail(row)}>Changes</RowButton>}
        empty="No changes match these filters."
        columns={[
          { header: "Time", className: "whitespace-nowrap", cell: (row) => formatTime(row.at) },
          { header: "Actor", cell: actorOf },
          { header: "From", className: "font-mono text-xs", cell: (row) => row.sourceAddress ?? "—" },
          { header: "Action", className: "font-mono text-xs", cell: (row) => row.action },
          { header: "Object", cell: objectOf },
        ]}
      />
      {detail ? <ChangeDetail row={detail} onClose={() => setDetail(null)} /> : null}
      <LoadOlder pages={rows} />
    </div>
  );
}
