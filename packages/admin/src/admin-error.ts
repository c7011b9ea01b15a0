/**
 * What kind of refusal an admin operation made; each front maps it to its own answer (the console to a
 * tRPC code: BAD_REQUEST, NOT_FOUND, FORBIDDEN; the CLI to exit code 2).
 */
export type AdminErrorCode = "invalid_input" | "not_found" | "forbidden";

/**
 * A refusal the caller can act on: bad input the schemas could not see (a name taken, an unknown owner),
 * a missing record, or a write the actor may not make.
 *
 * The message is a whole sentence, written as the console shows it ("Unknown token id 7"); the CLI prints
 * it after `error: ` with its first letter lowered. It never contains a secret. `field` names the input
 * field at fault, so that a form can show the message under it; `fieldErrors` holds every field at fault
 * when one refusal covers several (a token edit that exceeds several ceilings at once).
 */
export class AdminError extends Error {
  readonly code: AdminErrorCode;
  readonly field: string | null;
  readonly fieldErrors: Record<string, string[]> | null;

  constructor(code: AdminErrorCode, message: string, options: { field?: string; fieldErrors?: Record<string, string[]> } = {}) {
    super(message);
    this.name = "AdminError";
    this.code = code;
    this.field = options.field ?? null;
    this.fieldErrors = options.fieldErrors ?? (options.field === undefined ? null : { [options.field]: [message] });
  }

  /** One refusal for several fields, each with its own messages; the message joins them all. */
  static forFields(code: AdminErrorCode, fieldErrors: Record<string, string[]>): AdminError {
    return new AdminError(code, Object.values(fieldErrors).flat().join("; "), { fieldErrors });
  }
}

/**
 * `Unknown user "alice"`: a user named by id or name, quoted as it was given. Named by an input field (a
 * token's owner), it is that field's error; otherwise the user is simply not found.
 */
export function unknownUser(reference: string | number, options: { field?: string } = {}): AdminError {
  const message = `Unknown user ${JSON.stringify(String(reference))}`;
  return new AdminError(options.field === undefined ? "not_found" : "invalid_input", message, options);
}
