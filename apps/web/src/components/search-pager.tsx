import { useEffect, useState } from "react";

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
  return { state, text, setText, setOffset: (offset) => setState((current) => ({ ...current, offset })) };
}

/** A search box above a list, and Previous / Next with "21–40 of 57" below it; wraps on a phone. */
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

export function Pager(props: { offset: number; limit: number; total: number | undefined; onOffset: (offset: number) => void; testId: string }) {
  const { offset, limit, total } = props;
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
