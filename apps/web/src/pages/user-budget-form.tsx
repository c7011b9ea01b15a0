import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { BudgetFields, browserTimeZone, useBudgetSettings } from "../components/budget-fields";
import { FormActions, WaivableField } from "../components/form-fields";
import { formatDateTime } from "../lib/format";
import { formatUsdExact, microsToInput } from "../lib/money";
import type { UserView } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

/**
 * A user's budget: what all of their tokens may spend together, in all or per period. A new period or time
 * zone starts the period's count afresh (the server says so too).
 */
export function UserBudgetForm(props: { user: UserView; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const { user } = props;
  const [unlimited, setUnlimited] = useState(user.budgetLimit === null);
  const [amount, setAmount] = useState(microsToInput(user.budgetLimit) || "100");
  const budgetSettings = useBudgetSettings({ period: user.budgetPeriod, timeZone: user.budgetLimit === null ? browserTimeZone() : user.budgetTimeZone, thresholds: user.alertThresholds });
  const form = useFormErrors();
  const update = useMutation(trpc.users.update.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    update.mutate({ id: user.id, budget: unlimited ? null : amount, ...budgetSettings.values() });
  };
  const errors = form.errors.fields;
  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      {user.budgetLimit !== null ? (
        <p className="text-sm text-slate-600" data-testid="user-budget-status">
          Spent {formatUsdExact(user.budget.spent)} of {formatUsdExact(user.budgetLimit)}
          {user.budget.resetsAt ? `; resets ${formatDateTime(user.budget.resetsAt)}` : " in all"}.
        </p>
      ) : null}
      <WaivableField
        label="Budget (USD)"
        name="budget"
        errors={errors}
        hint="What all of the user's tokens may spend together. The balance applies as well."
        waiver={{ name: "unlimitedBudget", label: "No budget", checked: unlimited, onChange: setUnlimited }}
        input={{ inputMode: "decimal" }}
        inline
        value={amount}
        onChange={setAmount}
      />
      <BudgetFields errors={errors} {...budgetSettings.fields} />
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel="Save" busy={update.isPending} />
    </form>
  );
}
