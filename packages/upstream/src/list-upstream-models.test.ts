import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HostileUpstream, LOCATION_SECRET, startFakeHostileUpstream } from "../../../test/helpers/fake-hostile-upstream";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";
import { listUpstreamModels } from "./list-upstream-models";

let hostile: HostileUpstream;

beforeAll(async () => {
  hostile = await startFakeHostileUpstream();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await hostile?.close();
}, SETUP_TIMEOUT_MS);

describe("listUpstreamModels from a hostile upstream", () => {
  for (const type of ["openai-compatible", "anthropic", "gemini"] as const) {
    test(`a redirect from a ${type} upstream is reported, not followed: the key never reaches the host it names`, async () => {
      hostile.setMode({ kind: "redirect", status: 302 });
      const result = await listUpstreamModels({ type, baseUrl: type === "openai-compatible" ? hostile.url : hostile.origin, apiKey: "sk-listing-key", config: {} });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error).toContain("redirect");
      expect(result.error).not.toContain(LOCATION_SECRET);
      expect(hostile.recorder.requests).toEqual([]);
    });
  }

  test("a model list that never ends is refused at its cap, and the upstream hung up on", async () => {
    hostile.setMode({ kind: "endless-json" });
    const cancelled = hostile.waitForCancel();
    const result = await listUpstreamModels({ type: "openai-compatible", baseUrl: hostile.url, apiKey: "sk-listing-key", config: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain("exceeded");
    await cancelled;
  });
});
