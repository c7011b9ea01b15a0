import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { BudgetFields, browserTimeZone, useBudgetSettings } from "../components/budget-fields";
import { Field, FormActions, inputClass, NumberField, TextField, WaivableField } from "../components/form-fields";
import { formatDateTime, toLocalInput } from "../lib/format";
import { formatUsd, microsToInput } from "../lib/money";
import type { TokenView } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";
import { InheritedLimits } from "./inherited-limits";
import { ModelCheckboxes } from "../components/model-checkboxes";
import { ResponseCacheFields, responseCacheTtlFrom, responseCacheValue } from "../components/response-cache-fields";
import { TeamOptions } from "../components/team-options";

const BY_ADMIN = "set by an administrator";

/**
 * Add or edit a token. Once saved, `onSaved` refreshes the list and closes the form; on create, `onCreated`
 * then receives the secret (shown once by the caller). A user who is not an administrator edits within the
 * ceilings an administrator granted (the server enforces them; the form says them) and never sets the group.
 */
export function TokenForm(props: {
  token?: TokenView;
  isAdmin: boolean;
  onCancel: () => void;
  onSaved: () => Promise<void>;
  onCreated: (secret: string, name: string) => void;
}) {
  const trpc = useTRPC();
  const editing = props.token;
  const models = useQuery(trpc.models.available.queryOptions());
  const users = useQuery({ ...trpc.users.list.queryOptions({ offset: 0, limit: 200 }), enabled: props.isAdmin && !editing });
  const [name, setName] = useState(editing?.name ?? "");
  const [userId, setUserId] = useState<string>("");
  const [teamId, setTeamId] = useState<string>("");
  // The teams the signed-in user may make tokens for (every team for an administrator).
  const teams = useQuery({ ...trpc.teams.list.queryOptions(), enabled: !editing });
  const [group, setGroup] = useState(editing?.group ?? "");
  const [neverExpires, setNeverExpires] = useState(editing ? editing.expiresAt === null : true);
  const [expiresAt, setExpiresAt] = useState(editing?.expiresAt ? toLocalInput(editing.expiresAt) : toLocalInput(new Date(Date.now() + 30 * 86_400_000)));
  const [unlimited, setUnlimited] = useState(editing ? editing.quotaLimit === null : true);
  const [quota, setQuota] = useState(microsToInput(editing?.quotaLimit) || "10");
  const budgetSettings = useBudgetSettings({ period: editing?.budgetPeriod ?? "none", timeZone: editing?.budgetTimeZone ?? browserTimeZone(), thresholds: editing?.alertThresholds });
  const [allowedModels, setAllowedModels] = useState<string[]>(editing?.allowedModels ?? []);
  const [ips, setIps] = useState((editing?.allowedIps ?? []).join("\n"));
  const [rpm, setRpm] = useState(String(editing?.rpmLimit ?? ""));
  const [tpm, setTpm] = useState(String(editing?.tpmLimit ?? ""));
  const [responseCache, setResponseCache] = useState(responseCacheValue(editing));
  const form = useFormErrors();
  const granted = props.isAdmin ? {} : (editing?.grantedLimits ?? {});
  // The owner's account limits every token of theirs: the form shows them, and lists only their models.
  const ownerId = editing ? editing.userId : props.isAdmin && userId !== "" ? Number(userId) : undefined;
  const owner = useQuery(trpc.tokens.ownerLimits.queryOptions({ userId: ownerId }));
  const ownerModels = owner.data?.allowedModels.length ? owner.data.allowedModels : null;
  const modelCeiling = granted.allowedModels?.length ? granted.allowedModels : ownerModels;

  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: async (result) => {
        await props.onSaved();
        props.onCreated(result.secret, result.token.name);
      },
      onError: form.fromError,
    }),
  );
  const update = useMutation(trpc.tokens.update.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    let expiry: string | null = null;
    if (!neverExpires) {
      const date = new Date(expiresAt);
      if (Number.isNaN(date.getTime())) return form.setField("expiresAt", "Enter a date and time");
      expiry = date.toISOString();
    }
    const rpmLimit = limitFrom(rpm);
    if (rpmLimit === undefined) return form.setField("rpmLimit", NOT_A_LIMIT);
    const tpmLimit = limitFrom(tpm);
    if (tpmLimit === undefined) return form.setField("tpmLimit", NOT_A_LIMIT);
    const responseCacheTtlSeconds = responseCacheTtlFrom(responseCache.ttl);
    if (responseCacheTtlSeconds === undefined) return form.setField("responseCacheTtlSeconds", "Enter a whole number of seconds, or leave empty for off");
    const fields = {
      name,
      group: props.isAdmin ? (group.trim() === "" ? null : group.trim()) : undefined,
      expiresAt: expiry,
      quotaLimit: unlimited ? null : quota,
      ...budgetSettings.values(),
      allowedModels,
      allowedIps: ips.split("\n"),
      rpmLimit,
      tpmLimit,
      responseCacheTtlSeconds,
      responseCacheScope: responseCache.scope,
    };
    if (editing) update.mutate({ id: editing.id, ...fields });
    else create.mutate({ ...fields, userId: userId === "" ? undefined : Number(userId), teamId: teamId === "" ? null : Number(teamId) });
  };

  const toggleModel = (model: string) =>
    setAllowedModels((current) => (current.includes(model) ? current.filter((item) => item !== model) : [...current, model]));
  const perMinuteLimits = [
    { name: "rpmLimit", label: "Requests per minute", value: rpm, onChange: setRpm, unset: "Empty: no per-token limit." },
    { name: "tpmLimit", label: "Tokens per minute", value: tpm, onChange: setTpm, unset: "Prompt + completion tokens, counted as calls finish. Empty: no limit." },
  ] as const;
  const knownModels = [...new Set([...(modelCeiling ?? models.data ?? []), ...allowedModels])].sort();
  const errors = form.errors.fields;

  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Name" name="name" errors={errors} hint="Tells tokens apart, e.g. by client or purpose." value={name} onChange={setName} />
        {props.isAdmin ? (
          <TextField label="Group" name="group" errors={errors} hint="Empty: the owner's group." value={group} placeholder="default" onChange={setGroup} />
        ) : (
          <Field label="Group" error={errors.group} hint={editing?.group ? "Set by an administrator." : "Your group; only an administrator can change it."}>
            {(id, _invalid, describedBy) => <input id={id} {...describedBy} name="group" className="input" value={editing?.group ?? "your group"} readOnly disabled />}
          </Field>
        )}
      </div>
      <InheritedLimits limits={owner.data} own={!props.isAdmin || ownerId === undefined} />
      {props.isAdmin && !editing ? (
        <Field label="Owner" error={errors.userId}>
          {(id, invalid, describedBy) => (
            <select id={id} {...describedBy} name="userId" className={inputClass(invalid)} value={userId} onChange={(event) => setUserId(event.target.value)}>
              <option value="">Me</option>
              {(users.data?.items ?? []).map((user) => (
                <option key={user.id} value={user.id}>
                  {user.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {!editing && (teams.data?.length ?? 0) > 0 ? (
        <Field label="Team" error={errors.teamId} hint="A team's token spends from the team's budget too, within the team's limits.">
          {(id, invalid, describedBy) => (
            <select id={id} {...describedBy} name="teamId" className={inputClass(invalid)} value={teamId} onChange={(event) => setTeamId(event.target.value)}>
              <option value="">None (personal)</option>
              <TeamOptions teams={teams.data} />
            </select>
          )}
        </Field>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <WaivableField
          label="Expiry"
          name="expiresAt"
          errors={errors}
          hint={granted.expiresAt ? `By ${formatDateTime(new Date(granted.expiresAt))} at the latest (${BY_ADMIN}).` : undefined}
          waiver={{ name: "neverExpires", label: "Never expires", checked: neverExpires, onChange: setNeverExpires }}
          input={{ type: "datetime-local" }}
          value={expiresAt}
          onChange={setExpiresAt}
        />
        <WaivableField
          label="Quota (USD)"
          name="quotaLimit"
          errors={errors}
          hint={granted.quotaLimit != null ? `At most ${formatUsd(granted.quotaLimit)} (${BY_ADMIN}).` : undefined}
          waiver={{ name: "unlimitedQuota", label: "Unlimited", checked: unlimited, onChange: setUnlimited }}
          input={{ inputMode: "decimal" }}
          value={quota}
          onChange={setQuota}
        />
      </div>
      <BudgetFields
        errors={errors}
        {...budgetSettings.fields}
        disabled={!props.isAdmin && granted.quotaLimit != null}
        hint={!props.isAdmin && granted.quotaLimit != null ? `The quota's period (${BY_ADMIN}).` : "The quota applies to each period and resets by itself."}
      />
      <Field label="Model restriction" error={errors.allowedModels} hint={modelHint(allowedModels.length, modelCeiling !== null, !granted.allowedModels?.length)}>
        {() => <ModelCheckboxes models={knownModels} selected={allowedModels} onToggle={toggleModel} />}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="IP allow-list"
          error={errors.allowedIps}
          hint={granted.allowedIps?.length ? `Within ${granted.allowedIps.join(", ")} (${BY_ADMIN}).` : "One IP or CIDR range per line (v4 or v6). Empty: any address."}
        >
          {(id, invalid, describedBy) => (
            <textarea id={id} {...describedBy} name="allowedIps" rows={3} className={`${inputClass(invalid)} font-mono`} value={ips} placeholder={"203.0.113.7\n10.0.0.0/8"} onChange={(event) => setIps(event.target.value)} />
          )}
        </Field>
        <div className="space-y-4">
          {perMinuteLimits.map((limit) => (
            <NumberField
              key={limit.name}
              label={limit.label}
              name={limit.name}
              errors={errors}
              hint={perMinuteHint(granted[limit.name], owner.data?.[limit.name], limit.unset)}
              value={limit.value}
              onChange={limit.onChange}
            />
          ))}
        </div>
      </div>
      <ResponseCacheFields value={responseCache} onChange={setResponseCache} isAdmin={props.isAdmin} errors={errors} />
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel={editing ? "Save" : "Create token"} busy={create.isPending || update.isPending} />
    </form>
  );
}

const NOT_A_LIMIT = "Enter a whole number, or leave empty for no limit";

/** A per-minute limit as typed: empty is no limit (null), a whole number is the limit, anything else undefined. */
function limitFrom(text: string): number | null | undefined {
  if (text.trim() === "") return null;
  const limit = Number(text);
  return Number.isInteger(limit) ? limit : undefined;
}

/** A per-minute limit's hint: the administrator's ceiling, else the account's, else what an empty field means. */
function perMinuteHint(granted: number | null | undefined, account: number | null | undefined, unset: string): string {
  if (granted != null) return `At most ${granted} (${BY_ADMIN}).`;
  if (account != null) return `At most ${account}, the account's limit. Empty: no per-token limit.`;
  return unset;
}

function modelHint(selected: number, limitedByAdmin: boolean, byAccount: boolean): string {
  if (limitedByAdmin && byAccount) {
    return selected === 0 ? "None selected: every model the account allows." : `${selected} selected: only these may be called.`;
  }
  if (limitedByAdmin) return `Only the models an administrator allowed are listed; select at least one. ${selected} selected.`;
  return selected === 0 ? "None selected: every model is allowed." : `${selected} selected: only these may be called.`;
}
