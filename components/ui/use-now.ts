"use client";

import { useEffect, useState } from "react";

/** The current time in ms, refreshed every `intervalMs`, so relative times ("12 s ago") move. */
export function useNow(intervalMs = 5000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
