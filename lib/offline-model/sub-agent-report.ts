/**
 * The offline sub-agent's report: findings from what it read (paths with line numbers, the
 * functions defined, open TODOs, the test setup, what the README claims), what it looked at, and
 * recommendations for its role. Built from what it knows (lib/models/offline/known.ts), so what
 * the context window left out of view is still reported. Pure.
 */
import { fileKind, isTestPath, type FileFacts, type Flag } from "./files";
import type { Known } from "./known";
import type { OfflineDecision } from "./history";
import { clip, joinList, type Aspect } from "./text";

/** The kind of agent, by its role (lib/models/offline/sub-agent.ts). */
export type RoleKind = Aspect["key"] | "generic";

/** What the report needs of the agent's situation. */
export interface ReportSituation {
  roleName: string;
  kind: RoleKind;
  goal: string;
  messages: Array<{ sender: string; body: string }>;
}

function flagList(flags: readonly Flag[], max: number): string {
  return flags
    .slice(0, max)
    .map((f) => `\`${f.path}:${f.line}\` ${f.why}`)
    .join("; ");
}

const code = (items: readonly string[], max: number) => `${items.slice(0, max).map((i) => `\`${i}\``).join(", ")}${items.length > max ? ` (+${items.length - max} more)` : ""}`;

/** The functions defined in the files read, with where (`path:line`), functions before constants. */
function definitions(facts: readonly FileFacts[]): Array<{ name: string; path: string; line: number }> {
  return facts
    .flatMap((f) => f.exports.map((name, i) => ({ name, path: f.path, line: f.exportLines[i] ?? 0 })))
    .sort((a, b) => Number(/^[A-Z_]+$/.test(a.name)) - Number(/^[A-Z_]+$/.test(b.name)));
}

/** The final report of the agent, as a `report_to_leader` call (or its text, without that tool). */
export function report(s: ReportSituation, k: Known, offered: ReadonlySet<string>): OfflineDecision {
  const facts = k.files;
  const root = k.listings.find((l) => l.path === ".");
  const inner = k.listings.filter((l) => l.path !== ".");
  const findings: string[] = [];
  const layout: string[] = [];

  if (root && root.entries === 0) layout.push("The project folder is empty.");
  else if (root) {
    layout.push(
      `Project layout: ${root.entries}${root.omitted ? "+" : ""} entries at the top level; folders ${root.dirs.length ? code(root.dirs.map((d) => `${d}/`), 6) : "none noted"}; files ${root.files.length ? code(root.files, 6) : "none noted"}.`,
    );
  }
  for (const l of inner) layout.push(`Inside \`${l.path}/\` (${l.entries}${l.omitted ? "+" : ""} entries): ${l.files.length ? code(l.files, 6) : "no files worth reading"}${l.dirs.length ? `; folders ${code(l.dirs, 4)}` : ""}.`);
  if (!root && !inner.length && k.failed.some((f) => f.key.startsWith("listed"))) layout.push(`Could not list the project folder: ${k.failed.find((f) => f.key.startsWith("listed"))?.error}.`);
  for (const f of facts) layout.push(f.finding);
  for (const f of k.failed.filter((x) => x.key.startsWith("read "))) layout.push(`Could not read \`${f.key.slice(5)}\`: ${clip(f.error, 120)} — skipped.`);

  const searchLines = k.searches.map((q) =>
    q.matches
      ? `Search for "${q.query}"${q.path ? ` in \`${q.path}/\`` : ""}: ${q.matches}${q.omitted ? "+" : ""} match${q.matches === 1 ? "" : "es"} — ${q.hits.map((h) => `\`${h.path}:${h.line}\``).join(", ")}${q.first ? ` (first: "${clip(q.first, 70)}")` : ""}.`
      : `Search for "${q.query}"${q.path ? ` in \`${q.path}/\`` : ""}: no matches.`,
  );
  for (const f of k.failed.filter((x) => x.key.startsWith("searched"))) searchLines.push(`Search ${f.key.slice(9)} failed: ${clip(f.error, 120)}.`);

  const risks = facts.flatMap((f) => f.risks);
  const todos = facts.flatMap((f) => f.todos);
  const colors = [...new Set(facts.flatMap((f) => f.colors))];
  const styles = facts.filter((f) => fileKind(f.path) === "style");
  const markup = facts.filter((f) => fileKind(f.path) === "markup");
  const pkg = facts.find((f) => f.path.split("/").pop() === "package.json");
  const readme = facts.find((f) => fileKind(f.path) === "readme");
  const defs = definitions(facts);
  const hits = new Map<string, number>();
  for (const q of k.searches) for (const h of q.hits) hits.set(h.path, (hits.get(h.path) ?? 0) + 1);
  const hotFile = [...hits.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const testFiles = [...new Set([...k.listings.flatMap((l) => l.tests), ...facts.filter((f) => f.isTest || isTestPath(f.path)).map((f) => f.path)])];

  // What every report holds: the code defined, what the README claims, the test setup, open notes.
  if (defs.length) findings.push(`Defined in the files read: ${defs.slice(0, 6).map((d) => `\`${d.name}\` (\`${d.path}${d.line ? `:${d.line}` : ""}\`)`).join(", ")}${defs.length > 6 ? ` (+${defs.length - 6} more)` : ""}.`);
  if (readme) findings.push(`The README (\`${readme.path}\`) ${readme.finding.replace(/^`[^`]*`\s*\([^)]*\):\s*/, "").replace(/\.$/, "") || "is empty"}.`);
  const testCommand = pkg?.scripts.test;
  const testSetup = [
    testCommand ? `test command \`${testCommand}\`` : pkg ? "package.json has no `test` script" : "",
    testFiles.length ? `test files ${code(testFiles, 4)}` : "no test files seen in the folders listed",
  ].filter(Boolean);
  findings.push(`Test setup: ${testSetup.join("; ")}.`);
  if (todos.length) findings.push(`Open notes: ${todos.slice(0, 3).map((t) => `\`${t.path}:${t.line}\` ${clip(t.text, 60)}`).join("; ")}.`);

  if (s.kind === "review" || s.kind === "implementation") {
    findings.push(risks.length ? `Risky patterns: ${flagList(risks, 4)}.` : `No risky patterns (eval, raw HTML, hard-coded secrets, string-built SQL or shell commands) in the ${facts.length} file${facts.length === 1 ? "" : "s"} read.`);
  }
  if (s.kind === "ui") {
    if (colors.length) findings.push(`Colors in use: ${colors.slice(0, 8).join(", ")}${colors.length > 8 ? ` (+${colors.length - 8} more)` : ""}.`);
    if (styles.length) findings.push(`Responsive rules: ${styles.some((f) => f.media) ? "present" : "none (no @media queries)"}; focus styles: ${styles.some((f) => f.focus) ? "present" : "none"}.`);
    const noAlt = markup.reduce((n, f) => n + f.imagesWithoutAlt, 0);
    if (noAlt) findings.push(`Accessibility: ${noAlt} image${noAlt === 1 ? "" : "s"} without alt text.`);
  }
  findings.push(...searchLines);
  if (k.asked) {
    // The person's answer decides the report's focus, so it leads.
    const { answer, answeredBy, error } = k.asked;
    findings.unshift(
      answer
        ? `I asked for clarification; ${!answeredBy || answeredBy === "person" ? "the person" : answeredBy} answered: "${clip(answer, 200)}" — this report focuses on that.`
        : `I asked for clarification but got no answer${error ? ` (${clip(error, 80)})` : ""}; I took the broadest reading of the goal.`,
    );
  }
  for (const m of s.messages) findings.push(`Message from ${m.sender}: "${clip(m.body, 160)}" — noted and taken into account.`);
  if (offered.has("write_file")) findings.push("I changed no files: this report is the analysis to act on.");

  const recommendations = recommend(s, k, { risks, todos, colors, styles, markup, pkg, readme, defs, hotFile, testFiles });
  const summary = [
    `**${s.roleName} report** — goal: "${clip(s.goal, 140)}"`,
    "",
    "**Findings**",
    ...findings.map((f) => `- ${f}`),
    "",
    "**What I looked at**",
    ...layout.map((f) => `- ${f}`),
    "",
    "**Recommendations**",
    ...recommendations.map((r) => `- ${r}`),
  ].join("\n");
  const status = facts.length === 0 && k.listings.length === 0 && k.failed.length > 0 ? "partial" : "completed";
  const matches = k.searches.reduce((n, q) => n + q.matches, 0);
  return {
    reasoning: `I have listed ${k.listings.length} folder${k.listings.length === 1 ? "" : "s"}, read ${facts.length} file${facts.length === 1 ? "" : "s"} and searched ${k.searches.length} time${k.searches.length === 1 ? "" : "s"}; that is enough for a useful report.`,
    // Without the report tool (a misconfigured runtime) the report is the answer itself.
    content: offered.has("report_to_leader") ? `Reporting my findings to the Team Leader: ${facts.length} file${facts.length === 1 ? "" : "s"} read, ${matches} search match${matches === 1 ? "" : "es"}.` : summary,
    toolCalls: offered.has("report_to_leader") ? [{ name: "report_to_leader", args: { summary, status } }] : [],
  };
}

interface Evidence {
  risks: Flag[];
  todos: Flag[];
  colors: string[];
  styles: FileFacts[];
  markup: FileFacts[];
  pkg?: FileFacts;
  readme?: FileFacts;
  defs: Array<{ name: string; path: string; line: number }>;
  hotFile?: [string, number];
  testFiles: string[];
}

/** Two to four recommendations for the role, from what was found. */
function recommend(s: ReportSituation, k: Known, e: Evidence): string[] {
  const recs: string[] = [];
  const answer = k.asked?.answer;
  if (answer) recs.push(`Start with what you asked for — "${clip(answer, 100)}" — using the files above as the starting point.`);
  const firstCode = k.files.find((f) => fileKind(f.path) === "source" && !f.isTest) ?? k.files.find((f) => f.exports.length > 0);
  const at = (d: { path: string; line: number }) => `\`${d.path}${d.line ? `:${d.line}` : ""}\``;
  switch (s.kind) {
    case "review":
      if (e.risks[0]) recs.push(`Fix \`${e.risks[0].path}:${e.risks[0].line}\` first (${e.risks[0].why})${e.risks[0].text ? `: \`${e.risks[0].text}\`` : ""}.`);
      if (e.risks[1]) recs.push(`Then \`${e.risks[1].path}:${e.risks[1].line}\` (${e.risks[1].why}).`);
      recs.push(e.defs[0] ? `Add tests for the failure paths of \`${e.defs[0].name}\` (${at(e.defs[0])}): bad input, missing values, errors.` : firstCode ? `Add tests for the failure paths of \`${firstCode.path}\` (bad input, missing values, errors).` : "Add tests for the failure paths (bad input, missing values, errors) of the code in scope.");
      if (e.risks.length === 0) recs.push(`Review the remaining files${e.hotFile ? `, starting with \`${e.hotFile[0]}\` (${e.hotFile[1]} search hit${e.hotFile[1] === 1 ? "" : "s"})` : ""} the same way; validate input at every boundary and keep secrets in environment variables.`);
      break;
    case "ui": {
      const css = e.styles[0]?.path ?? e.markup[0]?.path;
      if (e.colors.length) recs.push(`Turn the ${e.colors.length} color${e.colors.length === 1 ? "" : "s"} in use (${e.colors.slice(0, 4).join(", ")}) into named CSS variables (background, surface, text, accent, danger) and check body text contrast is at least 4.5:1.`);
      else recs.push("Define a color scheme as CSS variables with a role for each color (background, surface, text, accent, danger) and contrast of at least 4.5:1.");
      if (e.styles.length && !e.styles.some((f) => f.media)) recs.push(`Add a narrow-screen breakpoint (e.g. \`@media (max-width: 640px)\`) to \`${css}\`.`);
      if (e.styles.length && !e.styles.some((f) => f.focus)) recs.push("Give links and buttons a visible `:focus-visible` style.");
      if (e.markup.some((f) => f.imagesWithoutAlt > 0)) recs.push(`Add \`alt\` text to the images in ${e.markup.filter((f) => f.imagesWithoutAlt > 0).map((f) => `\`${f.path}\``).join(", ")}.`);
      if (!e.styles.length && !e.markup.length) recs.push("Locate the page's markup and stylesheet (none were among the files read) before changing the design.");
      break;
    }
    case "research":
      if (e.hotFile) recs.push(`Start from \`${e.hotFile[0]}\`: it holds ${e.hotFile[1]} of the search hits noted.`);
      if (e.defs[0]) recs.push(`Trace how \`${e.defs[0].name}\` (${at(e.defs[0])}) is used before changing it.`);
      recs.push(e.readme ? `Record the findings in \`${e.readme.path}\` so the next person does not have to trace them again.` : "Write the findings down in a README; the project has none among the files read.");
      break;
    case "testing":
      if (e.pkg && !e.pkg.scripts.test) recs.push("Add a `test` script to package.json so the suite runs with one command.");
      recs.push(e.defs.length ? `Cover ${e.defs.slice(0, 3).map((d) => `\`${d.name}\` (${at(d)})`).join(", ")} with unit tests, including the failure cases.` : "Write unit tests for the main module, including the failure cases.");
      if (e.testFiles.length === 0) recs.push("Create a test folder next to the code; no tests were seen.");
      break;
    case "docs":
      if (e.readme) {
        const have = e.readme.headings.join(" ").toLowerCase();
        const missing = [
          ["Install", /install|setup|getting started/],
          ["Usage", /usage|run|start/],
          ["Configuration", /config|environment|options/],
          ["Testing", /test/],
        ].filter(([, re]) => !(re as RegExp).test(have)).map(([name]) => name as string);
        recs.push(missing.length ? `Add the missing sections to \`${e.readme.path}\`: ${missing.join(", ")}.` : `Keep \`${e.readme.path}\` in step with the code: check each command and option it names still exists.`);
      } else recs.push("Create a README with what the project is, how to install and run it, and its configuration.");
      if (e.pkg && Object.keys(e.pkg.scripts).length) recs.push(`Document each script (${Object.keys(e.pkg.scripts).slice(0, 5).map((x) => `\`${x}\``).join(", ")}) with the exact command and what it does.`);
      if (e.defs[0]) recs.push(`Add a usage example for \`${e.defs[0].name}\` from ${at(e.defs[0])}.`);
      break;
    case "implementation":
      recs.push(e.hotFile ? `Make the change in \`${e.hotFile[0]}\` and keep it small.` : firstCode ? `Make the change in \`${firstCode.path}\` and keep it small.` : "Locate the entry point first; none of the files read holds the code the goal names.");
      recs.push("Add a test that fails before the change and passes after it.");
      if (e.todos[0]) recs.push(`Resolve the open note at \`${e.todos[0].path}:${e.todos[0].line}\` while there.`);
      break;
    default:
      recs.push(e.hotFile ? `Look at \`${e.hotFile[0]}\` first (${e.hotFile[1]} search hit${e.hotFile[1] === 1 ? "" : "s"}).` : "Read the remaining files in the project to complete the picture.");
      recs.push("Turn the findings above into a concrete follow-up goal for the team.");
  }
  const failedReads = k.failed.filter((f) => f.key.startsWith("read ")).map((f) => `\`${f.key.slice(5)}\``);
  if (failedReads.length) recs.push(`Check why ${joinList(failedReads)} could not be read.`);
  const out = recs.slice(0, 4);
  if (out.length < 2) out.push("Send a follow-up goal if any of this should be acted on.");
  return out;
}
