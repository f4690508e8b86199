/**
 * Allow-list matching of commands, and of tool names by pattern. Pure.
 *
 * A pattern is text where `*` stands for any run of characters (none included); everything else
 * is literal, and matching is of the whole text. It is matched in linear passes: the pattern's
 * literal pieces are found left to right, each at its first place after the previous one, which
 * is exact for `*`-only patterns and cannot backtrack.
 *
 * A command line is allowed only when it is not opaque (see ./parse.ts: no expansion,
 * redirection, subshell…) and **every** simple command in it, its words joined by one space,
 * matches some pattern. So `npm test; rm -rf /` is not allowed by `npm test*`: its second part
 * `rm -rf /` matches nothing.
 */
import { parseCommandLine } from "./parse";

/** True when `text` matches `pattern` as a whole (`*` = any characters). */
export function wildcardMatch(pattern: string, text: string): boolean {
  const pieces = pattern.split("*");
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    if (!piece) continue;
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

/** Whitespace runs made one space, trimmed: how patterns and commands are compared. */
export function normalizeCommandText(text: string): string {
  return text.trim().split(/\s+/).join(" ");
}

/** The verdict of {@link commandAllowed}. */
export interface CommandAllowance {
  allowed: boolean;
  /** The part that matched no pattern, or why the line cannot be allow-listed. */
  unmatched?: string;
}

/** Whether every simple command of `line` matches one of `patterns` (see the module comment). */
export function commandAllowed(line: string, patterns: readonly string[]): CommandAllowance {
  const wanted = patterns.map(normalizeCommandText).filter(Boolean);
  if (!wanted.length) return { allowed: false, unmatched: "no allowed commands" };
  const parsed = parseCommandLine(line);
  if (parsed.error) return { allowed: false, unmatched: parsed.error };
  if (parsed.opaque) return { allowed: false, unmatched: "the command uses shell features (expansions, redirections, subshells…) an allow-list cannot vouch for" };
  for (const words of parsed.parts) {
    const text = words.join(" ");
    if (!wanted.some((p) => wildcardMatch(p, text))) return { allowed: false, unmatched: text };
  }
  return { allowed: true };
}
