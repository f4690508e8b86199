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
 *
 * Matching the words is not the whole answer: each matched part also says what kind of program
 * it runs (./classify.ts) and whether the entry that matched it trusts agent-written code, so
 * the policy (lib/governance/tool-policy.ts) can ask again when the project changed under it.
 */
import { commandKind, type CommandKind } from "./classify";
import { parseCommandLine } from "./parse";

/**
 * One allow-list entry: a pattern, and whether it runs even after an agent changed the project's
 * files (`trust_agent_code`; a plain string entry does not).
 */
export interface CommandEntry {
  pattern: string;
  trust_agent_code?: boolean;
}

/** An entry as written (a pattern string, or `{pattern, trust_agent_code}`) as an object. */
export function toCommandEntry(entry: string | CommandEntry): CommandEntry {
  return typeof entry === "string" ? { pattern: entry } : entry;
}

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
function normalizeCommandText(text: string): string {
  return text.trim().split(/\s+/).join(" ");
}

/** One simple command of an allowed line. */
export interface AllowedPart {
  words: string[];
  kind: CommandKind;
  /** Whether a matching entry trusts agent-written code. */
  trusts_agent_code: boolean;
}

/** The verdict of {@link commandAllowed}. */
export interface CommandAllowance {
  allowed: boolean;
  /** The part that matched no pattern, or why the line cannot be allow-listed. */
  unmatched?: string;
  /** When allowed: each simple command, its kind and whether its entry trusts agent-written code. */
  parts?: AllowedPart[];
}

/** Whether every simple command of `line` matches one of `entries` (see the module comment). */
export function commandAllowed(line: string, entries: readonly (string | CommandEntry)[]): CommandAllowance {
  const wanted = entries.map(toCommandEntry).map((e) => ({ pattern: normalizeCommandText(e.pattern), trust: e.trust_agent_code === true })).filter((e) => e.pattern);
  if (!wanted.length) return { allowed: false, unmatched: "no allowed commands" };
  const parsed = parseCommandLine(line);
  if (parsed.error) return { allowed: false, unmatched: parsed.error };
  if (parsed.opaque) return { allowed: false, unmatched: "the command uses shell features (expansions, redirections, subshells…) an allow-list cannot vouch for" };
  const parts: AllowedPart[] = [];
  for (const words of parsed.parts) {
    const text = words.join(" ");
    const matching = wanted.filter((e) => wildcardMatch(e.pattern, text));
    if (!matching.length) return { allowed: false, unmatched: text };
    parts.push({ words, kind: commandKind(words), trusts_agent_code: matching.some((e) => e.trust) });
  }
  return { allowed: true, parts };
}
