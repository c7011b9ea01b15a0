import { describe, expect, test } from "bun:test";
import type { CachedToken, CachedUser } from "../auth/cached-records";
import { GatewayError } from "../errors";
import { checkModelAllowed, modelRefusedBy } from "./model-allowed";

function caller(tokenModels: string[] | null, userModels: string[] | null) {
  return {
    token: { allowedModels: tokenModels && new Set(tokenModels) } as CachedToken,
    user: { allowedModels: userModels && new Set(userModels) } as CachedUser,
  };
}

describe("model lists of a key and its owner", () => {
  test("a model passes only when both lists allow it; no list allows every model", () => {
    expect(modelRefusedBy(caller(null, null), "gpt-4o")).toBeNull();
    expect(modelRefusedBy(caller(["gpt-4o"], ["gpt-4o", "gpt-4o-mini"]), "gpt-4o")).toBeNull();
    expect(modelRefusedBy(caller(null, ["gpt-4o-mini"]), "gpt-4o")).toBe("user");
    expect(modelRefusedBy(caller(["gpt-4o"], ["gpt-4o-mini"]), "gpt-4o")).toBe("user");
    expect(modelRefusedBy(caller(["gpt-4o-mini"], null), "gpt-4o")).toBe("token");
  });

  test("the refusal is a 403 model_not_allowed naming whose list refused", () => {
    let refusal: unknown;
    try {
      checkModelAllowed(caller(null, ["gpt-4o-mini"]), "gpt-4o");
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect((refusal as GatewayError).toEnvelope()).toEqual({
      error: {
        message: "Your account (an administrator's limit on all of its API keys) is not allowed to use the model 'gpt-4o'.",
        type: "permission_error",
        param: "model",
        code: "model_not_allowed",
      },
    });
    expect((refusal as GatewayError).status).toBe(403);
  });
});
