import { describe, expect, test } from "bun:test";
import { clientSnippets } from "./client-snippets";

describe("clientSnippets", () => {
  test("a real key is written into every snippet, and Claude Code gets the address without /v1", () => {
    const snippets = clientSnippets({ baseUrl: "http://gw.example:3000/v1", key: "sk-real", model: "gpt-4o-mini" });
    expect(snippets.map((snippet) => snippet.id)).toEqual(["curl", "node", "python", "claude-code"]);
    for (const snippet of snippets) expect(snippet.code).toContain("sk-real");
    expect(snippets[0]!.code).toContain("curl http://gw.example:3000/v1/chat/completions");
    expect(snippets[1]!.code).toContain('apiKey: "sk-real"');
    expect(snippets[3]!.code).toBe("export ANTHROPIC_BASE_URL=http://gw.example:3000\nexport ANTHROPIC_API_KEY=sk-real\nclaude");
  });

  test("a variable reference is read from the environment in code", () => {
    const [, node, python] = clientSnippets({ baseUrl: "http://gw/v1", key: "$TOLLGATE_API_KEY", model: "m" });
    expect(node!.code).toContain("apiKey: process.env.TOLLGATE_API_KEY");
    expect(python!.code).toContain('api_key=os.environ["TOLLGATE_API_KEY"]');
  });
});
