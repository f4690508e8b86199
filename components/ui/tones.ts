/** Named colour tones for status badges and their dots, shared so every status reads alike. */
export const TONES = {
  neutral: { badge: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300", dot: "bg-zinc-400" },
  muted: { badge: "bg-zinc-200 text-zinc-600 dark:bg-zinc-700 dark:text-zinc-300", dot: "bg-zinc-500" },
  active: { badge: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200", dot: "bg-emerald-500" },
  attention: { badge: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200", dot: "bg-amber-500" },
  info: { badge: "bg-sky-100 text-sky-800 dark:bg-sky-900/50 dark:text-sky-200", dot: "bg-sky-500" },
  brand: { badge: "bg-indigo-100 text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200", dot: "bg-indigo-500" },
  handoff: { badge: "bg-violet-100 text-violet-800 dark:bg-violet-900/50 dark:text-violet-200", dot: "bg-violet-500" },
  danger: { badge: "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200", dot: "bg-red-500" },
} as const;

/** One tone: the badge's classes and its dot's. */
export type Tone = (typeof TONES)[keyof typeof TONES];
