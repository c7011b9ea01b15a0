import { type QueryKey, type UseMutationOptions, type UseQueryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

/** A row of a list whose records can be switched on and off and deleted (tokens, channels, users). */
export interface ListedRecord {
  id: number;
  status: string;
}

export interface StatusChange {
  id: number;
  status: "enabled" | "disabled";
}

/** What the list shows of an error: tRPC's client errors carry more, which the pages do not need. */
export interface ErrorMessage {
  message: string;
}

/**
 * The procedures behind a list page. The type parameters are inferred from them: what each procedure returns
 * and throws (the hook only reads an error's message).
 */
export interface ResourceListOptions<Data, Row, Key extends QueryKey, QueryError, UpdateOutput, UpdateError, RemoveOutput, RemoveError> {
  /** The list procedure's query, e.g. trpc.tokens.list.queryOptions({ query, offset, limit }). */
  query: UseQueryOptions<Data, QueryError, Data, Key>;
  /** The rows of the answer: the answer itself for a plain list, its `items` for a page of a searchable one. */
  rowsOf: (data: Data) => Row[];
  /** The update procedure, called with { id, status } by the Enable / Disable button. */
  update?: UseMutationOptions<UpdateOutput, UpdateError, StatusChange>;
  /** The delete procedure, called with { id } once the user confirms. */
  remove?: UseMutationOptions<RemoveOutput, RemoveError, { id: number }>;
  /** Other queries a change to this list makes stale (a channel's models feed the model list). */
  alsoRefreshes?: QueryKey[];
}

/** What a list page and its table need from a resource list; ResourceTable renders `rows`, `isPending` and the errors. */
export interface ResourceList<Row, Data = unknown> {
  /** The rows as loaded; undefined until the first answer (or when it failed). */
  rows: Row[] | undefined;
  /** The whole answer (a page's total, for a pager). */
  data: Data | undefined;
  isPending: boolean;
  /** Why the list could not be loaded. */
  error: ErrorMessage | null;
  /** Why the last Enable / Disable failed, shown above the table until the next one. */
  actionError: ErrorMessage | null;
  /** Refetches the list and what it feeds, after a form saved a change. */
  refresh: () => Promise<void>;
  /** Enables a disabled (or auto-disabled) record and disables an enabled one. */
  toggleStatus: (row: Row & ListedRecord) => void;
  isTogglingStatus: boolean;
  /** The record whose deletion waits for the user's confirmation, if any. */
  deleting: Row | null;
  askDelete: (row: Row & { id: number }) => void;
  cancelDelete: () => void;
  confirmDelete: () => void;
  isDeleting: boolean;
  /** Why the confirmed deletion failed, shown in the confirmation dialog. */
  deleteError: ErrorMessage | null;
}

/**
 * The query and the mutations every list page wires the same way: load the list, switch a record on or off,
 * delete one after a confirmation, and refetch the list (and the queries it feeds) after each change.
 */
export function useResourceList<
  Data,
  Row extends object,
  Key extends QueryKey,
  QueryError extends ErrorMessage,
  UpdateOutput,
  UpdateError extends ErrorMessage,
  RemoveOutput,
  RemoveError extends ErrorMessage,
>(options: ResourceListOptions<Data, Row, Key, QueryError, UpdateOutput, UpdateError, RemoveOutput, RemoveError>): ResourceList<Row, Data> {
  const queryClient = useQueryClient();
  const list = useQuery(options.query);
  const [deleting, setDeleting] = useState<(Row & { id: number }) | null>(null);
  const refresh = async () => {
    const keys = [options.query.queryKey, ...(options.alsoRefreshes ?? [])];
    await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };
  const update = useMutation({ ...options.update, onSuccess: refresh });
  const remove = useMutation({
    ...options.remove,
    onSuccess: async () => {
      setDeleting(null);
      await refresh();
    },
  });
  return {
    rows: list.data === undefined ? undefined : options.rowsOf(list.data),
    data: list.data,
    isPending: list.isPending,
    error: list.error,
    actionError: update.error,
    refresh,
    toggleStatus: (row) => update.mutate({ id: row.id, status: row.status === "enabled" ? "disabled" : "enabled" }),
    isTogglingStatus: update.isPending,
    deleting,
    askDelete: setDeleting,
    cancelDelete: () => {
      remove.reset();
      setDeleting(null);
    },
    confirmDelete: () => {
      if (deleting) remove.mutate({ id: deleting.id });
    },
    isDeleting: remove.isPending,
    deleteError: remove.error,
  };
}
