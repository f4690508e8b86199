"use client";

import { useEffect, type RefObject } from "react";

/**
 * Scrolls a chat once to the message a search opened it at (the row marked
 * `data-search-target`), as soon as that row is rendered: the messages arrive after the page.
 */
export function useScrollToMessage(scrollRef: RefObject<HTMLElement | null>, messageId: string | undefined): void {
  useEffect(() => {
    const scroller = scrollRef.current;
    if (!scroller || !messageId) return;
    const attempt = (): boolean => {
      const row = scroller.querySelector<HTMLElement>('[data-search-target="true"]');
      if (!row) return false;
      row.scrollIntoView({ block: "center" });
      return true;
    };
    if (attempt()) return;
    const observer = new MutationObserver(() => {
      if (attempt()) observer.disconnect();
    });
    observer.observe(scroller, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [scrollRef, messageId]);
}
