import type { ReactNode } from "react";

/** A wrapping, scrolling row of small checkboxes (a token's models, an MCP server's teams), `[value, label]` each. */
export function CheckboxChips<Value extends string | number>(props: {
  name: string;
  options: readonly (readonly [value: Value, label: string])[];
  selected: readonly Value[];
  onToggle: (value: Value) => void;
  /** Shown in place of the boxes when there is nothing to choose. */
  empty?: ReactNode;
}) {
  return (
    <div className="flex max-h-36 flex-wrap gap-2 overflow-y-auto rounded-md border border-slate-200 p-2">
      {props.options.length === 0 && props.empty ? <span className="text-xs text-slate-500">{props.empty}</span> : null}
      {props.options.map(([value, label]) => (
        <label key={value} className="flex items-center gap-1.5 rounded border border-slate-200 px-2 py-0.5 text-xs">
          <input type="checkbox" name={props.name} value={value} checked={props.selected.includes(value)} onChange={() => props.onToggle(value)} />
          {label}
        </label>
      ))}
    </div>
  );
}
