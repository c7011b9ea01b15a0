import { describe, expect, test } from "bun:test";
import { parseBase64DataUrl, parseDataUrl } from "./parse-data-url";

describe("data URLs", () => {
  test("a data URL is split at its first comma into media type, parameters and payload, as written", () => {
    expect(parseDataUrl("data:Image/PNG;charset=x;base64,iVBOR,w0=")).toEqual({
      mediaType: "Image/PNG",
      parameters: ["charset=x", "base64"],
      data: "iVBOR,w0=",
    });
    expect(parseDataUrl("data:,hello")).toEqual({ mediaType: "", parameters: [], data: "hello" });
    expect(parseDataUrl("https://example.com/a.png")).toBeNull();
    expect(parseDataUrl("data:image/png;base64")).toBeNull();
  });

  test("a base64 data URL gives its media type in lower case; any other gives null", () => {
    expect(parseBase64DataUrl("data:Image/PNG; BASE64 ,abc")).toEqual({ mediaType: "image/png", data: "abc" });
    expect(parseBase64DataUrl("data:text/plain,abc")).toBeNull();
  });
});
