import { useState } from "react";
import { isClientError } from "../trpc";

export interface FormErrors {
  /** Messages by field name, from the server's validation. */
  fields: Record<string, string[] | undefined>;
  /** A message for the form as a whole (not tied to a field). */
  form: string | null;
}

const none: FormErrors = { fields: {}, form: null };

/** Turns a failed mutation into per-field messages (the console sends zod's flattened field errors). */
export function errorsFrom(error: unknown): FormErrors {
  if (!error) return none;
  if (isClientError(error)) {
    const fields = (error.data?.fieldErrors ?? {}) as Record<string, string[] | undefined>;
    const hasFields = Object.values(fields).some((messages) => messages && messages.length > 0);
    return { fields, form: hasFields ? null : error.message };
  }
  return { fields: {}, form: error instanceof Error ? error.message : String(error) };
}

/** Field errors of the last submit, plus client-side ones the form sets itself. */
export function useFormErrors() {
  const [errors, setErrors] = useState<FormErrors>(none);
  return {
    errors,
    clear: () => setErrors(none),
    fromError: (error: unknown) => setErrors(errorsFrom(error)),
    setField: (field: string, message: string) => setErrors((current) => ({ ...current, fields: { ...current.fields, [field]: [message] } })),
  };
}
