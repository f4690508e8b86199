"use client";

import { useEffect, useRef, type RefObject } from "react";

/** How close to the bottom (px) still counts as "at the bottom". */
const THRESHOLD_PX = 64;

/**
 * Keeps a scroll container pinned to its bottom while its content grows (new messages, streamed
 * text), but only if the reader was already at the bottom: scrolling up to read stops following.
 */
export function useStickToBottom(
  scrollRef: RefObject<HTMLElement | null>,
  contentRef: RefObject<HTMLElement | null>,
  /** False when the chat opens somewhere else (at a message a search found): it follows again once the reader scrolls to the bottom. */
  startAtBottom = true,
): void {
  const atBottom = useRef(startAtBottom);

  useEffect(() => {
    const scroller = scrollRef.current;
    const content = contentRef.current;
    if (!scroller || !content) return;
    const onScroll = () => {
      atBottom.current = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= THRESHOLD_PX;
    };
    const observer = new ResizeObserver(() => {
      if (atBottom.current) scroller.scrollTop = scroller.scrollHeight;
    });
    scroller.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(content);
    if (atBottom.current) scroller.scrollTop = scroller.scrollHeight;
    return () => {
      scroller.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, [scrollRef, contentRef]);
}
