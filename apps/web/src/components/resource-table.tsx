import { Fragment, type Key, type ReactNode } from "react";
import { NARROW_QUERY, useMediaQuery } from "../lib/use-media-query";
import type { ListedRecord, ResourceList } from "../lib/use-resource-list";
import { ConfirmDialog, QueryState } from "./ui";

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** Classes of each cell of the column. */
  className?: string;
  /** Right-aligned with tabular figures, header included: counts, money, latencies. */
  numeric?: boolean;
  /** A cell's tooltip: the whole text of a cell that truncates it. */
  title?: (row: Row) => string;
}

/** Where the rows come from: a useResourceList, or any query shaped alike (the logs' pages, a dashboard panel). */
export type TableSource<Row> = Pick<ResourceList<Row>, "rows"> & Partial<Pick<ResourceList<Row>, "isPending" | "error" | "actionError">>;

/** A query's answer as a table's source: its rows once loaded, the table showing the pending and failed states. */
export function querySource<Row>(query: { data: Row[] | undefined; isPending: boolean; error: ResourceList<Row>["error"] }): TableSource<Row> {
  return { rows: query.data, isPending: query.isPending, error: query.error };
}

export interface ResourceTableProps<Row> {
  source: TableSource<Row>;
  /** Columns in order; `false` leaves one out (a column only administrators see). */
  columns: (Column<Row> | false)[];
  rowKey: (row: Row) => Key;
  /** data-* attributes of a row, by which tests and scripts find it (data-token-name=...). */
  rowAttributes?: (row: Row) => Record<`data-${string}`, string>;
  /** The buttons of a row, in a last column without a header. */
  actions?: (row: Row) => ReactNode;
  /** Shown in place of a row while it is edited in place (a model's prices). */
  replaceRow?: (row: Row) => ReactNode | null;
  /** What an empty list says, once it has loaded. */
  empty: ReactNode;
  testId: string;
  /** A heading inside the card, for a table that is one panel of a page (the dashboard's breakdowns). */
  title?: string;
}

/**
 * The one table of the list pages: loading and load errors above it, the last failed row action, then a card
 * with a header row and a row per record (or the empty-list text). On a narrow screen each record becomes a
 * card of its own (the first column as its title, its actions below), so nothing hides behind a sideways
 * scroll; on a wide one the actions column stays pinned to the right edge while the rest scrolls.
 */
