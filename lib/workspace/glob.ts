/**
 * A small glob matcher for `search_files`' `glob` argument. Pure: no I/O. Node 20 has no
 * `path.matchesGlob`, and the syntax models use is small: `*`, `**`, `?` and `{a,b}`.
 */
import { ValidationError } from "@/lib/errors";

const REGEX_SPECIAL = /[.+^$()|[\]\\]/;

/**
 * A RegExp for `glob`, matched against a project-relative path with `/` separators.
 * `*` and `?` stay inside one path segment, `**` crosses segments (`src/**\/*.ts` also matches
 * `src/a.ts`), `{ts,tsx}` is an alternation.
 * @throws ValidationError for an unbalanced `{`/`}` or an empty glob.
 */
export function globToRegExp(glob: string): RegExp {
  if (!glob) throw new ValidationError("glob must not be empty");
  let re = "";
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? "";
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/";
        if (atSegmentStart && glob[i + 2] === "/") {
          re += "(?:[^/]*/)*";
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else {
        re += "[^/]*";
      }
    } else if (c === "?") {
      re += "[^/]";
    } else if (c === "{") {
      depth++;
      re += "(?:";
    } else if (c === "}") {
      if (depth === 0) throw new ValidationError(`glob has an unmatched "}": ${glob}`);
      depth--;
      re += ")";
    } else if (c === "," && depth > 0) {
      re += "|";
    } else {
      re += REGEX_SPECIAL.test(c) ? `\\${c}` : c;
    }
  }
  if (depth !== 0) throw new ValidationError(`glob has an unmatched "{": ${glob}`);
  return new RegExp(`^${re}$`);
}

/**
 * A predicate for project-relative paths. A glob without `/` matches the file name anywhere
 * (`*.ts`), as in `.gitignore` and ripgrep; one with `/` matches the whole relative path.
 */
export function globMatcher(glob: string): (relativePath: string) => boolean {
  const re = globToRegExp(glob);
  if (glob.includes("/")) return (p) => re.test(p);
  return (p) => re.test(p.slice(p.lastIndexOf("/") + 1));
}
