const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The fields whose values differ between an audit row's before and after, sorted; none for a creation or a
 * deletion (one side is missing). The update time is left out: it moves with every change.
 */
export function changedFields(before: unknown, after: unknown): string[] {
  if (!isRecord(before) || !isRecord(after)) return [];
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  fields.delete("updatedAt");
  return [...fields].filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field])).sort();
}
