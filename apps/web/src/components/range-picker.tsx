import { useState } from "react";
import { toLocalInput } from "../lib/format";

export type RangeChoice = "24h" | "7d" | "30d" | "custom";

const presets: { key: Exclude<RangeChoice, "custom">; label: string; ms: number }[] = [
  { key: "24h", label: "24h", ms: 86_400_000 },
  { key: "7d", label: "7d", ms: 7 * 86_400_000 },
  { key: "30d", label: "30d", ms: 30 * 86_400_000 },
];

export interface TimeSpan {
  from: Date;
  to: Date;
}

type SpanEnd = keyof TimeSpan;

const spanEnds: [SpanEnd, string][] = [
  ["from", "From"],
  ["to", "To"],
];

/** [from, to) of a preset, fixed when chosen so that query keys stay stable. */
export function presetSpan(key: Exclude<RangeChoice, "custom">, now = Date.now()): TimeSpan {
  const preset = presets.find((item) => item.key === key)!;
  return { from: new Date(now - preset.ms), to: new Date(now + 60_000) };
}

/** Preset ranges plus a custom from/to (local time), applied when both are valid and in order. */
export function RangePicker(props: { choice: RangeChoice; span: TimeSpan; onChange: (choice: RangeChoice, span: TimeSpan) => void }) {
  // The custom range's ends as typed (datetime-local text), applied as soon as both are valid and in order.
  const [custom, setCustom] = useState<Record<SpanEnd, string>>(() => ({ from: toLocalInput(props.span.from), to: toLocalInput(props.span.to) }));
  const customError = props.choice === "custom" && custom.from && custom.to && new Date(custom.from) >= new Date(custom.to) ? "The start must be before the end" : null;
  const applyCustom = (typed: Record<SpanEnd, string>) => {
    const start = new Date(typed.from);
    const end = new Date(typed.to);
    if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || start >= end) return;
    props.onChange("custom", { from: start, to: end });
  };
  const typeEnd = (which: SpanEnd, value: string) => {
    const typed = { ...custom, [which]: value };
    setCustom(typed);
    applyCustom(typed);
  };
  return (
    <div className="flex flex-wrap items-end gap-2">
      <div className="flex gap-1 rounded-md border border-slate-200 bg-white p-0.5" role="group" aria-label="Time range">
        {presets.map((preset) => (
          <button
            key={preset.key}
            type="button"
            aria-pressed={props.choice === preset.key}
            onClick={() => props.onChange(preset.key, presetSpan(preset.key))}
            className={`rounded px-2.5 py-1 text-sm ${props.choice === preset.key ? "bg-indigo-600 text-white" : "text-slate-600 hover:bg-slate-100"}`}
          >
            {preset.label}
          </button>
        ))}
        <button
          type="button"
          aria-pressed={props.choice === "custom"}
          onClick={() => applyCustom(custom)}
          className={`rounded px-2.5 py-1 text-sm ${props.choice === "custom" ? "bg-indigo-600 text-white" : "text-slate-600 hover:bg-slate-100"}`}
        >
          Custom
        </button>
        <button
          type="button"
          aria-label="Refresh"
          className="rounded px-2.5 py-1 text-sm text-slate-600 hover:bg-slate-100"
          onClick={() => (props.choice === "custom" ? props.onChange("custom", { ...props.span }) : props.onChange(props.choice, presetSpan(props.choice)))}
        >
          ↻
        </button>
      </div>
      {props.choice === "custom" ? (
        <div className="flex flex-wrap items-end gap-2">
          {spanEnds.map(([which, label]) => (
            <DateTimeField key={which} label={label} value={custom[which]} invalid={Boolean(customError)} onChange={(value) => typeEnd(which, value)} />
          ))}
          {customError ? (
            <p className="text-xs text-red-600" role="alert">
              {customError}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

function DateTimeField(props: { label: string; value: string; invalid: boolean; onChange: (value: string) => void }) {
  return (
    <label className="flex flex-col text-xs font-medium text-slate-500">
      {props.label}
      <input type="datetime-local" className="input" value={props.value} aria-invalid={props.invalid || undefined} onChange={(event) => props.onChange(event.target.value)} />
    </label>
  );
}
