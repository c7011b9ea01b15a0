import { useState } from "react";
import type { Snippet } from "../lib/client-snippets";
import { CodeBlock } from "./ui";

/** One snippet at a time behind a row of tabs (curl, Node, Python, Claude Code). */
export function ClientSnippetTabs(props: { snippets: Snippet[]; onCopied?: () => void }) {
  const [chosen, setChosen] = useState(props.snippets[0]!.id);
  const snippet = props.snippets.find((item) => item.id === chosen) ?? props.snippets[0]!;
  return (
    <div className="min-w-0 space-y-2">
      <div role="tablist" aria-label="Client" className="flex flex-wrap gap-1">
        {props.snippets.map((item) => (
          <button
            key={item.id}
            type="button"
            role="tab"
            aria-selected={item.id === snippet.id}
            className={`button-small ${item.id === snippet.id ? "border-indigo-500 text-indigo-700" : ""}`}
            onClick={() => setChosen(item.id)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={snippet.label}>
        <CodeBlock code={snippet.code} testId={`snippet-${snippet.id}`} onCopied={props.onCopied} />
      </div>
    </div>
  );
}
