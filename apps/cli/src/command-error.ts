/** Exit code for anything the operator can fix by changing the command: bad arguments, unknown ids. */
export const USAGE_EXIT_CODE = 2;

/**
 * An error whose message is shown to the operator as is (`error: <message>`). The message must never
 * contain a secret: callers name the flag that is wrong, not the value that was given.
 */
export class CommandError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number } = {}) {
    super(message);
    this.name = "CommandError";
    this.exitCode = options.exitCode ?? USAGE_EXIT_CODE;
  }
}
