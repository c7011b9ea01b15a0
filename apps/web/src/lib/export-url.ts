/**
 * The address of a server-side CSV export (apps/console export-csv): the whole range, streamed by the server
 * with this session's rights, not only the rows the page has loaded. Empty filters are left out.
 */
export function exportUrl(kind: "logs" | "usage", range: { from: Date; to: Date }, filters: Record<string, string | number | undefined> = {}): string {
  const query = new URLSearchParams({ from: range.from.toISOString(), to: range.to.toISOString() });
  for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== "") query.set(name, String(value));
  return `/export/${kind}.csv?${query}`;
}
