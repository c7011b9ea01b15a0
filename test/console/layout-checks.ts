import { expect } from "bun:test";
import type { Page } from "../../apps/console/test-support/chromium";

/**
 * What makes a console page unusable at a viewport size, as found in the browser: the page wider than the
 * viewport (a sideways scroll of the whole page), or a button or link that is rendered but outside what its
 * scrolling containers and the viewport show (an action only reachable by scrolling a table sideways).
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const viewportWidth = document.documentElement.clientWidth;
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > viewportWidth) {
      problems.push(`the page is ${document.documentElement.scrollWidth}px wide in a ${viewportWidth}px viewport`);
    }
    for (const control of document.querySelectorAll<HTMLElement>("main button, main a, [role=dialog] button, [role=dialog] a, header button")) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      let left = 0;
      let right = viewportWidth;
      for (let parent = control.parentElement; parent; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX === "visible") continue;
        const clip = parent.getBoundingClientRect();
        left = Math.max(left, clip.left);
        right = Math.min(right, clip.right);
      }
      if (box.left < left - 1 || box.right > right + 1) {
        problems.push(`"${control.textContent?.trim()}" is off-screen: ${Math.round(box.left)}-${Math.round(box.right)} px, visible ${Math.round(left)}-${Math.round(right)} px`);
      }
    }
    return problems;
  });
}

/** Fails the test with every layout problem of the page as it is now. */
export async function expectFitsViewport(page: Page): Promise<void> {
  expect(await layoutProblems(page)).toEqual([]);
}
