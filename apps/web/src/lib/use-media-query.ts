import { useSyncExternalStore } from "react";

/** Screens narrower than this get row cards instead of tables and a menu button instead of the sidebar. */
export const NARROW_QUERY = "(max-width: 767px)";

/**
 * Whether a CSS media query matches, kept current as the window resizes. Without a window (server rendering
 * in unit tests) it reports false: the wide layout.
 */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}
