/**
 * The `glob` argument of `search_files`, matched with `picomatch` within bounds. Pure: no I/O.
 *
 * A glob is written by a model, so it is hostile input. Every glob library compiles to a
 * backtracking regular expression, whose time grows with the path length raised to the number of
 * wildcards (`**` × 18 + `Z` blocked the server for 28 s; picomatch alone takes seconds on
 * `*a*a*a*a*Z` against a long name, and passes `(a|aa)+` through as a regular expression). So:
 *
 * - the glob is validated first, with limits on its length, its wildcards and its `{…}` groups,
 *   no `{1..9}` ranges, no nested groups; `(`, `)` and `|` are literal characters (no extglobs);
 * - it is matched one path segment at a time (picomatch compiles each segment, which holds no
 *   `/`), and `**` is matched by dynamic programming over segments — so the cost is a sum over
 *   segments, never a product, and each segment's cost is bounded by its ≤ 2 wildcards.
 *
 * Semantics: `*` and `?` stay inside one segment, `**` spans any number of segments
 * (`src/**\/*.ts` also matches `src/a.ts`), `{ts,tsx}` is an alternation, `[abc]` a character
 * class; dot files are matched like any other. A glob without `/` matches the file name anywhere.
 */
import picomatch from "picomatch";
import { ValidationError } from "@/lib/contracts/errors";

/** Limits on a glob; larger or more complex globs are refused with a message saying which. */
export const GLOB_LIMITS = {
  /** Characters. */
  maxLength: 200,
  /** `*` wildcards (a run like `**` inside a name counts once) in one segment. */
  maxStarsPerSegment: 2,
  /** `*` wildcards in the whole glob, `**` segments not counted. */
  maxStars: 4,
  /** `**` segments once repeats (`**\/**`) are collapsed. */
  maxGlobstars: 4,
  /** `{…}` groups. */
  maxBraceGroups: 4,
  /** Alternatives in one `{…}` group. */
  maxAlternatives: 16,
} as const;

const GLOBSTAR = Symbol("globstar");
type Segment = typeof GLOBSTAR | ((name: string) => boolean);

/** `(`, `)` and `|` would reach picomatch's regular expression as groups and alternations. */
const LITERAL_ESCAPES: Readonly<Record<string, string>> = { "(": "\\(", ")": "\\)", "|": "\\|" };

// nonegate: a leading `!` is a character, not "everything but"; noextglob: no `+(…)` and kin.
const PICOMATCH_OPTIONS = { dot: true, nonegate: true, noextglob: true } as const;

function refuse(glob: string, why: string): never {
  throw new ValidationError(`glob ${JSON.stringify(glob.length > 80 ? `${glob.slice(0, 80)}…` : glob)}: ${why}`);
}

/** Checks one segment's syntax and counts its `*` wildcards; returns the segment ready for picomatch. */
function checkSegment(glob: string, segment: string, counts: { stars: number; groups: number }): string {
  let stars = 0;
  let out = "";
  let inGroup = false;
  let groupText = "";
  let alternatives = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === "[") {
      // a character class is one character wide: copied whole, wildcards inside are literal
      const close = segment.indexOf("]", i + 2);
      if (close > 0) {
        out += segment.slice(i, close + 1);
        i = close;
        continue;
      }
    }
    if (c === "*") {
      while (segment[i + 1] === "*") i++;
      stars++;
      out += "*";
      continue;
    }
    if (c === "{") {
      if (inGroup) refuse(glob, "nested {…} groups are not supported");
      inGroup = true;
      groupText = "";
      alternatives = 1;
      if (++counts.groups > GLOB_LIMITS.maxBraceGroups) refuse(glob, `at most ${GLOB_LIMITS.maxBraceGroups} {…} groups`);
      out += c;
      continue;
    }
    if (c === "}") {
      if (!inGroup) refuse(glob, 'unmatched "}"');
      if (groupText.includes("..")) refuse(glob, "ranges like {1..9} are not supported; list the alternatives");
      inGroup = false;
      out += c;
      continue;
    }
    if (inGroup) {
      groupText += c;
      if (c === "," && ++alternatives > GLOB_LIMITS.maxAlternatives) refuse(glob, `at most ${GLOB_LIMITS.maxAlternatives} alternatives in one {…} group`);
    }
    out += LITERAL_ESCAPES[c] ?? c;
  }
  if (inGroup) refuse(glob, 'unmatched "{" (a {…} group cannot contain "/")');
  if (stars > GLOB_LIMITS.maxStarsPerSegment) refuse(glob, `at most ${GLOB_LIMITS.maxStarsPerSegment} "*" in one path segment`);
  counts.stars += stars;
  return out;
}

