import { describe, expect, test } from "bun:test";
import { keyFromEnvironment } from "./key-from-environment";

const variables: Record<string, string> = { OPENAI_API_KEY: "sk-upstream-123", BLANK: "  " };
const read = (name: string) => variables[name];

describe("--key-env", () => {
  test("is replaced by --key and the variable's value, in either spelling", () => {
    expect(keyFromEnvironment(["channel", "add", "--name", "a", "--key-env", "OPENAI_API_KEY", "--models", "m"], read)).toEqual({
      argv: ["channel", "add", "--name", "a", "--key", "sk-upstream-123", "--models", "m"],
    });
    expect(keyFromEnvironment(["channel", "add", "--key-env=OPENAI_API_KEY"], read)).toEqual({
      argv: ["channel", "add", "--key", "sk-upstream-123"],
    });
  });

  test("leaves a command without it untouched", () => {
    expect(keyFromEnvironment(["channel", "add", "--key", "sk-x"], read)).toEqual({ argv: ["channel", "add", "--key", "sk-x"] });
  });

  test("refuses an unset or blank variable, a missing name, and --key given as well", () => {
    expect(keyFromEnvironment(["channel", "add", "--key-env", "MISSING"], read)).toEqual({
      error: "the environment variable MISSING named by --key-env is not set",
    });
    expect(keyFromEnvironment(["channel", "add", "--key-env", "BLANK"], read)).toHaveProperty("error");
    expect(keyFromEnvironment(["channel", "add", "--key-env"], read)).toHaveProperty("error");
    expect(keyFromEnvironment(["channel", "add", "--key-env", "--models"], read)).toHaveProperty("error");
    expect(keyFromEnvironment(["channel", "add", "--key", "a", "--key-env", "OPENAI_API_KEY"], read)).toEqual({
      error: "give either --key or --key-env, not both",
    });
  });
});
