import type { ReactNode } from "react";

/** A small read-only table in a card: a header row, then one row per entry (keyed by `keyOf`). */
export function SimpleTable<Row>(props: { testId: string; headers: string[]; rows: readonly Row[]; keyOf: (row: Row) => string; cells: (row: Row) => ReactNode[] }) {
  return (
    <div className="card overflow-x-auto">
      <table className="w-full text-sm" data-testid={props.testId}>
        <thead className="text-left text-xs uppercase text-slate-500">
          <tr>
            {props.headers.map((header) => (
              <th key={header} className="px-3 py-2">
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.keyOf(row)} className="border-t border-slate-100">
              {props.cells(row).map((cell, index) => (
                <td key={props.headers[index] ?? index} className="px-3 py-2">
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
