import { type UseMutationOptions, useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useFormErrors } from "./use-form-errors";

/** What useSaveForm hands to the procedure's mutationOptions. */
export interface SaveCallbacks {
  onSuccess: () => Promise<void>;
  onError: (error: unknown) => void;
}

/**
 * A form that saves settings in place (the alert webhook, the log retention, a token's MCP access): a
 * refusal becomes the form's field or form errors; an acceptance shows `saved` until the next submit and
 * runs `onSaved` (forget what was typed, refetch what is stored). `submit(input)` is the form's onSubmit:
 * it sends `input()`.
 */
export function useSaveForm<Output, Failure, Input, Context>(
  procedure: (callbacks: SaveCallbacks) => UseMutationOptions<Output, Failure, Input, Context>,
  onSaved: () => Promise<unknown> | void = () => {},
) {
  const form = useFormErrors();
  const [saved, setSaved] = useState(false);
  const mutation = useMutation(
    procedure({
      onSuccess: async () => {
        setSaved(true);
        await onSaved();
      },
      onError: form.fromError,
    }),
  );
  const submit = (input: () => Input) => (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    setSaved(false);
    mutation.mutate(input());
  };
  return { errors: form.errors, saved, isPending: mutation.isPending, submit };
}
