import { expect } from "bun:test";
import type { Locator } from "../../apps/console/test-support/chromium";

/**
 * A refusal said where it belongs: the server's message shown in the form, its field marked invalid, and
 * none of the fields named in `notOn` (the refusal is about one field, not the whole form).
 */
export async function expectRefusedOnField(form: Locator, field: { label: string; message: string }, notOn: string[] = []): Promise<void> {
  await form.getByText(field.message).waitFor();
  expect(await form.getByLabel(field.label).getAttribute("aria-invalid")).toBe("true");
  for (const label of notOn) expect(await form.getByLabel(label).getAttribute("aria-invalid")).not.toBe("true");
}
