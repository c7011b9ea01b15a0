import { useQuery } from "@tanstack/react-query";
import { clientSnippets } from "../lib/client-snippets";
import { useTRPC } from "../trpc";
import { ClientSnippetTabs } from "./client-snippet-tabs";
import { CopyButton } from "./ui";

/** The base address plus copyable client snippets, with $TOLLGATE_API_KEY where the key goes. */
export function QuickStartPanel() {
  const trpc = useTRPC();
  const info = useQuery(trpc.quickStart.info.queryOptions());
  const models = useQuery(trpc.models.available.queryOptions());
  const baseUrl = info.data?.baseUrl ?? `${window.location.origin}/v1`;
  const model = models.data?.[0];
  return (
    <div className="card min-w-0 space-y-4 p-4 sm:p-5" data-testid="quick-start">
      <div>
        <h2 className="text-base font-semibold">Quick start</h2>
        <p className="mt-1 text-sm text-slate-500">
          Configure your client with the base address and a token (Tokens, then Add token: the dialog shows these snippets with the real key). Any client that speaks the
          OpenAI API works, and Claude Code or the Anthropic SDK through /v1/messages.
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-sm font-medium text-slate-700">Base address</span>
        <code className="min-w-0 break-all rounded bg-slate-100 px-2 py-1 font-mono text-sm" data-testid="base-url">
          {baseUrl}
        </code>
        <CopyButton text={baseUrl} />
      </div>
      {model ? (
        <ClientSnippetTabs snippets={clientSnippets({ baseUrl, key: "$TOLLGATE_API_KEY", model })} />
      ) : (
        <p className="rounded-md bg-slate-50 p-3 text-sm text-slate-600" data-testid="quick-start-no-models">
          No model is available yet: an administrator adds a channel first. The snippets appear here once one serves a model.
        </p>
      )}
      <p className="text-xs text-slate-500">
        Keep the key on the server (an environment variable such as TOLLGATE_API_KEY); never put it in front-end code or a public repository. <code>GET {baseUrl}/models</code> with
        the key lists the models it may call.
      </p>
    </div>
  );
}
