import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { renderEndpointTable } from "../scripts/readme-tables";

const root = join(import.meta.dir, "..");
const readme = await Bun.file(join(root, "README.md")).text();

/** Every `code: "..."` literal in the non-test sources under `folder`. */
async function codesIn(folder: string): Promise<Set<string>> {
  const codes = new Set<string>();
  for await (const path of new Glob("**/*.ts").scan(join(root, folder))) {
    if (path.endsWith(".test.ts")) continue;
    const text = await Bun.file(join(root, folder, path)).text();
    for (const match of text.matchAll(/\bcode: "([a-z_]+)"/g)) codes.add(match[1]!);
  }
  return codes;
}

function between(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`README.md lacks ${start}`);
  return text.slice(from, to + end.length);
}

describe("the README's tables", () => {
  test("the endpoint table is the one generated from the gateway's endpoint table (bun scripts/readme-tables.ts --write)", () => {
    expect(between(readme, "<!-- endpoint-table:start", "<!-- endpoint-table:end -->")).toBe(renderEndpointTable());
  });

  test("the error table names every code the gateway answers, and no code that nothing answers", async () => {
    const gateway = await codesIn("apps/gateway/src");
    // A translation refusal carries its code as an argument rather than a `code:` field.
    gateway.add("unsupported_parameter");
    const upstream = await codesIn("packages/upstream/src");
    const table = between(readme, "<!-- error-codes:start -->", "<!-- error-codes:end -->");
    // The codes are the second column of each row (the third, "When", names parameters and settings too).
    const codeColumns = table.split("\n").filter((line) => /^\| \d/.test(line)).map((line) => line.split("|")[2] ?? "");
    const documented = new Set(codeColumns.flatMap((column) => [...column.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!)));
    const missing = [...gateway].filter((code) => !documented.has(code)).sort();
    expect(missing).toEqual([]);
    const unknown = [...documented].filter((code) => !gateway.has(code) && !upstream.has(code)).sort();
    expect(unknown).toEqual([]);
  });
});
