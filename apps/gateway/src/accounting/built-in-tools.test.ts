import { describe, expect, test } from "bun:test";
import { anthropicMessageToolCalls, builtInToolFamily, builtInToolFee, builtInToolHold, requestedBuiltInTools, responsesToolCalls } from "./built-in-tools";

describe("built-in tools", () => {
  test("dated and preview tool types map to their fee-bearing family; client-executed tools map to none", () => {
    expect(builtInToolFamily("web_search_preview_2025_03_11")).toBe("web_search");
    expect(builtInToolFamily("web_search_20250305")).toBe("web_search");
    expect(builtInToolFamily("web_fetch_20250910")).toBe("web_fetch");
    expect(builtInToolFamily("code_execution_20250825")).toBe("code_execution");
    for (const type of ["computer_use_preview", "computer_20250124", "bash_20250124", "text_editor_20250728", "local_shell", "function", "custom"]) {
      expect(builtInToolFamily(type)).toBeNull();
    }
  });

  test("a request's tools are read with their place in the body", () => {
    expect(requestedBuiltInTools([{ type: "function" }, { type: "file_search" }], (index) => `tools[${index}].type`)).toEqual([
      { family: "file_search", type: "file_search", param: "tools[1].type" },
    ]);
    expect(requestedBuiltInTools("not a list", String)).toEqual([]);
  });

  test("calls are counted from Response output items and from Anthropic blocks or usage, whichever is larger", () => {
    const output = [{ type: "web_search_call" }, { type: "web_search_call" }, { type: "computer_call" }, { type: "mcp_call" }, { type: "message" }];
    expect(responsesToolCalls({ output })).toEqual({ web_search: 2, mcp: 1 });
    const message = {
      content: [
        { type: "server_tool_use", name: "web_search" },
        { type: "server_tool_use", name: "bash_code_execution" },
        { type: "tool_use", name: "web_search" },
      ],
      usage: { server_tool_use: { web_search_requests: 3 } },
    };
    expect(anthropicMessageToolCalls(message)).toEqual({ web_search: 3, code_execution: 1 });
  });

  test("fees and holds are priced by the channel, to the micro-USD", () => {
    const config = { builtInTools: { web_search: { pricePerCall: 10_000 }, file_search: { pricePerCall: 2_500 } } };
    expect(builtInToolFee(config, { web_search: 3, file_search: 1, mcp: 4 })).toBe(32_500);
    const requested = requestedBuiltInTools([{ type: "web_search" }, { type: "web_search_preview" }, { type: "file_search" }], String);
    expect(builtInToolHold(config, requested)).toBe(12_500);
  });
});
