import { describe, expect, test } from "bun:test";
import { TranslationError } from "@tollgate/upstream";
import { UnsupportedParameter } from "./codecs/responses/unsupported-parameter";
import { errors } from "./errors";

describe("errors.untranslatable", () => {
  test("maps a translator's malformed value to 400 invalid_value naming its parameter", () => {
    const error = errors.untranslatable(new TranslationError("tools.0.name: Field required", "tools.0.name"));
    expect({ status: error.status, code: error.code, param: error.param, message: error.message }).toEqual({
      status: 400,
      code: "invalid_value",
      param: "tools.0.name",
      message: "tools.0.name: Field required",
    });
  });

  test("maps a valid value the upstream cannot carry to 400 unsupported_parameter, whichever translator threw it", () => {
    expect(errors.untranslatable(new TranslationError("no", "messages.0.content.1.type", "unsupported_parameter")).code).toBe("unsupported_parameter");
    expect(errors.untranslatable(new UnsupportedParameter("Input items of type 'item_reference' cannot be sent", "input[0]")).code).toBe("unsupported_parameter");
  });
});
