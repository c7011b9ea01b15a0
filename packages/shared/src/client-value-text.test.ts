import { describe, expect, test } from "bun:test";
import { clientValueText } from "./client-value-text";

describe("clientValueText", () => {
  test("strings, numbers and booleans as they are, other values by their kind", () => {
    expect(clientValueText("tool")).toBe("tool");
    expect(clientValueText(3)).toBe("3");
    expect(clientValueText(false)).toBe("false");
    expect(clientValueText(null)).toBe("null");
    expect(clientValueText(undefined)).toBe("undefined");
    expect(clientValueText([1])).toBe("an array");
  });

  test("an object whose toString is not a function (as JSON.parse makes one) is named, where String() throws", () => {
    const hostile = JSON.parse('{"toString":1,"valueOf":2}');
    expect(() => String(hostile)).toThrow(TypeError);
    expect(clientValueText(hostile)).toBe("an object");
  });
});
