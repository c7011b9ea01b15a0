import { TranslationError } from "../provider-adapter";

/**
 * Test support for the request translations (imported by tests only): the TranslationError `run` throws;
 * any other error is rethrown, and a `run` that returns fails the test.
 */
export function translationErrorOf(run: () => unknown): TranslationError {
  try {
    run();
  } catch (error) {
    if (error instanceof TranslationError) return error;
    throw error;
  }
  throw new Error("expected a TranslationError");
}
