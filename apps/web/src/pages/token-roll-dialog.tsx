import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Field, FormError, inputClass } from "../components/form-fields";
import { RowButton } from "../components/resource-table";
import { OneTimeSecret } from "../components/secret-dialog";
import { Modal } from "../components/ui";
import { formatDateTime } from "../lib/format";
import type { TokenView } from "../lib/router-types";
import { useTRPC } from "../trpc";

const graceChoices = [
  { label: "Refuse the old key at once", seconds: 0 },
  { label: "1 hour", seconds: 3600 },
  { label: "24 hours", seconds: 24 * 3600 },
  { label: "7 days", seconds: 7 * 24 * 3600 },
] as const;

/** The key column: the current prefix, and the previous one while its grace period lasts, with each one's last use. */
export function TokenKeys(props: { token: TokenView }) {
  const { token } = props;
  const previousWorks = token.previousKeyExpiresAt !== null && token.previousKeyExpiresAt.getTime() > Date.now();
  return (
    <div data-testid="token-keys">
      <div>{token.keyPrefix}</div>
      <div className="font-sans text-slate-500">last used {formatDateTime(token.lastUsedAt, "never")}</div>
      {previousWorks ? (
        <div className="mt-1 font-sans text-amber-700" data-testid="token-previous-key">
          previous <span className="font-mono">{token.previousKeyPrefix}</span> works until {formatDateTime(token.previousKeyExpiresAt)}, last used{" "}
          {formatDateTime(token.previousKeyLastUsedAt, "never")}
        </div>
      ) : null}
    </div>
  );
}

/** Roll: a new secret for the same token (same settings, same usage), shown once; the old one works for the chosen grace period. */
export function RollTokenButton(props: { token: TokenView; onRolled: () => void }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [graceSeconds, setGraceSeconds] = useState<number>(24 * 3600);
  const [secret, setSecret] = useState<string | null>(null);
  const roll = useMutation(
    trpc.tokens.roll.mutationOptions({
      onSuccess: (result) => {
        setSecret(result.secret);
        props.onRolled();
      },
    }),
  );
  const close = () => {
    setOpen(false);
    setSecret(null);
    roll.reset();
  };
  return (
    <>
      <RowButton onClick={() => setOpen(true)}>Roll</RowButton>
      {open ? (
        <Modal title={`Roll the key of "${props.token.name}"`} onClose={close}>
          {secret === null ? (
            <div className="space-y-4">
              <p className="text-sm text-slate-600">
                The token gets a new key and keeps its settings and usage history. Clients still using the old key ({props.token.keyPrefix}) keep working
                until the grace period ends, then get 401.
              </p>
              <Field label="Old key keeps working for">
                {(id) => (
                  <select id={id} className={inputClass(false)} value={graceSeconds} onChange={(event) => setGraceSeconds(Number(event.target.value))}>
                    {graceChoices.map((choice) => (
                      <option key={choice.seconds} value={choice.seconds}>
                        {choice.label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <FormError message={roll.error ? roll.error.message : null} />
              <div className="flex justify-end gap-2">
                <button type="button" className="button" onClick={close}>
                  Cancel
                </button>
                <button type="button" className="button-primary" disabled={roll.isPending} onClick={() => roll.mutate({ id: props.token.id, graceSeconds })}>
                  Roll key
                </button>
              </div>
            </div>
          ) : (
            <OneTimeSecret secret={secret} testId="rolled-token-secret" warning="It is shown only this once and cannot be recovered." onDone={close} />
          )}
        </Modal>
      ) : null}
    </>
  );
}
