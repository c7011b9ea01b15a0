import { type ReactNode, useEffect, useState } from "react";
import { FormError } from "./form-fields";

export function Modal(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && props.onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [props.onClose]);
  return (
    <div className="fixed inset-0 z-40 flex items-start justify-center overflow-y-auto bg-slate-900/40 p-4 pt-16">
      <div role="dialog" aria-modal="true" aria-label={props.title} className={`card w-full ${props.wide ? "max-w-2xl" : "max-w-lg"} p-5`}>
        <div className="mb-4 flex items-center justify-between">
          <h2 className="text-lg font-semibold">{props.title}</h2>
          <button type="button" className="text-slate-400 hover:text-slate-600" onClick={props.onClose} aria-label="Close">
            ✕
          </button>
        </div>
        {props.children}
      </div>
    </div>
  );
}

/** A dialog that asks before doing something that cannot be undone, and says why it failed if it did. */
export function ConfirmDialog(props: {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Modal title={props.title} onClose={props.onCancel}>
      <div className="space-y-4">
        <div className="text-sm text-slate-600">{props.message}</div>
        <FormError message={props.error ?? null} />
        <div className="flex justify-end gap-2">
          <button type="button" className="button" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="button" className="button-danger" disabled={props.busy} onClick={props.onConfirm}>
            {props.confirmLabel}
          </button>
        </div>
      </div>
    </Modal>
  );
}

export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
    } catch {
      // Clipboard API refused (plain http): fall back to a selection copy.
      const area = document.createElement("textarea");
      area.value = props.text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" className="button-small" onClick={copy}>
      {copied ? "Copied" : (props.label ?? "Copy")}
    </button>
  );
}

export function CodeBlock(props: { code: string; testId?: string }) {
  return (
    <div className="relative">
      <pre className="overflow-x-auto rounded-md bg-slate-900 p-3 pr-16 text-xs leading-relaxed text-slate-100" data-testid={props.testId}>
        <code>{props.code}</code>
      </pre>
      <div className="absolute right-2 top-2">
        <CopyButton text={props.code} />
      </div>
    </div>
  );
}

const badgeColors: Record<string, string> = {
  green: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
  red: "bg-red-50 text-red-700 ring-red-600/20",
  amber: "bg-amber-50 text-amber-800 ring-amber-600/20",
  slate: "bg-slate-100 text-slate-600 ring-slate-500/20",
  indigo: "bg-indigo-50 text-indigo-700 ring-indigo-600/20",
};

export function Badge(props: { color: keyof typeof badgeColors; children: ReactNode; title?: string }) {
  return (
    <span title={props.title} className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${badgeColors[props.color]}`}>
      {props.children}
    </span>
  );
}

export function PageHeader(props: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-5 flex flex-wrap items-end justify-between gap-3">
      <div>
        <h1 className="text-xl font-semibold text-slate-900">{props.title}</h1>
        {props.description ? <p className="mt-1 text-sm text-slate-500">{props.description}</p> : null}
      </div>
      {props.actions ? <div className="flex gap-2">{props.actions}</div> : null}
    </div>
  );
}

export function QueryState(props: { isPending: boolean; error: unknown }) {
  if (props.isPending) return <p className="p-4 text-sm text-slate-500">Loading…</p>;
  if (props.error) return <FormError message={props.error instanceof Error ? props.error.message : "Failed to load"} />;
  return null;
}
