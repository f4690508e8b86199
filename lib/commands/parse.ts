/**
 * A command line as a person or a model writes it, read the way a POSIX shell would split it,
 * far enough to know two things: whether it can run as one argv without a shell, and which
 * simple commands it is made of (for the allow-list). Pure.
 *
 * Quoting (`'…'`, `"…"`, `\x`) is honoured. Control operators (`;`, `&&`, `||`, `|`, `&`, a
 * newline) split the line into parts and need a shell. Anything else the shell would interpret
 * — expansions (`$x`, `$(…)`, backquotes, `~`, globs `* ? [`, braces), redirections (`<`, `>`),
 * subshells (`(…)`), comments, assignments before a command (`A=1 cmd`), `!` — also needs a
 * shell, and makes the line *opaque*: what it will run cannot be known from its words, so no
 * allow-list pattern can match it.
 */

/** What {@link parseCommandLine} found. */
export interface ParsedCommand {
  /** The words of each simple command, split at control operators (empty parts dropped). */
  parts: string[][];
  /** True when the line must go through `/bin/sh -c` (operators or any shell feature). */
  needsShell: boolean;
  /** True when the line uses a feature that makes its commands unknowable from its words. */
  opaque: boolean;
  /** Set when the line cannot be read at all (an unterminated quote, nothing to run). */
  error?: string;
}

const OPERATOR_CHARS = new Set([";", "&", "|", "\n"]);
const OPAQUE_CHARS = new Set(["<", ">", "(", ")", "$", "`", "*", "?", "[", "{", "}"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Splits a command line into its simple commands' words and says whether it needs a shell. */
export function parseCommandLine(line: string): ParsedCommand {
  const parts: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let quotedStart = false;
  let opaque = false;
  let operators = false;

  const endWord = () => {
    if (!inWord) return;
    // `A=1 cmd`: an assignment only where a command name is expected, and only unquoted.
    if (words.length === 0 && !quotedStart && ASSIGNMENT.test(word)) opaque = true;
    words.push(word);
    word = "";
    inWord = false;
    quotedStart = false;
  };
  const endPart = () => {
    endWord();
    if (words.length) parts.push(words);
    words = [];
  };

  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " " || c === "\t" || c === "\r") {
      endWord();
      continue;
    }
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return { parts: [], needsShell: true, opaque: true, error: "unterminated single quote" };
      if (!inWord) quotedStart = true;
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
      continue;
    }
    if (c === '"') {
      if (!inWord) quotedStart = true;
      inWord = true;
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const d = line[j]!;
        if (d === "$" || d === "`") opaque = true;
        if (d === "\\" && j + 1 < line.length && '$`"\\\n'.includes(line[j + 1]!)) {
          if (line[j + 1] !== "\n") word += line[j + 1];
          j++;
          continue;
        }
        word += d;
      }
      if (j >= line.length) return { parts: [], needsShell: true, opaque: true, error: "unterminated double quote" };
      i = j;
      continue;
    }
    if (c === "\\") {
      if (i + 1 >= line.length) return { parts: [], needsShell: true, opaque: true, error: "a trailing backslash" };
      const next = line[++i]!;
      if (next === "\n") continue; // a line continuation
      if (!inWord) quotedStart = true;
      word += next;
      inWord = true;
      continue;
    }
    if (OPERATOR_CHARS.has(c)) {
      operators = true;
      // `|&` and `;;` are shell syntax beyond plain command lists.
      if ((c === "|" && line[i + 1] === "&") || (c === ";" && line[i + 1] === ";")) opaque = true;
      endPart();
      if ((c === "&" || c === "|") && line[i + 1] === c) i++;
      continue;
    }
    if (OPAQUE_CHARS.has(c) || ((c === "~" || c === "#" || c === "!") && !inWord)) opaque = true;
    word += c;
    inWord = true;
  }
  endPart();
  if (!parts.length) return { parts, needsShell: operators || opaque, opaque: true, error: "there is no command to run" };
  return { parts, needsShell: operators || opaque, opaque };
}
