/**
 * Ready-to-paste client configurations, shared by the quick start (with $TOLLGATE_API_KEY in place of a key)
 * and the one-time secret dialog (with the real key, which is why that dialog is the only place it appears).
 */
export interface SnippetTarget {
  /** The gateway's OpenAI-style base address, ending in /v1. */
  baseUrl: string;
  /** The key as the snippet shows it: a real secret, or a shell variable reference. */
  key: string;
  model: string;
}

export interface Snippet {
  id: "curl" | "node" | "python" | "claude-code";
  label: string;
  code: string;
}

/** Claude Code and the Anthropic SDKs append /v1/messages themselves: they take the address without /v1. */
function anthropicBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/v1\/?$/, "");
}

/** A literal key is quoted into code; a variable reference is read from the environment. */
function keyExpression(key: string, language: "node" | "python"): string {
  const variable = /^\$([A-Z_]+)$/.exec(key)?.[1];
  if (!variable) return JSON.stringify(key);
  return language === "node" ? `process.env.${variable}` : `os.environ["${variable}"]`;
}

export function clientSnippets(target: SnippetTarget): Snippet[] {
  const { baseUrl, key, model } = target;
  return [
    {
      id: "curl",
      label: "curl",
      code: `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer ${key}" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"${model}","messages":[{"role":"user","content":"Hello"}]}'`,
    },
    {
      id: "node",
      label: "Node.js (openai)",
      code: `import OpenAI from "openai";

const client = new OpenAI({
  baseURL: "${baseUrl}",
  apiKey: ${keyExpression(key, "node")}, // server-side only
});

const completion = await client.chat.completions.create({
  model: "${model}",
  messages: [{ role: "user", content: "Hello" }],
});
console.log(completion.choices[0].message.content);`,
    },
    {
      id: "python",
      label: "Python (openai)",
      code: `from openai import OpenAI
import os

client = OpenAI(base_url="${baseUrl}", api_key=${keyExpression(key, "python")})
completion = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(completion.choices[0].message.content)`,
    },
    {
      id: "claude-code",
      label: "Claude Code",
      code: `export ANTHROPIC_BASE_URL=${anthropicBaseUrl(baseUrl)}
export ANTHROPIC_API_KEY=${key}
claude`,
    },
  ];
}
