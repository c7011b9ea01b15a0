import { microsToUsd } from "@tollgate/shared";

/** One JSON document per command, on one line, so that scripts can pipe it to jq. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Left-aligned columns separated by two spaces; `(none)` when there are no rows. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return "(none)\n";
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join("\n")}\n`;
}

/** `key: value` lines with the values aligned. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([key]) => key.length)) + 1;
  return `${fields.map(([key, value]) => `${`${key}:`.padEnd(width)} ${value}`).join("\n")}\n`;
}

/** `$12.500000`-style display of micro-USD, or `unlimited` for null. */
export function formatUsd(micros: number | null): string {
  return micros === null ? "unlimited" : `$${microsToUsd(micros)}`;
}

/** The JSON form of an amount: a decimal USD string (exact, unlike a float), or null for unlimited. */
export function usdForJson(micros: number | null): string | null {
  return micros === null ? null : microsToUsd(micros);
}

export function formatList(items: readonly string[], empty: string): string {
  return items.length === 0 ? empty : items.join(",");
}

export function formatDate(date: Date | null, empty: string): string {
  return date === null ? empty : date.toISOString();
}
