import { TranslationError } from "@tollgate/upstream";

/** Something a channel that does not speak the Responses API cannot carry: answered 400 unsupported_parameter. */
export class UnsupportedParameter extends TranslationError {
  constructor(message: string, param: string | null = null) {
    super(message, param, "unsupported_parameter");
  }
}
