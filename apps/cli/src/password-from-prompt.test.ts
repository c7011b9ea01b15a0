import { describe, expect, test } from "bun:test";
import { passwordFromPrompt } from "./password-from-prompt";

const typed = (password: string) => async () => password;
const never = async (): Promise<string> => {
  throw new Error("the password should not have been asked for");
};

describe("passwordFromPrompt", () => {
  test("asks for an administrator's password when no password flag is given, and passes it as --password", async () => {
    expect(await passwordFromPrompt(["user", "create", "--name", "root", "--admin"], typed("typed-password"))).toEqual({
      argv: ["user", "create", "--name", "root", "--admin", "--password", "typed-password"],
    });
  });

  test("asks with --password-prompt for any user, and refuses it beside --password", async () => {
    expect(await passwordFromPrompt(["user", "create", "--name", "alice", "--password-prompt"], typed("alice-password"))).toEqual({
      argv: ["user", "create", "--name", "alice", "--password", "alice-password"],
    });
    expect(await passwordFromPrompt(["user", "create", "--password-prompt", "--password", "x"], never)).toHaveProperty("error");
  });

  test("leaves alone a command that gives its password, a user without one, and other commands", async () => {
    const given = ["user", "create", "--name", "root", "--admin", "--password=already-given"];
    expect(await passwordFromPrompt(given, never)).toEqual({ argv: given });
    expect(await passwordFromPrompt(["user", "create", "--name", "api-only"], never)).toEqual({ argv: ["user", "create", "--name", "api-only"] });
    expect(await passwordFromPrompt(["token", "create", "--admin"], never)).toEqual({ argv: ["token", "create", "--admin"] });
  });

  test("refuses an empty answer", async () => {
    expect(await passwordFromPrompt(["user", "create", "--name", "root", "--admin"], typed(""))).toEqual({ error: "no password was given" });
  });
});