/**
 * The glob as segments: `**` as {@link GLOBSTAR}, others as picomatch predicates on one name.
 * @throws ValidationError for an empty, too long, too complex or malformed glob.
 */
function compile(glob: string): Segment[] {
  if (typeof glob !== "string" || glob.length === 0) throw new ValidationError("glob must not be empty");
  if (glob.length > GLOB_LIMITS.maxLength) refuse(glob, `at most ${GLOB_LIMITS.maxLength} characters`);
  if (/[\u0000-\u001f\u007f]/.test(glob)) refuse(glob, "control characters are not allowed");
  if (glob.includes("\\")) refuse(glob, 'use "/" to separate folders; "\\" is not supported');
  const parts = glob.replace(/^(?:\.\/)+/, "").split("/");
  const segments: Segment[] = [];
  const counts = { stars: 0, groups: 0 };
  let globstars = 0;
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (/^\*{2,}$/.test(part)) {
      // `**/**` is `**`: repeats add nothing but backtracking
      if (segments[segments.length - 1] === GLOBSTAR) continue;
      if (++globstars > GLOB_LIMITS.maxGlobstars) refuse(glob, `at most ${GLOB_LIMITS.maxGlobstars} "**"`);
      segments.push(GLOBSTAR);
      continue;
    }
    const ready = checkSegment(glob, part, counts);
    if (counts.stars > GLOB_LIMITS.maxStars) refuse(glob, `at most ${GLOB_LIMITS.maxStars} "*" in all`);
    segments.push(picomatch(ready, PICOMATCH_OPTIONS));
  }
  if (!segments.length) refuse(glob, "it names no file");
  return segments;
}

/** Whether `names` (a path's segments) match `segments`, by dynamic programming: each name is tested against each segment at most once. */
function matchSegments(segments: readonly Segment[], names: readonly string[]): boolean {
  const n = names.length;
  // rest[j]: do the segments after the current one match names[j..]?
  let rest = new Uint8Array(n + 1);
  rest[n] = 1;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    const here = new Uint8Array(n + 1);
    if (segment === GLOBSTAR) {
      for (let j = n; j >= 0; j--) here[j] = rest[j] || (j < n && here[j + 1]) ? 1 : 0;
    } else {
      for (let j = 0; j < n; j++) here[j] = rest[j + 1] && segment(names[j]!) ? 1 : 0;
    }
    rest = here;
  }
  return rest[0] === 1;
}

/**
 * A predicate for project-relative paths (`/` separators). A glob without `/` matches the file
 * name anywhere (`*.ts`), as in `.gitignore` and ripgrep; one with `/` matches the whole path.
 * @throws ValidationError for a glob outside {@link GLOB_LIMITS} or malformed.
 */
export function globMatcher(glob: string): (relativePath: string) => boolean {
  const segments = compile(glob);
  if (!glob.includes("/")) {
    const only = segments[0]!;
    if (only === GLOBSTAR) return () => true;
    return (p) => only(p.slice(p.lastIndexOf("/") + 1));
  }
  return (p) => matchSegments(segments, p.split("/"));
}
