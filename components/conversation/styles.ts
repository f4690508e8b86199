/** Class strings of the conversation page that the shared `components/ui/styles` does not have. */

/** A quiet button for a destructive action (Delete, Terminate): red text, no fill. */
export const buttonDangerGhost =
  "inline-flex items-center justify-center gap-1.5 rounded-md px-3 py-1.5 text-sm font-medium text-red-700 transition-colors hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-500 disabled:cursor-not-allowed disabled:opacity-50 dark:text-red-300 dark:hover:bg-red-950/40";
