import { keepPreviousData, type QueryKey, type UseMutationOptions, type UseQueryOptions } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { type ErrorMessage, type ResourceList, type StatusChange, useResourceList } from "../lib/use-resource-list";

/** Where a searchable list is: the text searched for and the first row of the page shown. */
export interface PageState {
  query: string;
  offset: number;
}

/** Rows per page of the searchable lists (tokens, users). */
export const PAGE_SIZE = 20;

/**
 * The search text and page of a searchable list. The text reaches the query a moment after typing stops, so
 * that each keystroke does not ask the server; a new search starts again at the first page.
 */
export function usePageState(): { state: PageState; text: string; setText: (text: string) => void; setOffset: (offset: number) => void } {
  const [text, setText] = useState("");
  const [state, setState] = useState<PageState>({ query: "", offset: 0 });
  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === state.query) return;
    const timer = setTimeout(() => setState({ query: trimmed, offset: 0 }), 250);
    return () => clearTimeout(timer);
  }, [text, state.query]);
  const setOffset = useCallback((offset: number) => setState((current) => ({ ...current, offset })), []);
  return { state, text, setText, setOffset };
}

/** A procedure as the list calls it: its key and its call (the list adds the callbacks, and reads only an error's message). */
type ListProcedure<Input> = Pick<UseMutationOptions<unknown, ErrorMessage, Input>, "mutationKey" | "mutationFn">;

/** What a searchable list procedure takes: the search (none when empty) and the page. */
export interface PageInput {
  query: string | undefined;
  offset: number;
  limit: number;
}

/**
 * A searchable list's page state and its useResourceList: the list procedure's query for the page shown
 * (`queryOf`), the previous page kept on screen while the next loads, the rows its `items`.
 */
export function useSearchableList<Data extends { items: object[] }, Key extends QueryKey, QueryError extends ErrorMessage>(
  queryOf: (page: PageInput) => UseQueryOptions<Data, QueryError, Data, Key>,
  mutations: { update?: ListProcedure<StatusChange>; remove?: ListProcedure<{ id: number }> },
): { paging: ReturnType<typeof usePageState>; list: ResourceList<Data["items"][number], Data> } {
  const paging = usePageState();
  const list = useResourceList({
    query: { ...queryOf({ query: paging.state.query || undefined, offset: paging.state.offset, limit: PAGE_SIZE }), placeholderData: keepPreviousData },
    rowsOf: (page): Data["items"] => page.items,
    ...mutations,
  });
  return { paging, list };
}

/** The search box above a searchable list (the search runs on the server). */
export function SearchBox(props: { label: string; placeholder: string; value: string; onChange: (text: string) => void }) {
  return (
    <div className="mb-3 max-w-md">
      <input
        type="search"
        className="input"
        aria-label={props.label}
        placeholder={props.placeholder}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </div>
  );
}

/** Below a searchable list: "21–40 of 57" and Previous / Next (hidden when all fits one page); wraps on a phone. */
export function Pager(props: { offset: number; limit: number; total: number | undefined; onOffset: (offset: number) => void; testId: string }) {
  const { offset, limit, total, onOffset } = props;
  // The last rows of the last page were deleted: go back to the last page left.
  useEffect(() => {
    if (total !== undefined && offset > 0 && offset >= total) onOffset(Math.max(0, Math.floor((total - 1) / limit) * limit));
  }, [total, offset, limit, onOffset]);
  if (total === undefined || total === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="mt-3 flex flex-wrap items-center justify-between gap-2 text-sm text-slate-600" aria-label="Pages" data-testid={props.testId}>
      <span data-testid={`${props.testId}-range`}>
        {offset + 1}–{last} of {total}
      </span>
      {/* One page: nothing to move to. */}
      <span className={total <= limit && offset === 0 ? "hidden" : "flex gap-2"}>
        <button type="button" className="button" disabled={offset === 0} onClick={() => props.onOffset(Math.max(0, offset - limit))}>
          Previous
        </button>
        <button type="button" className="button" disabled={last >= total} onClick={() => props.onOffset(offset + limit)}>
          Next
        </button>
      </span>
    </nav>
  );
}

/** Below a list read by cursor, newest first (the request logs, the audit log): "Load older" while older pages remain. */
export function LoadOlder(props: { pages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown } }) {
  const { pages } = props;
  if (!pages.hasNextPage) return null;
  return (
    <div className="mt-3 flex justify-center">
      <button type="button" className="button" onClick={() => pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
        {pages.isFetchingNextPage ? "Loading…" : "Load older"}
      </button>
    </div>
  );
}
