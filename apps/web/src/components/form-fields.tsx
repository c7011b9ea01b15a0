import { type InputHTMLAttributes, type ReactNode, useId } from "react";

/** What a Field's control spreads so that a screen reader reads its hint or error with it. */
export interface FieldDescription {
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/**
 * A labelled control with its hint, or the server's messages for it in place of the hint. The control gets
 * the id the label points at and `describedBy` (aria-invalid, aria-describedby naming the message).
 */
export function Field(props: { label: string; error?: string[]; hint?: ReactNode; children: (id: string, invalid: boolean, describedBy: FieldDescription) => ReactNode }) {
  const id = useId();
  const invalid = Boolean(props.error && props.error.length > 0);
  const messageId = `${id}-message`;
  const hasMessage = invalid || Boolean(props.hint);
  const describedBy: FieldDescription = { "aria-invalid": invalid || undefined, "aria-describedby": hasMessage ? messageId : undefined };
  return (
    <div className="min-w-0 space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {props.label}
      </label>
      {props.children(id, invalid, describedBy)}
      {props.hint && !invalid ? (
        <p id={messageId} className="text-xs text-slate-500">
          {props.hint}
        </p>
      ) : null}
      {invalid ? (
        <p id={messageId} className="text-xs text-red-600" role="alert" data-field-error>
          {props.error!.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

export function inputClass(invalid: boolean): string {
  return invalid ? "input input-invalid" : "input";
}

export interface TextFieldProps extends Pick<InputHTMLAttributes<HTMLInputElement>, "type" | "autoComplete" | "placeholder" | "inputMode" | "disabled" | "required" | "aria-required"> {
  label: string;
  /** The input's name, which is also the field the server names in its validation errors. */
  name: string;
  value: string;
  onChange: (value: string) => void;
  /** The form's field errors (useFormErrors), of which this field shows errors[name]. */
  errors?: Record<string, string[] | undefined>;
  hint?: ReactNode;
}

/** A labelled one-line input whose messages come from the server's field errors under its name. */
export function TextField(props: TextFieldProps) {
  const { label, name, value, onChange, errors, hint, ...attributes } = props;
  return (
    <Field label={label} error={errors?.[name]} hint={hint}>
      {(id, invalid, describedBy) => <input id={id} {...describedBy} name={name} {...attributes} className={inputClass(invalid)} value={value} onChange={(event) => onChange(event.target.value)} />}
    </Field>
  );
}

/**
 * A whole-number field (a channel's priority and weight, a token's per-minute limits): the numeric keypad on
 * touch devices. The text is kept as typed; each form decides what an empty or malformed value means.
 */
export function NumberField(props: Omit<TextFieldProps, "type" | "inputMode">) {
  return <TextField {...props} inputMode="numeric" />;
}

/** A labelled choice among fixed options, `[value, label]` each; its messages come from the field errors under its name. */
export function SelectField(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [value: string, label: string])[];
  errors?: Record<string, string[] | undefined>;
  hint?: ReactNode;
  disabled?: boolean;
}) {
  return (
    <Field label={props.label} error={props.errors?.[props.name]} hint={props.hint}>
      {(id, invalid, describedBy) => (
        <select id={id} {...describedBy} name={props.name} className={inputClass(invalid)} value={props.value} disabled={props.disabled} onChange={(event) => props.onChange(event.target.value)}>
          {props.options.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/**
 * A value that a checkbox can waive ("Never expires", "Unlimited", "No budget"): the input shows only while the
 * box is clear. `inline` puts the box beside the input rather than above it.
 */
export function WaivableField(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  waiver: { name: string; label: string; checked: boolean; onChange: (checked: boolean) => void };
  input?: Pick<InputHTMLAttributes<HTMLInputElement>, "type" | "inputMode">;
  inline?: boolean;
  errors?: Record<string, string[] | undefined>;
  hint?: ReactNode;
}) {
  const { waiver } = props;
  return (
    <Field label={props.label} error={props.errors?.[props.name]} hint={props.hint}>
      {(id, invalid, describedBy) => (
        <div className={props.inline ? "flex items-center gap-3" : "space-y-1.5"}>
          <label className={props.inline ? "flex shrink-0 items-center gap-2 whitespace-nowrap text-sm" : "flex items-center gap-2 text-sm"}>
            <input type="checkbox" name={waiver.name} checked={waiver.checked} onChange={(event) => waiver.onChange(event.target.checked)} />
            {waiver.label}
          </label>
          {waiver.checked ? null : (
            <input id={id} {...describedBy} name={props.name} {...props.input} className={inputClass(invalid)} value={props.value} onChange={(event) => props.onChange(event.target.value)} />
          )}
        </div>
      )}
    </Field>
  );
}

export function FormError(props: { message: string | null }) {
  if (!props.message) return null;
  return (
    <div className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700" role="alert">
      {props.message}
    </div>
  );
}

/** The end of a dialog's form: its form-wide error, Cancel, and the submit button, disabled while it saves. */
/** A form's error and its buttons; without `onCancel` (a form on a page, not in a dialog), no Cancel. */
export function FormActions(props: { error: string | null; onCancel?: () => void; submitLabel: string; busy?: boolean }) {
  return (
    <>
      <FormError message={props.error} />
      <div className="flex justify-end gap-2">
        {props.onCancel ? (
          <button type="button" className="button" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" className="button-primary" disabled={props.busy}>
          {props.submitLabel}
        </button>
      </div>
    </>
  );
}
