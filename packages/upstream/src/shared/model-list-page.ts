/** Thrown inside a model listing to stop it with the message the admin sees. */
export class ListingFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/**
 * What an adapter's `listModels` is given: a GET that returns a page's JSON object (an error status, a
 * redirect, an oversized or non-JSON answer become a ListingFailure with the key scrubbed later), and the
 * most pages it may follow, so that a misbehaving upstream cannot make it loop forever.
 */
export interface ModelListPages {
  getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>>;
  maxPages: number;
}

/** A page's array field; absent counts as empty, anything else is not a model list. */
export function arrayField(page: Record<string, unknown>, field: string): unknown[] {
  const value = page[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ListingFailure(`The upstream's answer is not a model list ("${field}" is not an array)`);
  return value;
}
