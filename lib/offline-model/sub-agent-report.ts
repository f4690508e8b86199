/**
 * The offline sub-agent's report, in the language of the goal: the project's structure (the top
 * folders and what they hold, where the code is, the entry points, the modules imported most, the
 * tests), findings from what it read (definitions with `path:line`, the README, what a command it
 * ran printed, search hits), what it looked at, and recommendations for its role
 * (./sub-agent-recommend.ts). Built only from what it knows (./known.ts), so every `path:line` it
 * cites was in a result, with the text that line holds. Pure.
 */
import { agentText, riskWhy, type AgentText } from "./agent-text";
import { fileKind, isTestPath, type FileFacts } from "./files";
import type { OfflineDecision } from "./history";
import type { Known } from "./known";
import { dirRole } from "./project-map";
import { recommend } from "./sub-agent-recommend";
import type { ReportSituation } from "./sub-agent-situation";
import { clip, type Lang } from "./text";

const code = (items: readonly string[], max: number, t: AgentText) => `${t.list(items.slice(0, max).map((i) => `\`${i}\``))}${items.length > max ? ` (+${items.length - max})` : ""}`;
/** A quoted line of a file: what the `path:line` before it holds (cut at a backtick or quote). */
const said = (text: string) => `"${clip(text.replace(/["`“”]/g, "'"), 60)}"`;

/** The functions and classes defined in the files read, with where (`path:line`), functions before constants. */
function definitions(facts: readonly FileFacts[]): Array<{ name: string; path: string; line: number }> {
  return facts
    .flatMap((f) => f.exports.map((name, i) => ({ name, path: f.path, line: f.exportLines[i] ?? 0 })))
    .filter((d) => d.line > 0)
    // the code's own before test helpers, functions and classes before constants
    .sort((a, b) => Number(isTestPath(a.path)) - Number(isTestPath(b.path)) || Number(/^[A-Z0-9_]+$/.test(a.name)) - Number(/^[A-Z0-9_]+$/.test(b.name)));
}

/** The structure lines: top level, folders, where the code is, entry points, imports, tests. */
function structure(k: Known, t: AgentText, lang: Lang): string[] {
  const out: string[] = [];
  const root = k.listings.find((l) => l.path === ".");
  if (root && root.entries === 0) return [t.empty];
  if (root) {
    out.push(t.top(root.entries, root.omitted > 0, root.dirs.length ? code(root.dirs.map((d) => `${d}/`), 8, t) : "", root.files.length ? code(root.files, 6, t) : ""));
  } else if (k.failed.some((f) => f.key.startsWith("listed"))) out.push(t.listFailed(k.failed.find((f) => f.key.startsWith("listed"))?.error ?? ""));
  for (const l of k.listings.filter((x) => x.path !== ".")) {
    out.push(t.folder({ path: l.path, entries: l.entries, more: l.omitted > 0, kinds: l.kinds, dirs: l.dirs.length }));
    if (/(^|\/)(packages|apps)$/.test(l.path) && l.dirs.length) out.push(t.packages(l.path, code(l.dirs.map((d) => d.split("/").pop() ?? d), 8, t)));
  }
  // where the code is: the folder of the first source file read
  const codeFile = k.files.find((f) => fileKind(f.path) === "source" && !f.isTest && f.path.includes("/"));
  if (codeFile) {
    const top = codeFile.path.split("/")[0]!;
    const role = dirRole(top);
    out.push(t.codeIn(top, role === "built" ? "built" : role === "source" ? "source" : "other"));
  }
  const entries = k.files.flatMap((f) => f.entries).slice(0, 5).map((e) => t.entry(e.field, e.path));
  const mains = [...new Set([...k.files.map((f) => f.path), ...k.listings.flatMap((l) => l.files)].filter((p) => p.endsWith("__main__.py")))].map((p) => t.mainPy(p));
  if (entries.length || mains.length) out.push(t.entries(t.list([...entries, ...mains].slice(0, 6))));
  const imports = k.searches.find((q) => q.modules !== undefined || /^(import |require\()$/.test(q.query));
  if (imports?.modules?.length) out.push(t.imports(t.list(imports.modules.map((m) => t.imported(m.module, m.files, `${m.at.path}:${m.at.line}`))), imports.matches));
  else if (imports && imports.matches > 0) out.push(t.noImports(imports.matches));
  out.push(testSetup(k, t, lang));
  return out;
}

/** The test files seen (listings and files read) and the test command. */
function testFilesOf(k: Known): { files: string[]; count: number } {
  const files = [...new Set([...k.files.filter((f) => f.isTest).map((f) => f.path), ...k.listings.flatMap((l) => l.tests)])];
  const listed = k.listings.reduce((n, l) => n + l.testCount, 0);
  // a test read in a folder no listing counted adds one
  const listedDirs = new Set(k.listings.map((l) => l.path));
  const parent = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : ".");
  const readOutside = k.files.filter((f) => f.isTest && !listedDirs.has(parent(f.path))).length;
  return { files, count: Math.max(files.length, listed + readOutside) };
}

function testSetup(k: Known, t: AgentText, lang: Lang): string {
  const pkg = k.files.find((f) => f.path === "package.json");
  const tests = testFilesOf(k);
  const root = k.listings.find((l) => l.path === ".");
  const testDirs = (root?.dirs ?? []).filter((d) => /^(test|tests|__tests__|spec|e2e)$/i.test(d));
  const parts = [
    // a package.json seen only in part may have its scripts in the part not seen
    pkg?.scripts.test ? t.testCommand(pkg.scripts.test) : pkg && !pkg.finding.includes(", truncated)") ? t.noTestScript : "",
    testDirs.length ? t.testDirs(code(testDirs.map((d) => `${d}/`), 3, t)) : "",
    tests.count ? t.testFiles(tests.count, code(tests.files, 4, t)) : testDirs.length ? "" : t.noTestFiles,
  ].filter(Boolean);
  return t.testSetup(parts.join(lang === "zh" ? "；" : "; "));
}

