/**
 * What the offline sub-agent "understands" of a file it read: a one-line finding per file (first
 * heading, exported names, package scripts, colors…) and facts its recommendations build on
 * (risky patterns, missing alt text, responsive rules). Heuristics over text only; pure.
 */
import { makeTargets, packageEntries, pyprojectEntries, setupPyEntries, type EntryPoint } from "./manifest";
import { clip, isRecord, parseJson } from "./text";

/** A line worth pointing at, with why it matters. */
export interface Flag {
  path: string;
  line: number;
  why: string;
  text: string;
}

/** What was learned from one file. */
export interface FileFacts {
  path: string;
  /** One Markdown bullet's text (without the leading "- "). */
  finding: string;
  lines: number;
  headings: string[];
  exports: string[];
  /** Line of each of the first exports' definition (0 when not found), in `exports` order. */
  exportLines: number[];
  colors: string[];
  scripts: Record<string, string>;
  packageName?: string;
  /** Risky code patterns (security and correctness smells). */
  risks: Flag[];
  /** TODO / FIXME notes. */
  todos: Flag[];
  /** CSS: has @media rules. */
  media: boolean;
  /** CSS: styles :focus / :focus-visible. */
  focus: boolean;
  /** HTML: `<img>` tags without alt. */
  imagesWithoutAlt: number;
  /** HTML: whether the root element declares a language. */
  htmlLang?: boolean;
  isTest: boolean;
  /** The file's own words that say what it is: a doc comment, the README's first sentence, a package's description. */
  quote?: string;
  /** Entry points a manifest declares (package.json, pyproject.toml, setup.py). */
  entries: EntryPoint[];
  /** A Makefile's targets. */
  targets: string[];
}

const SOURCE_EXT = new Set([
  "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "go", "rs", "java", "kt", "rb", "php", "cs", "c", "h", "cpp", "hpp", "swift", "vue", "svelte", "sh",
]);
const MARKUP_EXT = new Set(["html", "htm"]);
const STYLE_EXT = new Set(["css", "scss", "sass", "less"]);
const DOC_EXT = new Set(["md", "mdx", "markdown", "rst", "txt", "adoc"]);

