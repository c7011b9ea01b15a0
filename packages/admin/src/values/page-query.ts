import { z } from "zod";

/** Most rows one page of a searchable list may hold. */
export const MAX_PAGE_SIZE = 200;

/**
 * Search and paging of an admin list (tokens, users): free text, an offset and a page size. Offsets, not a
 * cursor: these tables hold at most thousands of rows, and a pager wants "page 3 of 7".
 */
export const pageQuerySchema = z.object({
  /** Matched case-insensitively anywhere in the searched columns; empty: every row. */
  query: z.string().trim().max(200, "Must be at most 200 characters").optional(),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
});

export type PageQuery = z.output<typeof pageQuerySchema>;

export interface Page<Row> {
  items: Row[];
  /** Rows matching the query, over every page. */
  total: number;
  offset: number;
  limit: number;
}

/** `%text%` for ILIKE, with LIKE's own wildcards and its escape character taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