/** The final report of the agent, as a `report_to_leader` call (or its text, without that tool). */
export function report(s: ReportSituation, k: Known, offered: ReadonlySet<string>): OfflineDecision {
  const t = agentText(s.lang);
  const facts = k.files;
  const findings: string[] = [];
  const looked: string[] = [];

  if (k.asked) {
    // The person's answer decides the report's focus, so it leads.
    const { answer, answeredBy, error } = k.asked;
    findings.push(answer ? t.answered(!answeredBy || answeredBy === "person" ? t.person : answeredBy, clip(answer, 200)) : t.unanswered(error ? clip(error, 80) : ""));
  }
  if (s.run) {
    const c = k.command;
    if (c && c.refused) findings.push(t.refused(c.command, c.refused));
    else if (c && !c.pending) findings.push(t.ran(c.command, c.exitCode, c.timedOut === true, c.tail, c.durationMs));
    else if (!offered.has("run_command")) findings.push(t.noRunTool(s.run === "test" ? "npm test" : "npm run build"));
    else findings.push(t.noCommand);
  }
  const pkg = facts.find((f) => f.path === "package.json");
  if (pkg?.packageName) findings.push(t.pkg(pkg.packageName, pkg.quote));
  const readme = facts.find((f) => fileKind(f.path) === "readme" && !f.path.includes("/")) ?? facts.find((f) => fileKind(f.path) === "readme");
  if (readme) findings.push(t.readme(readme.path, readme.headings[0], readme.quote));
  const defs = definitions(facts);
  if (defs.length) findings.push(t.defined(defs.slice(0, 6).map((d) => t.def(d.name, `${d.path}:${d.line}`)).join(s.lang === "zh" ? "、" : ", "), Math.max(0, defs.length - 6)));
  const todos = facts.flatMap((f) => f.todos);
  if (todos.length) findings.push(t.todos(todos.slice(0, 3).map((x) => `\`${x.path}:${x.line}\` ${said(x.text)}`).join(s.lang === "zh" ? "；" : "; ")));
  const risks = facts.flatMap((f) => f.risks);
  if (s.kind === "review" || s.kind === "implementation") {
    findings.push(risks.length ? t.risks(risks.slice(0, 4).map((r) => `\`${r.path}:${r.line}\` ${riskWhy(s.lang, r.why)} ${said(r.text)}`).join(s.lang === "zh" ? "；" : "; ")) : t.noRisks(facts.length));
  }
  const colors = [...new Set(facts.flatMap((f) => f.colors))];
  const styles = facts.filter((f) => fileKind(f.path) === "style");
  const markup = facts.filter((f) => fileKind(f.path) === "markup");
  if (s.kind === "ui") {
    if (colors.length) findings.push(t.colors(colors.slice(0, 8).join(", "), Math.max(0, colors.length - 8)));
    if (styles.length) findings.push(t.responsive(styles.some((f) => f.media), styles.some((f) => f.focus)));
    const noAlt = markup.reduce((n, f) => n + f.imagesWithoutAlt, 0);
    if (noAlt) findings.push(t.noAlt(noAlt));
  }
  for (const q of k.searches) {
    if (q.modules !== undefined || /^(import |require\()$/.test(q.query)) continue;
    findings.push(q.matches ? t.search(q.query, q.path, q.matches, q.omitted > 0, q.hits.map((h) => `\`${h.path}:${h.line}\``).join(", ")) : t.searchNone(q.query, q.path));
  }
  for (const f of k.failed.filter((x) => x.key.startsWith("searched"))) findings.push(t.searchFailed(f.key.slice(9), clip(f.error, 120)));
  for (const m of s.messages) findings.push(t.message(m.sender === "the person" ? t.person : m.sender, clip(m.body, 160)));
  if (offered.has("write_file")) findings.push(t.noWrites);

  for (const f of facts) {
    const names = f.exports.slice(0, 4).map((e) => `\`${e}\``);
    looked.push(t.file(f.path, f.lines, f.finding.includes(", truncated)"), f.quote ? clip(f.quote, 90) : undefined, names.length ? t.list(names) : ""));
  }
  for (const f of k.failed.filter((x) => x.key.startsWith("read "))) looked.push(t.readFailed(f.key.slice(5), clip(f.error, 120)));

  const recommendations = recommend(s, k, t, { risks, todos, colors, styles, markup, pkg, readme, defs });
  const summary = [
    t.title(s.roleName, clip(s.goal, 140)),
    "",
    t.hStructure,
    ...structure(k, t, s.lang).map((f) => `- ${f}`),
    "",
    t.hFindings,
    ...findings.map((f) => `- ${f}`),
    "",
    t.hLooked,
    ...looked.map((f) => `- ${f}`),
    "",
    t.hRecs,
    ...recommendations.map((r) => `- ${r}`),
  ].join("\n");
  const status = facts.length === 0 && k.listings.length === 0 && k.failed.length > 0 ? "partial" : "completed";
  const matches = k.searches.reduce((n, q) => n + q.matches, 0);
  return {
    reasoning: t.reportReason(k.listings.length, facts.length, k.searches.length),
    // Without the report tool (a misconfigured runtime) the report is the answer itself.
    content: offered.has("report_to_leader") ? t.reportContent(facts.length, matches) : summary,
    toolCalls: offered.has("report_to_leader") ? [{ name: "report_to_leader", args: { summary, status } }] : [],
  };
}
