/**
 * Colors of the timeline view: one per envelope type (line, arrowhead, label), one per status
 * tone and the conflict mark. Full class strings, so Tailwind finds them when it scans the code;
 * every pair names its dark-mode shade, because the view must read as well on a dark screen.
 */
import type { EnvelopeType } from "@/lib/contracts/envelope";
import type { StatusTone } from "./timeline-model";

/** Classes of one envelope type. */
export interface TypeStyle {
  /** The arrow's line (a top border). */
  line: string;
  /** Text color: arrowheads are drawn in `currentColor`. */
  text: string;
  /** The small type chip of the label and the legend. */
  chip: string;
}

export const TYPE_STYLES: Record<EnvelopeType, TypeStyle> = {
  request: {
    line: "border-blue-500 dark:border-blue-400",
    text: "text-blue-600 dark:text-blue-400",
    chip: "bg-blue-100 text-blue-800 dark:bg-blue-500/20 dark:text-blue-200",
  },
  reply: {
    line: "border-emerald-500 dark:border-emerald-400",
    text: "text-emerald-600 dark:text-emerald-400",
    chip: "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/20 dark:text-emerald-200",
  },
  broadcast: {
    line: "border-fuchsia-500 dark:border-fuchsia-400",
    text: "text-fuchsia-600 dark:text-fuchsia-400",
    chip: "bg-fuchsia-100 text-fuchsia-800 dark:bg-fuchsia-500/20 dark:text-fuchsia-200",
  },
  event: {
    line: "border-zinc-400 border-dashed dark:border-zinc-500",
    text: "text-zinc-500 dark:text-zinc-400",
    chip: "bg-zinc-200 text-zinc-700 dark:bg-zinc-700 dark:text-zinc-200",
  },
  control: {
    line: "border-orange-500 dark:border-orange-400",
    text: "text-orange-600 dark:text-orange-400",
    chip: "bg-orange-100 text-orange-800 dark:bg-orange-500/20 dark:text-orange-200",
  },
};

/** Badge classes of a marked status. */
export const STATUS_BADGE: Record<Exclude<StatusTone, null>, string> = {
  danger: "bg-red-600 text-white dark:bg-red-500/90",
  warning: "bg-amber-400 text-amber-950 dark:bg-amber-400/90 dark:text-amber-950",
};

/** The conflict-resolution badge and the stripe its row gets. */
export const CONFLICT_BADGE = "bg-violet-600 text-white dark:bg-violet-500";
export const CONFLICT_ROW = "bg-violet-50 dark:bg-violet-500/10";

/** Lane header avatars by lane kind. */
export const LANE_AVATAR = {
  user: "bg-indigo-600 text-white dark:bg-indigo-500",
  leader: "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900",
  agent: "bg-teal-600 text-white dark:bg-teal-500",
  system: "bg-zinc-300 text-zinc-800 dark:bg-zinc-600 dark:text-zinc-100",
  other: "bg-zinc-200 text-zinc-700 dark:bg-zinc-700 dark:text-zinc-200",
} as const;
