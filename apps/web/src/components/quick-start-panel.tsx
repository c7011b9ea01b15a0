import { useQuery } from "@tanstack/react-query";
import { CodeBlock, CopyButton } from "./ui";
import { useTRPC } from "../trpc";

/** The base address plus copyable curl and openai-client examples. */
export function QuickStartPanel() {
  const trpc = useTRPC();
  const info = useQuery(trpc.quickStart.info.queryOptions());
  const models = useQuery(trpc.models.available.queryOptions());
  const baseUrl = info.data?.baseUrl ?? `${window.location.origin}/v1`;
  const model = models.data?.[0] ?? "gpt-4o-mini";
  const curl = `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $TOLLGATE_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"${model}","messages":[{"role":"user","content":"Hello"}]}'`;
  const node = `import OpenAI from "openai";

const client = new OpenAI({
  baseURL: "${baseUrl}",
  apiKey: process.env.TOLLGATE_API_KEY, // sk-..., server-side only
});

const completion = await client.chat.completions.create({
  model: "${model}",
  messages: [{ role: "user", content: "Hello" }],
});
console.log(completion.choices[0].message.content);`;
  const python = `from openai import OpenAI
import os

client = OpenAI(base_url="${baseUrl}", api_key=os.environ["TOLLGATE_API_KEY"])
completion = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(completion.choices[0].message.content)`;
  return (
    <div className="card space-y-4 p-5" data-testid="quick-start">
      <div>
        <h2 className="text-base font-semibold">Quick start</h2>
        <p className="mt-1 text-sm text-slate-500">
          1. Create a token under Tokens. 2. Configure your client with the base address and the token. 3. Call a model. Any client that speaks the OpenAI API works.
        </p>
      </div>
      <div className="flex items-center gap-2">
        <span className="text-sm font-medium text-slate-700">Base address</span>
        <code className="rounded bg-slate-100 px-2 py-1 font-mono text-sm" data-testid="base-url">
          {baseUrl}
        </code>
        <CopyButton text={baseUrl} />
      </div>
      <div className="space-y-1">
        <p className="text-sm font-medium text-slate-700">curl</p>
        <CodeBlock code={curl} />
      </div>
      <div className="grid gap-4 xl:grid-cols-2">
        <div className="space-y-1">
          <p className="text-sm font-medium text-slate-700">Node.js (openai)</p>
          <CodeBlock code={node} />
        </div>
        <div className="space-y-1">
          <p className="text-sm font-medium text-slate-700">Python (openai)</p>
          <CodeBlock code={python} />
        </div>
      </div>
      <p className="text-xs text-slate-500">
        Keep the key on the server (an environment variable such as TOLLGATE_API_KEY); never put it in front-end code or a public repository. <code>GET {baseUrl}/models</code> with
        the key lists the models it may call.
      </p>
    </div>
  );
}
