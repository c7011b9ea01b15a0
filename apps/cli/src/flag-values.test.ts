import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { baseUrlSchema, expirySchema, int32Schema, positiveIntSchema, usdLimitSchema, usdSchema } from "@tollgate/admin";
import { z } from "zod";
import { CommandError } from "./command-error";
import { asLine, integerFromText, listFromText, pairsFromText, parseInput } from "./flag-values";

/** One flag's text through an admin schema, the way a command parses it. */
function parseFlag<Schema extends z.ZodType>(schema: Schema, text: unknown): z.output<Schema> {
  const parsed: { value?: unknown } = parseInput(z.object({ value: schema }), { value: text } as never);
  return parsed.value as z.output<Schema>;
}

afterEach(() => {
  setSystemTime();
});

describe("flag values through the admin schemas", () => {
  test("an expiry must lie in the future, and never means none", () => {
    setSystemTime(new Date("2030-01-01T00:00:00Z"));
    expect(parseFlag(expirySchema, "never")).toBeNull();
    expect(parseFlag(expirySchema, "2030-01-01T00:00:01Z")?.toISOString()).toBe("2030-01-01T00:00:01.000Z");
    expect(() => parseFlag(expirySchema, "2030-01-01T00:00:00Z")).toThrow(CommandError);
  });

  test("USD amounts become exact micro-USD", () => {
    expect(parseFlag(usdSchema, "0.000001")).toBe(1);
    expect(parseFlag(usdSchema, ".5")).toBe(500_000);
    expect(parseFlag(usdSchema, "3.")).toBe(3_000_000);
    expect(parseFlag(usdLimitSchema, "Unlimited")).toBeNull();
    for (const text of ["1e3", "-1", "+1", "0x10", "Infinity", "1,5", "1.0000001"]) {
      expect(() => parseFlag(usdSchema, text)).toThrow(CommandError);
    }
  });

  test("integers stay within a Postgres integer", () => {
    expect(parseFlag(int32Schema, integerFromText("-7"))).toBe(-7);
    expect(parseFlag(positiveIntSchema, integerFromText("2147483647"))).toBe(2_147_483_647);
    expect(() => parseFlag(positiveIntSchema, integerFromText("2147483648"))).toThrow(CommandError);
    expect(() => parseFlag(positiveIntSchema, integerFromText("1e2"))).toThrow(CommandError);
  });

  test("base URLs lose trailing slashes", () => {
    expect(parseFlag(baseUrlSchema, "https://api.example.com/v1///")).toBe("https://api.example.com/v1");
    expect(parseFlag(baseUrlSchema, "http://localhost:11434")).toBe("http://localhost:11434");
  });
});

describe("how the CLI words a schema's refusal", () => {
  test("a message reads on from the flag, or follows it after a colon when it starts with the value", () => {
    const labels = { rpmLimit: "--rpm", allowedIps: "--ip" };
    const schema = z.object({ rpmLimit: positiveIntSchema, allowedIps: z.array(z.string()).refine(() => false, '"x" is not an IP address') });
    expect(() => parseInput(schema, { rpmLimit: 0, allowedIps: [] }, labels)).toThrow("--rpm must be a positive integer");
    expect(() => parseInput(schema, { rpmLimit: 1, allowedIps: [] }, labels)).toThrow('--ip: "x" is not an IP address');
    expect(() => parseInput(schema, { allowedIps: [] }, labels)).toThrow("--rpm is required");
  });

  test("a sentence loses its capital after `error: `, an acronym keeps it", () => {
    expect(asLine('Unknown user "bob"')).toBe('unknown user "bob"');
    expect(asLine("USD only")).toBe("USD only");
  });

  test("lists are comma-separated, without empty items", () => {
    expect(listFromText("a, b ,c", "models")).toEqual(["a", "b", "c"]);
    expect(() => listFromText("a,,b", "models")).toThrow("--models must be a comma-separated list of non-empty names");
  });

  test("key=value pairs are comma-separated and trimmed; a pair missing a side is refused, a key given twice when the flag says so", () => {
    expect(pairsFromText(undefined, "map", "a=b")).toBeUndefined();
    expect(pairsFromText(" web_search = 0.01,file_search=0.0025 ", "builtin-tool", "tool=USD")).toEqual({ web_search: "0.01", file_search: "0.0025" });
    expect(pairsFromText("a=1,a=2", "builtin-tool", "tool=USD")).toEqual({ a: "2" });
    expect(pairsFromText("1024x1024/hd=0.08", "image-price", "SIZE=USD", "prices")).toEqual({ "1024x1024/hd": "0.08" });
    for (const text of ["a", "=1", "a=", "a=1,,b=2"]) {
      expect(() => pairsFromText(text, "image-price", "SIZE[/QUALITY]=USD", "prices")).toThrow("--image-price must be a comma-separated list of SIZE[/QUALITY]=USD");
    }
    expect(() => pairsFromText("a=1, a =2", "map", "public=upstream model names", "maps")).toThrow('--map maps "a" twice');
  });
});
