import { type UseMutationOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useNavigate } from "react-router";
import { useFormErrors } from "./use-form-errors";

/** What useAuthForm hands to the procedure's mutationOptions. */
export interface AuthCallbacks {
  onSuccess: () => Promise<void>;
  onError: (error: unknown) => void;
}

/**
 * The sign-in and setup forms: once the server accepts, the session has changed, so every query refetches
 * before the console opens at `destination()`; a refusal becomes the form's field or form errors.
 * `submit(input)` is the form's onSubmit: it sends `input()` unless that is undefined (the form set a field error itself).
 */
export function useAuthForm<Output, Failure, Input, Context>(procedure: (callbacks: AuthCallbacks) => UseMutationOptions<Output, Failure, Input, Context>, destination: () => string) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const form = useFormErrors();
  const mutation = useMutation(
    procedure({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        navigate(destination(), { replace: true });
      },
      onError: form.fromError,
    }),
  );
  const submit = (input: () => Input | undefined) => (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    const sent = input();
    if (sent !== undefined) mutation.mutate(sent);
  };
  return { errors: form.errors, setField: form.setField, isPending: mutation.isPending, submit };
}
