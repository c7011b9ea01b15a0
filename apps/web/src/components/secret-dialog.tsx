import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { clientSnippets } from "../lib/client-snippets";
import { useTRPC } from "../trpc";
import { ClientSnippetTabs } from "./client-snippet-tabs";
import { CopyButton, Modal } from "./ui";

/**
 * Shown once after a token is created: the secret cannot be read again. Closing it (Escape, ✕, the button)
 * before the key or a snippet holding it was copied asks first, since a lost key means a new token.
 */
export function SecretDialog(props: { secret: string; name: string; onClose: () => void }) {
  const trpc = useTRPC();
  const info = useQuery(trpc.quickStart.info.queryOptions());
  const models = useQuery(trpc.models.available.queryOptions());
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const markCopied = () => {
    setCopied(true);
    setConfirming(false);
  };
  const close = () => (copied ? props.onClose() : setConfirming(true));
  const baseUrl = info.data?.baseUrl ?? `${window.location.origin}/v1`;
  const snippets = clientSnippets({ baseUrl, key: props.secret, model: models.data?.[0] ?? "your-model" });
  return (
    <Modal title={`Token "${props.name}" created`} onClose={close} wide>
      <OneTimeSecret
        secret={props.secret}
        testId="token-secret"
        warning="It is shown only this once and cannot be recovered; if it is lost, create a new token and delete this one. Keep it on the server side (an environment variable), never in front-end code or a public repository."
        onCopied={markCopied}
        onDone={close}
      >
        <div className="space-y-1">
          <p className="text-sm font-medium text-slate-700">Use it</p>
          <ClientSnippetTabs snippets={snippets} onCopied={markCopied} />
        </div>
        {confirming ? (
          <div className="space-y-2 rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" role="alert" data-testid="secret-close-warning">
            <p>
              <strong>Close without copying the key?</strong> It cannot be shown again.
            </p>
            <div className="flex flex-wrap justify-end gap-2">
              <button type="button" className="button" onClick={() => setConfirming(false)}>
                Go back
              </button>
              <button type="button" className="button-danger" onClick={props.onClose}>
                Close without copying
              </button>
            </div>
          </div>
        ) : null}
      </OneTimeSecret>
    </Modal>
  );
}

/**
 * A key shown once (a new token's, a rolled one's): the warning, the key with its Copy button, what the caller
 * adds below it (how to use it, a confirmation), and the button that closes.
 */
export function OneTimeSecret(props: { secret: string; testId: string; warning: string; onCopied?: () => void; onDone: () => void; children?: ReactNode }) {
  return (
    <div className="space-y-4">
      <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" role="alert">
        <strong>Copy this key now.</strong> {props.warning}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <code className="min-w-0 flex-1 break-all rounded-md bg-slate-900 px-3 py-2 font-mono text-sm text-emerald-300" data-testid={props.testId}>
          {props.secret}
        </code>
        <CopyButton text={props.secret} onCopied={props.onCopied} />
      </div>
      {props.children}
      <div className="flex justify-end">
        <button type="button" className="button-primary" onClick={props.onDone}>
          I have stored the key
        </button>
      </div>
    </div>
  );
}
