/**
 * Rows as CSV text (RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled), and a
 * download of it. Money columns are written as exact decimal USD by the callers, never floats.
 */
export function toCsv(header: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const field = (value: string | number | boolean | null | undefined) => {
    const text = value === null || value === undefined ? "" : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [header, ...rows].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}

export function downloadCsv(fileName: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}