export function ResourceTable<Row>(props: ResourceTableProps<Row>) {
  const narrow = useMediaQuery(NARROW_QUERY);
  if (narrow) return <ResourceCards {...props} />;
  const columns = props.columns.filter((column): column is Column<Row> => column !== false);
  const { rows, isPending = false, error = null, actionError = null } = props.source;
  const cellClass = (column: Column<Row>) => [column.numeric ? "text-right tabular-nums" : "", column.className ?? ""].filter(Boolean).join(" ") || undefined;
  return (
    <>
      <QueryState isPending={isPending} error={error} />
      {actionError ? <p className="mb-2 text-sm text-red-600">{actionError.message}</p> : null}
      {/* A titled panel sits in a grid and clips; a page's own list scrolls sideways when it is wide. */}
      <div className={props.title ? "card overflow-hidden" : "card overflow-x-auto"}>
        {props.title ? <h2 className="border-b border-slate-200 px-4 py-2.5 text-sm font-semibold">{props.title}</h2> : null}
        <table className="table" data-testid={props.testId}>
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column.header} className={column.numeric ? "text-right" : undefined}>
                  {column.header}
                </th>
              ))}
              {props.actions ? <th className={stickyActionsClass} /> : null}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows?.length === 0 ? (
              <tr>
                <td colSpan={columns.length + (props.actions ? 1 : 0)} className="py-8 text-center text-sm text-slate-500">
                  {props.empty}
                </td>
              </tr>
            ) : null}
            {rows?.map((row) => {
              const replacement = props.replaceRow?.(row);
              if (replacement) return <Fragment key={props.rowKey(row)}>{replacement}</Fragment>;
              return (
                <tr key={props.rowKey(row)} {...props.rowAttributes?.(row)}>
                  {columns.map((column) => (
                    <td key={column.header} className={cellClass(column)} title={column.title?.(row)}>
                      {column.cell(row)}
                    </td>
                  ))}
                  {props.actions ? (
                    <td className={stickyActionsClass}>
                      <div className="flex justify-end gap-1">{props.actions(row)}</div>
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** A record a list page names (a token, a channel, a user). */
export interface NamedRecord extends ListedRecord {
  name: string;
}

/**
 * The table of a list of named records: keyed by id, each row marked data-<noun>-name (by which tests and
 * scripts find it), the name first in bold with what `nameDetails` adds below it, then the other columns.
 */
export function NamedRecordTable<Row extends NamedRecord>(
  props: Omit<ResourceTableProps<Row>, "rowKey" | "rowAttributes" | "testId"> & { noun: string; nameDetails: (row: Row) => ReactNode },
) {
  const { noun, nameDetails, columns, ...table } = props;
  const name: Column<Row> = {
    header: "Name",
    className: "font-medium text-slate-900",
    cell: (row) => (
      <>
        {row.name}
        {nameDetails(row)}
      </>
    ),
  };
  return <ResourceTable {...table} testId={`${noun}s-table`} rowKey={(row) => row.id} rowAttributes={(row) => ({ [`data-${noun}-name`]: row.name })} columns={[name, ...columns]} />;
}

/** The actions column stays in view at the card's right edge when the other columns scroll sideways. */
const stickyActionsClass = "sticky right-0 bg-white shadow-[-6px_0_6px_-6px_rgba(15,23,42,0.25)]";

/** The narrow-screen form of ResourceTable: a card per record, every field labelled, actions always shown. */
function ResourceCards<Row>(props: ResourceTableProps<Row>) {
  const [first, ...rest] = props.columns.filter((column): column is Column<Row> => column !== false);
  const { rows, isPending = false, error = null, actionError = null } = props.source;
  return (
    <>
      <QueryState isPending={isPending} error={error} />
      {actionError ? <p className="mb-2 text-sm text-red-600">{actionError.message}</p> : null}
      <section className="space-y-2" data-testid={props.testId} aria-label={props.title}>
        {props.title ? <h2 className="text-sm font-semibold">{props.title}</h2> : null}
        {rows?.length === 0 ? <p className="card py-6 text-center text-sm text-slate-500">{props.empty}</p> : null}
        {rows?.map((row) => {
          const replacement = props.replaceRow?.(row);
          if (replacement) {
            return (
              <div key={props.rowKey(row)} className="card overflow-x-auto">
                <table className="table">
                  <tbody>{replacement}</tbody>
                </table>
              </div>
            );
          }
          return (
            <article key={props.rowKey(row)} className="card min-w-0 p-3" data-row-card {...props.rowAttributes?.(row)}>
              {first ? <div className="min-w-0 break-words font-medium text-slate-900">{first.cell(row)}</div> : null}
              <dl className="mt-2 grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
                {rest.map((column) => (
                  <Fragment key={column.header}>
                    <dt className="text-xs font-medium text-slate-500">{column.header}</dt>
                    <dd className="min-w-0 break-words text-slate-700">{column.cell(row)}</dd>
                  </Fragment>
                ))}
              </dl>
              {props.actions ? <div className="mt-3 flex flex-wrap gap-1.5">{props.actions(row)}</div> : null}
            </article>
          );
        })}
      </section>
    </>
  );
}

/** A small button in a row's actions. */
export function RowButton(props: { onClick: () => void; children: ReactNode; disabled?: boolean; danger?: boolean }) {
  return (
    <button type="button" className={props.danger ? "button-small text-red-600" : "button-small"} disabled={props.disabled} onClick={props.onClick}>
      {props.children}
    </button>
  );
}

/** Disable for an enabled record, Enable for any other (disabled, or disabled by the gateway). */
export function StatusButton<Row extends ListedRecord>(props: { list: ResourceList<Row>; row: Row }) {
  return (
    <RowButton disabled={props.list.isTogglingStatus} onClick={() => props.list.toggleStatus(props.row)}>
      {props.row.status === "enabled" ? "Disable" : "Enable"}
    </RowButton>
  );
}

export function DeleteButton<Row extends ListedRecord>(props: { list: ResourceList<Row>; row: Row }) {
  return (
    <RowButton danger onClick={() => props.list.askDelete(props.row)}>
      Delete
    </RowButton>
  );
}

/** Asks before the list's pending deletion ("Delete <name>", then `afterName`); says why if the server refused it. */
export function ConfirmDelete<Row extends NamedRecord>(props: { list: ResourceList<Row>; noun: string; afterName: (row: Row) => ReactNode }) {
  const { list } = props;
  if (!list.deleting) return null;
  return (
    <ConfirmDialog
      title={`Delete ${props.noun}`}
      message={
        <>
          Delete <strong>{list.deleting.name}</strong>
          {props.afterName(list.deleting)}
        </>
      }
      confirmLabel={`Delete ${props.noun}`}
      busy={list.isDeleting}
      error={list.deleteError?.message ?? null}
      onConfirm={list.confirmDelete}
      onCancel={list.cancelDelete}
    />
  );
}