/** The extension of a path, lower-cased, without the dot ("" when none). */
export function extOf(path: string): string {
  const base = path.split("/").pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

/** The last segment of a path. */
function baseName(path: string): string {
  return path.split("/").pop() ?? path;
}

/** Kinds of file the sub-agent cares about. */
export function fileKind(path: string): "readme" | "manifest" | "doc" | "markup" | "style" | "source" | "config" | "other" {
  const base = baseName(path).toLowerCase();
  const ext = extOf(path);
  if (base.startsWith("readme")) return "readme";
  if (["package.json", "pyproject.toml", "cargo.toml", "go.mod", "requirements.txt", "composer.json", "gemfile", "pom.xml"].includes(base)) return "manifest";
  if (DOC_EXT.has(ext)) return "doc";
  if (MARKUP_EXT.has(ext)) return "markup";
  if (STYLE_EXT.has(ext)) return "style";
  if (SOURCE_EXT.has(ext)) return "source";
  if (["json", "yaml", "yml", "toml", "ini"].includes(ext)) return "config";
  return "other";
}

/** True for test files by the usual naming conventions (`test.js` and `conftest.py` included). */
export function isTestPath(path: string): boolean {
  const base = baseName(path);
  if (!/\.[a-z0-9]+$/i.test(base) || fileKind(path) === "readme" || fileKind(path) === "doc") return false;
  return (
    /(^|\/)(tests?|__tests__|spec|e2e)\//i.test(path) ||
    /[._-](test|spec)s?\.[a-z0-9]+$/i.test(base) ||
    /^(test|tests|spec|conftest)\.[a-z0-9]+$/i.test(base) ||
    /^test_.*\.py$/i.test(base)
  );
}

/** Patterns a reviewer should point at. Each is a single-line heuristic; false positives are acceptable in a first pass. */
const RISK_PATTERNS: Array<{ re: RegExp; why: string }> = [
  { re: /\beval\s*\(|new Function\s*\(/, why: "evaluates code from a string" },
  { re: /\.innerHTML\s*=|dangerouslySetInnerHTML|document\.write\s*\(/, why: "writes raw HTML (XSS risk)" },
  { re: /\b(password|passwd|secret|api[_-]?key|access[_-]?token|private[_-]?key)\w*\s*[:=]\s*["'`][^"'`\s]{3,}["'`]/i, why: "hard-coded secret" },
  { re: /\b(md5|sha1)\b/i, why: "weak hash algorithm" },
  { re: /\b(SELECT|INSERT|UPDATE|DELETE)\b[^;]*(["'`]\s*\+|\$\{)/i, why: "SQL built by string concatenation (injection risk)" },
  { re: /\b(exec|execSync|spawn|system|popen)\s*\([^)]*(\+|\$\{|%s|format\()/, why: "shell command built from variables (injection risk)" },
  { re: /\bpassword\w*\s*(===?|!==?)\s*["'`\w]/i, why: "password compared directly (plain text or timing-unsafe)" },
  { re: /Math\.random\(\).*(token|session|secret|password|id\b)|(token|session|secret)\w*\s*=.*Math\.random\(\)/i, why: "Math.random is not a secure random source" },
  { re: /console\.(log|info|debug)\([^)]*(password|secret|token)/i, why: "logs a secret" },
  { re: /catch\s*(\(\s*\w*\s*\))?\s*\{\s*\}/, why: "swallows errors silently" },
];

const TODO_RE = /\b(TODO|FIXME|XXX|HACK)\b[:\s]*(.*)$/;

/**
 * Characters of one line the line patterns look at, and of a file the whole-file patterns look
 * at. The patterns are heuristics with backtracking; bounded input keeps each one cheap on any
 * file (a minified bundle, or a file a model wrote to stall the server).
 */
const LINE_CHARS = 200;
const FILE_CHARS = 16_000;

function scanLines(path: string, content: string, facts: FileFacts): void {
  const lines = content.split("\n").map((l) => l.slice(0, LINE_CHARS));
  lines.forEach((line, i) => {
    if (facts.risks.length < 6) {
      let why = RISK_PATTERNS.find((p) => p.re.test(line))?.why;
      // Math.random() often sits a line or two below the function that names its purpose.
      if (!why && /Math\.random\(\)/.test(line) && /token|session|secret|password|nonce/i.test(lines.slice(Math.max(0, i - 3), i + 1).join("\n"))) {
        why = "Math.random is not a secure random source";
      }
      if (why) facts.risks.push({ path, line: i + 1, why, text: clip(line.trim(), 80) });
    }
    const todo = TODO_RE.exec(line);
    if (todo && facts.todos.length < 4) facts.todos.push({ path, line: i + 1, why: todo[1] ?? "TODO", text: clip(line.trim(), 80) });
  });
}

function codeList(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).map((s) => `\`${s}\``);
  return items.length > max ? `${shown.join(", ")} (+${items.length - max} more)` : shown.join(", ");
}

function firstMeaningfulLine(content: string): string | undefined {
  for (const raw of content.split("\n")) {
    const line = raw.trim();
    if (!line || /^(#|!\[|\[!\[|<|```|---|===|\/\/|\/\*|\*|import\b|from\b|"use |'use |package\b)/.test(line)) continue;
    return clip(line, 100);
  }
  return undefined;
}

function firstComment(content: string): string | undefined {
  for (const raw of content.split("\n", 15)) {
    const m = /^\s*(?:\/\/+|\/\*\*?|\*|#(?!!)|""")\s*(.*?)\s*(?:\*\/)?$/.exec(raw.slice(0, LINE_CHARS));
    const text = m?.[1]?.replace(/^\*+\s*/, "").trim();
    if (text && text.length > 8 && !/^(eslint|@ts-|prettier|type:|noqa|-\*-)/.test(text)) return clip(text, 100);
  }
  return undefined;
}

function exportsOf(path: string, content: string): string[] {
  const ext = extOf(path);
  const names: string[] = [];
  const add = (n: string | undefined) => {
    if (n && !names.includes(n)) names.push(n);
  };
  if (ext === "py") {
    for (const m of content.matchAll(/^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/gm)) if (!m[1]?.startsWith("_")) add(m[1]);
  } else if (ext === "go") {
    for (const m of content.matchAll(/^func\s+(?:\([^)]*\)\s*)?([A-Z]\w*)/gm)) add(m[1]);
  } else if (ext === "rs") {
    for (const m of content.matchAll(/^pub\s+(?:async\s+)?(?:fn|struct|enum|trait)\s+(\w+)/gm)) add(m[1]);
  } else {
    for (const m of content.matchAll(/export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) add(m[1]);
    for (const m of content.matchAll(/export\s*\{([^}]{0,2000})\}/g)) for (const n of (m[1] ?? "").split(",")) add(n.trim().split(/\s+as\s+/).pop()?.trim());
    for (const m of content.matchAll(/(?:module\.)?exports\.(\w+)\s*=/g)) add(m[1]);
    const cjs = /module\.exports\s*=\s*\{([^}]{0,2000})\}/.exec(content);
    if (cjs) for (const n of (cjs[1] ?? "").split(",")) add(n.split(":")[0]?.trim());
    if (names.length === 0) for (const m of content.matchAll(/^(?:async\s+)?function\s+([A-Za-z_$][\w$]*)/gm)) add(m[1]);
  }
  return names.filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
}

/**
 * What can be read of a package.json cut short: its name, version, description and the scripts
 * listed before the cut (each a `"name": "command"` pair, read with bounded patterns).
 */
function partialPackage(text: string): Record<string, unknown> | undefined {
  const head = text.slice(0, FILE_CHARS);
  const field = (name: string) => new RegExp(`"${name}"\\s*:\\s*"([^"\\n]{0,200})"`).exec(head)?.[1];
  const block = /"scripts"\s*:\s*\{([^}]{0,8000})/.exec(head)?.[1];
  if (!field("name") && block === undefined) return undefined;
  const scripts: Record<string, string> = {};
  for (const m of (block ?? "").matchAll(/"([\w:.-]{1,60})"\s*:\s*"((?:[^"\\\n]|\\.){0,300})"/g)) scripts[m[1]!] = m[2]!.replace(/\\"/g, '"');
  return { name: field("name"), version: field("version"), description: field("description"), ...(block !== undefined ? { scripts } : {}) };
}

/** The line (1-based; 0 when not found) where each of `names` is defined or exported. */
function definitionLines(content: string, names: readonly string[]): number[] {
  const lines = content.split("\n");
  const defining = /\b(export|function|def|class|const|let|var|fn|struct|interface|type|enum|exports)\b/;
  return names.map((name) => {
    // `name` is an identifier (exportsOf keeps only those): escaped for `$`, the regex is linear.
    const word = new RegExp(`(^|[^\\w$])${name.replace(/\$/g, "\\$")}($|[^\\w$])`);
    return lines.findIndex((l) => defining.test(l) && word.test(l.slice(0, LINE_CHARS))) + 1;
  });
}

/** The opening tags `<name …>` of an HTML text (at most 500 characters each: longer ones are not tags a page would have). */
function tagsOf(content: string, name: string): string[] {
  return [...content.matchAll(new RegExp(`<${name}\\b[^>]{0,500}>`, "gi"))].map((m) => m[0]);
}

function colorsOf(content: string): string[] {
  const found: string[] = [];
  for (const m of content.matchAll(/#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|\b(?:rgb|rgba|hsl|hsla)\([^)]{0,100}\)/g)) {
    const c = m[0].toLowerCase();
    if (!found.includes(c)) found.push(c);
  }
  return found;
}

/** Reads one file's text into facts and a finding line (from its first {@link FILE_CHARS} characters). */
export function describeFile(path: string, whole: string, truncated = false): FileFacts {
  const lines = whole.length === 0 ? 0 : whole.split("\n").length;
  const content = whole.slice(0, FILE_CHARS);
  const facts: FileFacts = {
    path,
    finding: "",
    lines,
    headings: [],
    exports: [],
    exportLines: [],
    colors: [],
    scripts: {},
    risks: [],
    todos: [],
    media: false,
    focus: false,
    imagesWithoutAlt: 0,
    isTest: isTestPath(path),
    entries: [],
    targets: [],
  };
  const kind = fileKind(path);
  const head = `\`${path}\` (${lines} ${lines === 1 ? "line" : "lines"}${truncated ? ", truncated" : ""})`;
  const parts: string[] = [];

  if (content.trim() === "") {
    facts.finding = `${head}: empty.`;
    return facts;
  }

  if (baseName(path).toLowerCase() === "package.json") {
    // the whole file: JSON cut at FILE_CHARS would not parse; parseJson checks nesting first. A
    // file the context window cut short is read as far as it goes.
    const pkg = parseJson(whole) ?? (truncated || !whole.trimEnd().endsWith("}") ? partialPackage(whole) : undefined);
    if (isRecord(pkg)) {
      if (typeof pkg.name === "string") facts.packageName = pkg.name;
      facts.entries = packageEntries(pkg, path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
      const version = typeof pkg.version === "string" ? ` ${pkg.version}` : "";
      if (facts.packageName) parts.push(`package \`${facts.packageName}\`${version}`);
      if (typeof pkg.description === "string" && pkg.description) {
        facts.quote = clip(pkg.description, 80);
        parts.push(`"${facts.quote}"`);
      }
      if (isRecord(pkg.scripts)) {
        for (const [k, v] of Object.entries(pkg.scripts)) if (typeof v === "string") facts.scripts[k] = v;
        const names = Object.keys(facts.scripts);
        parts.push(names.length ? `scripts ${codeList(names, 6)}` : "no scripts");
      } else parts.push("no scripts");
      const deps = [
        ...Object.keys(isRecord(pkg.dependencies) ? pkg.dependencies : {}),
        ...Object.keys(isRecord(pkg.devDependencies) ? pkg.devDependencies : {}),
      ];
      if (deps.length) parts.push(`depends on ${deps.slice(0, 5).join(", ")}${deps.length > 5 ? ` (+${deps.length - 5} more)` : ""}`);
      facts.finding = `${head}: ${parts.join("; ")}.`;
      return facts;
    }
  }

  if (kind === "readme" || kind === "doc") {
    facts.headings = content
      .split("\n")
      .filter((l) => /^#{1,6}\s+\S/.test(l))
      .map((l) => clip(l.slice(0, LINE_CHARS).replace(/^#{1,6}\s+/, "").replace(/\s*#*\s*$/, ""), 60));
    const [title, ...sections] = facts.headings;
    if (title) parts.push(`title "${title}"`);
    const first = firstMeaningfulLine(content);
    if (first) parts.push(`says "${first}"`);
    facts.quote = first;
    if (sections.length) parts.push(`sections: ${sections.slice(0, 5).join(", ")}${sections.length > 5 ? ` (+${sections.length - 5} more)` : ""}`);
    scanLines(path, content, facts);
  } else if (kind === "manifest") {
    if (baseName(path).toLowerCase() === "pyproject.toml") facts.entries = pyprojectEntries(content);
    const name = /^\s*name\s*=\s*["']([^"']+)["']/m.exec(content)?.[1];
    if (name) {
      facts.packageName = name;
      parts.push(`package \`${name}\``);
    }
    const first = firstMeaningfulLine(content);
    if (!name && first) parts.push(`starts with "${first}"`);
  } else if (kind === "markup") {
    const title = /<title[^>]{0,200}>([^<]{0,500})<\/title>/i.exec(content)?.[1]?.trim();
    const h1 = /<h1[^>]{0,200}>([\s\S]{0,500}?)<\/h1>/i.exec(content)?.[1]?.replace(/<[^>]+>/g, "").trim();
    if (title) parts.push(`title "${clip(title, 60)}"`);
    if (h1) parts.push(`main heading "${clip(h1, 60)}"`);
    const sheets = tagsOf(content, "link").flatMap((t) => /\bhref\s*=\s*["']([^"'\s]{1,300}\.css)["']/i.exec(t)?.[1] ?? []);
    const scripts = tagsOf(content, "script").flatMap((t) => /\bsrc\s*=\s*["']([^"'\s]{1,300})["']/i.exec(t)?.[1] ?? []);
    if (sheets.length) parts.push(`styles ${codeList(sheets, 3)}`);
    if (scripts.length) parts.push(`scripts ${codeList(scripts, 3)}`);
    const imgs = tagsOf(content, "img");
    facts.imagesWithoutAlt = imgs.filter((t) => !/\balt\s*=/i.test(t)).length;
    if (imgs.length) parts.push(`${imgs.length} image${imgs.length === 1 ? "" : "s"}${facts.imagesWithoutAlt ? `, ${facts.imagesWithoutAlt} without alt text` : ""}`);
    facts.htmlLang = tagsOf(content, "html").some((t) => /\blang\s*=/i.test(t));
    facts.colors = colorsOf(content);
    scanLines(path, content, facts);
  } else if (kind === "style") {
    const rules = (content.match(/\{/g) ?? []).length;
    facts.colors = colorsOf(content);
    facts.media = /@media\b/.test(content);
    facts.focus = /:focus/.test(content);
    const vars = new Set([...content.matchAll(/(?<![\w-])(--[\w-]{1,100})\s*:/g)].map((m) => m[1]));
    parts.push(`${rules} rule${rules === 1 ? "" : "s"}`);
    if (facts.colors.length) parts.push(`colors ${facts.colors.slice(0, 6).join(", ")}${facts.colors.length > 6 ? ` (+${facts.colors.length - 6} more)` : ""}`);
    parts.push(vars.size ? `${vars.size} CSS variable${vars.size === 1 ? "" : "s"}` : "no CSS variables");
    parts.push(facts.media ? "has @media rules" : "no @media rules");
  } else if (kind === "source") {
    if (baseName(path) === "setup.py") facts.entries = setupPyEntries(content);
    facts.exports = exportsOf(path, content);
    facts.exportLines = definitionLines(content, facts.exports.slice(0, 6));
    const comment = firstComment(content);
    if (comment) parts.push(`"${comment}"`);
    facts.quote = comment;
    if (facts.exports.length) parts.push(`defines ${codeList(facts.exports, 6)}`);
    if (facts.isTest) {
      const tests = (content.match(/\b(it|test)\s*\(\s*["'`]/g) ?? []).length;
      if (tests) parts.push(`${tests} test case${tests === 1 ? "" : "s"}`);
    }
    if (extOf(path) === "tsx" || extOf(path) === "jsx" || extOf(path) === "vue") facts.colors = colorsOf(content);
    scanLines(path, content, facts);
    if (parts.length === 0) {
      const first = firstMeaningfulLine(content);
      if (first) parts.push(`starts with "${first}"`);
    }
  } else {
    if (/^(gnu)?makefile$/i.test(baseName(path))) facts.targets = makeTargets(content);
    const first = firstMeaningfulLine(content);
    if (first) parts.push(`starts with "${first}"`);
    scanLines(path, content, facts);
  }
  facts.finding = parts.length ? `${head}: ${parts.join("; ")}.` : `${head}.`;
  return facts;
}
