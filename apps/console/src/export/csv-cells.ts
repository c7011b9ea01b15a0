/** A number written as text that must stay exact (money as decimal USD): never guarded, never a float. */
export interface DecimalCell {
  decimal: string;
}

export type CsvCell = string | number | boolean | null | undefined | Date | DecimalCell;

/** Characters that make a spreadsheet read a text cell as a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled. A text cell
 * that a spreadsheet would run as a formula (=, +, -, @, tab, carriage return first) is prefixed with `'`,
 * so that a model name or a token name chosen by a user cannot become `=HYPERLINK(...)` in an admin's sheet.
 * Numbers, booleans, dates and decimal money are written as they are: they come from the database, not users.
 */
export function csvField(cell: CsvCell): string {
  let text: string;
  if (cell === null || cell === undefined) text = "";
  else if (cell instanceof Date) text = cell.toISOString();
  else if (typeof cell === "object") text = cell.decimal;
  else if (typeof cell === "string") text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  else text = String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV record with its CRLF line end. */
export function csvLine(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(",")}\r\n`;
}
