/**
 * The recommendations closing the offline sub-agent's report: two to four, for its role, each
 * built from what it found — a file it read, a name it saw defined, a module many files import,
 * the command it ran — never a suggestion to look at a file it has already read. Pure.
 */
import { riskWhy, type AgentText } from "./agent-text";
import { fileKind, type FileFacts, type Flag } from "./files";
import type { Known } from "./known";
import type { ReportSituation } from "./sub-agent-situation";
import { clip } from "./text";

/** What the report found, for the recommendations. */
export interface Evidence {
  risks: Flag[];
  todos: Flag[];
  colors: string[];
  styles: FileFacts[];
  markup: FileFacts[];
  pkg?: FileFacts;
  readme?: FileFacts;
  defs: Array<{ name: string; path: string; line: number }>;
}

/** Two to four recommendations for the role, from what was found. */
export function recommend(s: ReportSituation, k: Known, t: AgentText, e: Evidence): string[] {
  const recs: string[] = [];
  // every file read, its note kept or not: none is suggested as still to read
  const read = new Set([...k.files.map((f) => f.path), ...[...k.done].filter((d) => d.startsWith("read ")).map((d) => d.slice(5))]);
  const answer = k.asked?.answer;
  if (answer) recs.push(t.recAnswer(clip(answer, 100)));
  const c = k.command;
  if (c && !c.pending && !c.refused) recs.push(c.exitCode === 0 && !c.timedOut ? t.recRunAgain(c.command) : t.recFixFailing(c.command));
  else if (c?.refused) recs.push(t.recRunIt(c.command));
  const hits = new Map<string, number>();
  for (const q of k.searches) for (const h of q.hits) if (!read.has(h.path) && fileKind(h.path) === "source") hits.set(h.path, (hits.get(h.path) ?? 0) + 1);
  // the file with most search hits that was not read yet
  const hot = [...hits.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const core = k.searches.flatMap((q) => q.modules ?? []).find((m) => m.files >= 2);
  const firstCode = k.files.find((f) => fileKind(f.path) === "source" && !f.isTest);
  const at = (d: { path: string; line: number }) => `${d.path}:${d.line}`;
  switch (s.kind) {
    case "review":
      if (e.risks[0]) recs.push(t.recFix(at(e.risks[0]), riskWhy(s.lang, e.risks[0].why)));
      if (e.risks[1]) recs.push(t.recThen(at(e.risks[1]), riskWhy(s.lang, e.risks[1].why)));
      if (e.defs[0]) recs.push(t.recFailTests(e.defs[0].name, at(e.defs[0])));
      if (hot) recs.push(t.recUnread(`\`${hot[0]}\``));
      if (e.risks.length === 0) recs.push(t.recBoundaries);
      break;
    case "ui": {
      const css = e.styles[0]?.path ?? e.markup[0]?.path;
      recs.push(e.colors.length ? t.recColors(e.colors.length, e.colors.slice(0, 4).join(", ")) : t.recScheme);
      if (css && e.styles.length && !e.styles.some((f) => f.media)) recs.push(t.recBreakpoint(css));
      if (e.styles.length && !e.styles.some((f) => f.focus)) recs.push(t.recFocus);
      if (e.markup.some((f) => f.imagesWithoutAlt > 0)) recs.push(t.recAlt(e.markup.filter((f) => f.imagesWithoutAlt > 0).map((f) => `\`${f.path}\``).join(", ")));
      if (!e.styles.length && !e.markup.length) recs.push(t.recFindUi);
      break;
    }
    case "research":
      if (core) recs.push(t.recCore(core.module, core.files));
      if (hot) recs.push(t.recStartHot(hot[0], hot[1]));
      if (e.defs[0]) recs.push(t.recTrace(e.defs[0].name, at(e.defs[0])));
      recs.push(e.readme ? t.recRecord(e.readme.path) : t.recWriteReadme);
      break;
    case "testing":
      if (e.pkg && !e.pkg.scripts.test && !e.pkg.finding.includes(", truncated)")) recs.push(t.recTestScript);
      recs.push(e.defs.length ? t.recCover(t.list(e.defs.slice(0, 3).map((d) => `\`${d.name}\` (\`${at(d)}\`)`))) : t.recCoverMain);
      if (k.listings.every((l) => l.testCount === 0) && !k.files.some((f) => f.isTest)) recs.push(t.recTestFolder);
      break;
    case "docs":
      if (e.readme) {
        const have = e.readme.headings.join(" ").toLowerCase();
        const missing = ([
          ["install", /install|setup|getting started|安装/],
          ["usage", /usage|run|start|使用|用法/],
          ["config", /config|environment|options|配置/],
          ["testing", /test|测试/],
        ] as const).filter(([, re]) => !re.test(have)).map(([name]) => t.sections[name]);
        recs.push(missing.length ? t.recSections(e.readme.path, missing.join(", ")) : t.recInStep(e.readme.path));
      } else recs.push(t.recCreateReadme);
      if (e.pkg && Object.keys(e.pkg.scripts).length) recs.push(t.recScripts(Object.keys(e.pkg.scripts).slice(0, 5).map((x) => `\`${x}\``).join(", ")));
      if (e.defs[0]) recs.push(t.recExample(e.defs[0].name, at(e.defs[0])));
      break;
    case "implementation":
      recs.push(hot ? t.recChangeIn(hot[0]) : firstCode ? t.recChangeIn(firstCode.path) : t.recLocate);
      recs.push(t.recFailingTest);
      if (e.todos[0]) recs.push(t.recTodo(at(e.todos[0])));
      break;
    default:
      if (core) recs.push(t.recCore(core.module, core.files));
      if (hot) recs.push(t.recLookFirst(hot[0], hot[1]));
      recs.push(t.recFollowUp);
  }
  const failedReads = k.failed.filter((f) => f.key.startsWith("read ")).map((f) => `\`${f.key.slice(5)}\``);
  if (failedReads.length) recs.push(t.recUnreadable(t.list(failedReads)));
  const out = recs.slice(0, 4);
  if (out.length < 2) out.push(t.recSend);
  return out;
}
