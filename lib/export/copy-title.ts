/**
 * The title of a conversation imported as a copy (`mode=new_id`): the original's title with a
 * suffix in the importing person's language — "Review (imported copy)", then "Review (imported
 * copy 2)" and on while a title is taken — so the index never shows two rows alike. Importing a
 * copy again counts on from its base title rather than stacking suffixes. Pure.
 */

/** The suffix templates, from the dictionaries: `{title}`, and `{n}` from the second copy on. */
export interface CopyTitleFormat {
  first: string;
  nth: string;
}

/** The longest title a copy gets, as a new conversation's title (lib/contracts/http.ts). */
const MAX_TITLE = 200;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `template` as a pattern over a whole title: `{title}` any text, `{n}` a number. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{title\}|\{n\})/)
    .map((part) => (part === "{title}" ? "(.*?)" : part === "{n}" ? "\\d+" : escapeRegExp(part)))
    .join("");
  return new RegExp(`^${source}$`, "s");
}

/** The title a copy's suffix was added to ("Review" for "Review (imported copy 3)"), or the title itself. */
export function copyBase(title: string, format: CopyTitleFormat): string {
  for (const template of [format.nth, format.first]) {
    const match = templatePattern(template).exec(title);
    if (match) return match[1] ?? "";
  }
  return title;
}

function filled(template: string, base: string, n: number): string {
  // {n} first: the title itself may hold "{n}".
  return template.replace("{n}", String(n)).replace("{title}", () => base);
}

/** Cuts `base` (by code points) so that `template` filled with it fits {@link MAX_TITLE}. */
function fitted(template: string, base: string, n: number): string {
  const room = MAX_TITLE - filled(template, "", n).length;
  const points = [...base];
  return points.length <= room ? base : points.slice(0, Math.max(room - 1, 0)).join("").trimEnd() + "…";
}

/** The first copy title of `title` that `taken` does not hold. */
export function copyTitle(title: string, format: CopyTitleFormat, taken: ReadonlySet<string>): string {
  const base = copyBase(title.trim(), format);
  for (let n = 1; ; n++) {
    const template = n === 1 ? format.first : format.nth;
    // An untitled conversation's copy is the suffix alone, without the space before it.
    const candidate = filled(template, fitted(template, base, n), n).trim();
    if (!taken.has(candidate)) return candidate;
  }
}
