import { useCallback, useEffect, useState } from "react";

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
