import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { FormError } from "./form-fields";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: focus moves into it when it opens (its first field, else its first control), Tab and
 * Shift+Tab stay inside it, Escape and the ✕ call onClose, and focus returns to what had it before.
 */
export function Modal(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const dialogRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = dialogRef.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const controls = () => [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
    (dialog.querySelector<HTMLElement>("input:not([disabled]), select:not([disabled]), textarea:not([disabled])") ?? controls()[0] ?? dialog).focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        event.stopPropagation();
        onClose.current();
        return;
      }
      if (event.key !== "Tab") return;
      const all = controls();
      const first = all[0];
      const last = all[all.length - 1];
      if (!first || !last) return;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    };
    dialog.addEventListener("keydown", onKey);
    return () => {
      dialog.removeEventListener("keydown", onKey);
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <div className="fixed inset-0 z-40 flex items-start justify-center overflow-y-auto bg-slate-900/40 p-3 pt-10 sm:p-4 sm:pt-16">
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={`card w-full min-w-0 ${props.wide ? "max-w-2xl" : "max-w-lg"} p-4 outline-none sm:p-5`}
      >
        <div className="mb-4 flex items-center justify-between gap-2">
          <h2 id={titleId} className="min-w-0 break-words text-lg font-semibold">
            {props.title}
          </h2>
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

/** Copies its text; says "Copied" for a moment after, and tells onCopied (the secret dialog counts copies). */
export function CopyButton(props: { text: string; label?: string; onCopied?: () => void }) {
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
    props.onCopied?.();
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <button type="button" className="button-small" onClick={copy} aria-live="polite">
      {copied ? "Copied" : (props.label ?? "Copy")}
    </button>
  );
}

export function CodeBlock(props: { code: string; testId?: string; onCopied?: () => void }) {
  return (
    <div className="relative">
      <pre className="overflow-x-auto rounded-md bg-slate-900 p-3 pr-16 text-xs leading-relaxed text-slate-100" data-testid={props.testId}>
        <code>{props.code}</code>
      </pre>
      <div className="absolute right-2 top-2">
        <CopyButton text={props.code} onCopied={props.onCopied} />
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
      {props.actions ? <div className="flex flex-wrap gap-2">{props.actions}</div> : null}
    </div>
  );
}

export function QueryState(props: { isPending: boolean; error: unknown }) {
  if (props.isPending) return <p className="p-4 text-sm text-slate-500">Loading…</p>;
  if (props.error) return <FormError message={props.error instanceof Error ? props.error.message : "Failed to load"} />;
  return null;
}
