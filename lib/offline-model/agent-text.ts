/**
 * The offline sub-agent's words, in the language of the goal (English or Chinese): what it says
 * while it works, the question it asks, and every sentence of its report. One table per
 * language, the same keys in both, so a Chinese goal gets Chinese text throughout. Pure.
 */
import type { Lang } from "./text";

/** A listing's digest, as the report describes a folder. */
interface FolderShape {
  path: string;
  entries: number;
  more: boolean;
  kinds: string[];
  dirs: number;
}

const kindsEn = (kinds: readonly string[]) => kinds.map((k) => k.split(":")).map(([ext, n]) => `${n} .${ext}`).join(", ");
const kindsZh = (kinds: readonly string[]) => kinds.map((k) => k.split(":")).map(([ext, n]) => `${n} 个 .${ext}`).join("、");
const s = (n: number, one: string, many: string) => (n === 1 ? one : many);

/**
 * `text` as a Markdown code span: a command's output is the program's text, not the report's
 * words (shown as code, never translated). The fence is one backtick longer than any run of
 * backticks inside, and padded when the text starts or ends with one.
 */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** English. */
const en = {
  list: (items: readonly string[]) => (items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`),
  stepListing: "listing",
  stepReading: "reading",
  stepSearching: "searching for",
  stepRunning: "running",
  stepReason: (step: number, read: number, next: string, goal: string) => `Step ${step}: ${read} ${s(read, "file", "files")} read so far; next, ${next} — what matters most for "${goal}" that I have not looked at.`,
  askContent: "Asking the Team Leader to narrow the goal down before I report.",
  askReason: "My task says the goal may be unclear and to ask first; the answer decides where my report should focus.",
  askQuestion: (goal: string, found: string, options: string) => `The goal says "${goal}". ${found}. Should I focus on ${options}?`,
  askFound: (names: string) => `I found ${names}`,
  askEmpty: "The project folder looks empty",
  focus: {
    review: "security, correctness, or maintainability",
    ui: "the layout, the colors, or accessibility",
    research: "how it works today, where it lives, or which option fits best",
    testing: "unit tests, integration tests, or end-to-end tests",
    docs: "setup instructions, an API reference, or a changelog",
    implementation: "a bug fix, a new feature, or a refactoring",
    generic: "the structure, the code quality, or the documentation",
  },
  doneAlready: "My report is with the Team Leader.",
  doneNoted: "Noted. My report is already with the Team Leader; send me a new task if you need more from me.",
  doneReason: "My report is already with the Team Leader.",
  reportContent: (files: number, matches: number) => `Reporting my findings to the Team Leader: ${files} ${s(files, "file", "files")} read, ${matches} search ${s(matches, "match", "matches")}.`,
  reportReason: (lists: number, files: number, searches: number) => `I have listed ${lists} ${s(lists, "folder", "folders")}, read ${files} ${s(files, "file", "files")} and searched ${searches} ${s(searches, "time", "times")}; that is enough for a useful report.`,
  title: (role: string, goal: string) => `**${role} report** — goal: "${goal}"`,
  hStructure: "**Structure**",
  hFindings: "**Findings**",
  hLooked: "**What I looked at**",
  hRecs: "**Recommendations**",
  empty: "The project folder is empty.",
  top: (n: number, more: boolean, dirs: string, files: string) => `Top level: ${n}${more ? "+" : ""} entries — ${dirs ? `folders ${dirs}` : "no folders"}; ${files ? `files ${files}` : "no files"}.`,
  folder: (f: FolderShape) => `\`${f.path}/\` holds ${f.entries}${f.more ? "+" : ""} entries${f.kinds.length ? `: ${kindsEn(f.kinds)} files` : ""}${f.dirs ? `${f.kinds.length ? "," : ":"} ${f.dirs} ${s(f.dirs, "folder", "folders")}` : ""}.`,
  packages: (where: string, names: string) => `Packages in \`${where}/\`: ${names}.`,
  codeIn: (dir: string, role: "source" | "built" | "other") => (role === "built" ? `The code is in \`${dir}/\`, built output: the project ships no source folder, so I read what is built.` : `The code is in \`${dir}/\`.`),
  entries: (items: string) => `Entry points: ${items}.`,
  entry: (field: string, path: string) => `\`${field}\` → \`${path}\``,
  mainPy: (path: string) => `\`${path}\` (runs with \`python -m\`)`,
  imports: (items: string, lines: number) => `Imported most (from ${lines} import ${s(lines, "line", "lines")} a search found): ${items}.`,
  imported: (module: string, files: number, at: string) => `\`${module}\` by ${files} ${s(files, "file", "files")} (e.g. \`${at}\`)`,
  noImports: (lines: number) => `No module of the project is imported by another in the ${lines} import ${s(lines, "line", "lines")} a search found.`,
  defined: (items: string, more: number) => `Defined in the files read: ${items}${more ? ` (+${more} more)` : ""}.`,
  def: (name: string, at: string) => `\`${name}\` (\`${at}\`)`,
  readme: (path: string, title: string | undefined, quote: string | undefined) => `The README (\`${path}\`)${title ? ` is titled "${title}"` : ""}${title && quote ? " and" : ""}${quote ? ` says "${quote}"` : ""}${!title && !quote ? " is empty" : ""}.`,
  pkg: (name: string, quote: string | undefined) => `The package is \`${name}\`${quote ? `: "${quote}"` : ""}.`,
  testSetup: (parts: string) => `Test setup: ${parts}.`,
  testCommand: (cmd: string) => `test command \`${cmd}\``,
  noTestScript: "package.json has no `test` script",
  testFiles: (n: number, names: string) => `${n} test ${s(n, "file", "files")} seen (${names})`,
  testDirs: (names: string) => `test ${names.includes(",") || names.includes(" and ") ? "folders" : "folder"} ${names}`,
  noTestFiles: "no test files in the folders listed",
  todos: (items: string) => `Open notes: ${items}.`,
  risks: (items: string) => `Risky patterns: ${items}.`,
  noRisks: (n: number) => `No risky patterns (eval, raw HTML, hard-coded secrets, string-built SQL or shell commands) in the ${n} ${s(n, "file", "files")} read.`,
  colors: (items: string, more: number) => `Colors in use: ${items}${more ? ` (+${more} more)` : ""}.`,
  responsive: (media: boolean, focus: boolean) => `Responsive rules: ${media ? "present" : "none (no @media queries)"}; focus styles: ${focus ? "present" : "none"}.`,
  noAlt: (n: number) => `Accessibility: ${n} ${s(n, "image", "images")} without alt text.`,
  search: (q: string, where: string | undefined, n: number, more: boolean, hits: string) => `Search for "${q}"${where ? ` in \`${where}/\`` : ""}: ${n}${more ? "+" : ""} ${s(n, "match", "matches")} — ${hits}.`,
  searchNone: (q: string, where: string | undefined) => `Search for "${q}"${where ? ` in \`${where}/\`` : ""}: no matches.`,
  searchFailed: (q: string, error: string) => `Search ${q} failed: ${error}.`,
  listFailed: (error: string) => `Could not list the project folder: ${error}.`,
  readFailed: (path: string, error: string) => `Could not read \`${path}\`: ${error} — skipped.`,
  file: (path: string, lines: number, cut: boolean, quote: string | undefined, defines: string) => `\`${path}\` (${cut ? `first ${lines} ${s(lines, "line", "lines")} shown` : `${lines} ${s(lines, "line", "lines")}`})${quote ? `: "${quote}"` : ""}${defines ? `${quote ? "; " : ": "}defines ${defines}` : ""}.`,
  ran: (cmd: string, code: number | null | undefined, timedOut: boolean, tail: string | undefined, ms: number | undefined) =>
    `I ran \`${cmd}\`: ${timedOut ? "it timed out" : `exit code ${code ?? "none"}${code === 0 ? " (passed)" : " (failed)"}`}${ms !== undefined ? ` in ${(ms / 1000).toFixed(1)} s` : ""}${tail ? `; the output ends with ${codeSpan(tail)}` : "; no output"}.`,
  refused: (cmd: string, why: string) => `I asked to run \`${cmd}\`, and it was refused (${why}); it did not run.`,
  noRunTool: (cmd: string) => `The goal asks to run \`${cmd}\`, but my role may not run commands; run it yourself or give the task to a role that may.`,
  noCommand: "The goal asks to run something, but I found no test or build command (no package.json script, Makefile target or pytest setup).",
  answered: (who: string, answer: string) => `I asked for clarification; ${who} answered: "${answer}" — this report focuses on that.`,
  person: "the person",
  unanswered: (error: string) => `I asked for clarification but got no answer${error ? ` (${error})` : ""}; I took the broadest reading of the goal.`,
  message: (from: string, body: string) => `Message from ${from}: "${body}" — noted and taken into account.`,
  noWrites: "I changed no files: this report is the analysis to act on.",
  recAnswer: (answer: string) => `Start with what you asked for — "${answer}" — using the files above as the starting point.`,
  recFix: (at: string, why: string) => `Fix \`${at}\` first (${why}).`,
  recThen: (at: string, why: string) => `Then \`${at}\` (${why}).`,
  recFailTests: (name: string, at: string) => `Add tests for the failure paths of \`${name}\` (\`${at}\`): bad input, missing values, errors.`,
  recUnread: (files: string) => `Review the files not read yet the same way, starting with ${files}.`,
  recBoundaries: "Validate input at every boundary and keep secrets in environment variables.",
  recColors: (n: number, some: string) => `Turn the ${n} ${s(n, "color", "colors")} in use (${some}) into named CSS variables (background, surface, text, accent, danger) and check body text contrast is at least 4.5:1.`,
  recScheme: "Define a color scheme as CSS variables with a role for each color (background, surface, text, accent, danger) and contrast of at least 4.5:1.",
  recBreakpoint: (css: string) => `Add a narrow-screen breakpoint (e.g. \`@media (max-width: 640px)\`) to \`${css}\`.`,
  recFocus: "Give links and buttons a visible `:focus-visible` style.",
  recAlt: (files: string) => `Add \`alt\` text to the images in ${files}.`,
  recFindUi: "Locate the page's markup and stylesheet (none were among the files read) before changing the design.",
  recStartHot: (path: string, n: number) => `Start from \`${path}\`: it holds ${n} of the search hits noted.`,
  recTrace: (name: string, at: string) => `Trace how \`${name}\` (\`${at}\`) is used before changing it.`,
  recCore: (module: string, n: number) => `Treat \`${module}\` as the core: ${n} ${s(n, "file", "files")} import it, so a change there reaches them all — give it tests first.`,
  recRecord: (readme: string) => `Record the structure in \`${readme}\` so the next person does not have to trace it again.`,
  recWriteReadme: "Write the findings down in a README; the project has none among the files read.",
  recTestScript: "Add a `test` script to package.json so the suite runs with one command.",
  recCover: (items: string) => `Cover ${items} with unit tests, including the failure cases.`,
  recCoverMain: "Write unit tests for the main module, including the failure cases.",
  recTestFolder: "Create a test folder next to the code; no tests were seen.",
  recFixFailing: (cmd: string) => `Fix what makes \`${cmd}\` fail, then run it again.`,
  recRunAgain: (cmd: string) => `Run \`${cmd}\` again after every change.`,
  recRunIt: (cmd: string) => `Run \`${cmd}\` when you are ready; it did not run this time.`,
  recSections: (readme: string, missing: string) => `Add the missing sections to \`${readme}\`: ${missing}.`,
  recInStep: (readme: string) => `Keep \`${readme}\` in step with the code: check each command and option it names still exists.`,
  recCreateReadme: "Create a README with what the project is, how to install and run it, and its configuration.",
  recScripts: (names: string) => `Document each script (${names}) with the exact command and what it does.`,
  recExample: (name: string, at: string) => `Add a usage example for \`${name}\` from \`${at}\`.`,
  recChangeIn: (path: string) => `Make the change in \`${path}\` and keep it small.`,
  recLocate: "Locate the entry point first; none of the files read holds the code the goal names.",
  recFailingTest: "Add a test that fails before the change and passes after it.",
  recTodo: (at: string) => `Resolve the open note at \`${at}\` while there.`,
  recLookFirst: (path: string, n: number) => `Look at \`${path}\` first (${n} search ${s(n, "hit", "hits")}).`,
  recFollowUp: "Turn the findings above into a concrete follow-up goal for the team.",
  recUnreadable: (files: string) => `Check why ${files} could not be read.`,
  recSend: "Send a follow-up goal if any of this should be acted on.",
  sections: { install: "Install", usage: "Usage", config: "Configuration", testing: "Testing" },
};

/** Chinese (the same keys). */
const zh: typeof en = {
  list: (items) => (items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join("、")} 和 ${items.at(-1)}`),
  stepListing: "列出",
  stepReading: "阅读",
  stepSearching: "搜索",
  stepRunning: "运行",
  stepReason: (step, read, next, goal) => `第 ${step} 步：已读 ${read} 个文件；接下来${next}——这是与“${goal}”最相关、我还没看过的内容。`,
  askContent: "先请团队负责人帮我缩小目标范围，再汇报。",
  askReason: "我的任务说目标可能不够明确，要先提问；回答决定了汇报的重点。",
  askQuestion: (goal, found, options) => `目标是“${goal}”。${found}。我应该侧重${options}？`,
  askFound: (names) => `我找到了 ${names}`,
  askEmpty: "项目文件夹看起来是空的",
  focus: {
    review: "安全性、正确性还是可维护性",
    ui: "布局、配色还是无障碍",
    research: "现在的工作方式、代码所在位置还是最合适的方案",
    testing: "单元测试、集成测试还是端到端测试",
    docs: "安装说明、API 参考还是变更日志",
    implementation: "修复缺陷、新功能还是重构",
    generic: "结构、代码质量还是文档",
  },
  doneAlready: "我的汇报已交给团队负责人。",
  doneNoted: "收到。我的汇报已交给团队负责人；如需更多内容，请给我新的任务。",
  doneReason: "我的汇报已交给团队负责人。",
  reportContent: (files, matches) => `向团队负责人汇报我的发现：读了 ${files} 个文件，搜索命中 ${matches} 处。`,
  reportReason: (lists, files, searches) => `我列出了 ${lists} 个文件夹，读了 ${files} 个文件，搜索了 ${searches} 次；足以写出有用的汇报。`,
  title: (role, goal) => `**${role} 汇报** —— 目标：“${goal}”`,
  hStructure: "**项目结构**",
  hFindings: "**发现**",
  hLooked: "**查看过的内容**",
  hRecs: "**建议**",
  empty: "项目文件夹是空的。",
  top: (n, more, dirs, files) => `顶层：${n}${more ? "+" : ""} 项——${dirs ? `文件夹 ${dirs}` : "没有文件夹"}；${files ? `文件 ${files}` : "没有文件"}。`,
  folder: (f) => `\`${f.path}/\` 有 ${f.entries}${f.more ? "+" : ""} 项${f.kinds.length ? `：${kindsZh(f.kinds)} 文件` : ""}${f.dirs ? `${f.kinds.length ? "，" : "："}${f.dirs} 个文件夹` : ""}。`,
  packages: (where, names) => `\`${where}/\` 中的包：${names}。`,
  codeIn: (dir, role) => (role === "built" ? `代码在 \`${dir}/\`（构建产物）：项目没有源码文件夹，所以我阅读构建后的代码。` : `代码在 \`${dir}/\`。`),
  entries: (items) => `入口：${items}。`,
  entry: (field, path) => `\`${field}\` → \`${path}\``,
  mainPy: (path) => `\`${path}\`（用 \`python -m\` 运行）`,
  imports: (items, lines) => `被导入最多的模块（来自搜索到的 ${lines} 行 import）：${items}。`,
  imported: (module, files, at) => `\`${module}\` 被 ${files} 个文件导入（例如 \`${at}\`）`,
  noImports: (lines) => `在搜索到的 ${lines} 行 import 中，没有项目内模块被其他模块导入。`,
  defined: (items, more) => `所读文件中定义了：${items}${more ? `（另有 ${more} 个）` : ""}。`,
  def: (name, at) => `\`${name}\`（\`${at}\`）`,
  readme: (path, title, quote) => `README（\`${path}\`）${title ? `标题为“${title}”` : ""}${title && quote ? "，" : ""}${quote ? `写道“${quote}”` : ""}${!title && !quote ? "是空的" : ""}。`,
  pkg: (name, quote) => `包名为 \`${name}\`${quote ? `：“${quote}”` : ""}。`,
  testSetup: (parts) => `测试配置：${parts}。`,
  testCommand: (cmd) => `测试命令 \`${cmd}\``,
  noTestScript: "package.json 没有 `test` 脚本",
  testFiles: (n, names) => `看到 ${n} 个测试文件（${names}）`,
  testDirs: (names) => `测试文件夹 ${names}`,
  noTestFiles: "列出的文件夹中没有测试文件",
  todos: (items) => `待办注释：${items}。`,
  risks: (items) => `有风险的写法：${items}。`,
  noRisks: (n) => `所读的 ${n} 个文件中没有风险写法（eval、原始 HTML、硬编码密钥、拼接的 SQL 或 shell 命令）。`,
  colors: (items, more) => `使用的颜色：${items}${more ? `（另有 ${more} 种）` : ""}。`,
  responsive: (media, focus) => `响应式规则：${media ? "有" : "没有（无 @media 查询）"}；焦点样式：${focus ? "有" : "没有"}。`,
  noAlt: (n) => `无障碍：${n} 张图片没有 alt 文本。`,
  search: (q, where, n, more, hits) => `搜索“${q}”${where ? `（在 \`${where}/\` 中）` : ""}：${n}${more ? "+" : ""} 处命中——${hits}。`,
  searchNone: (q, where) => `搜索“${q}”${where ? `（在 \`${where}/\` 中）` : ""}：没有命中。`,
  searchFailed: (q, error) => `搜索 ${q} 失败：${error}。`,
  listFailed: (error) => `无法列出项目文件夹：${error}。`,
  readFailed: (path, error) => `无法读取 \`${path}\`：${error}——已跳过。`,
  file: (path, lines, cut, quote, defines) => `\`${path}\`（${cut ? `显示了前 ${lines} 行` : `${lines} 行`}）${quote ? `：“${quote}”` : ""}${defines ? `${quote ? "；" : "："}定义了 ${defines}` : ""}。`,
  ran: (cmd, code, timedOut, tail, ms) =>
    `我运行了 \`${cmd}\`：${timedOut ? "超时了" : `退出码 ${code ?? "无"}${code === 0 ? "（通过）" : "（失败）"}`}${ms !== undefined ? `，用时 ${(ms / 1000).toFixed(1)} 秒` : ""}${tail ? `；输出结尾是 ${codeSpan(tail)}` : "；没有输出"}。`,
  refused: (cmd, why) => `我请求运行 \`${cmd}\`，被拒绝了（${why}）；命令没有运行。`,
  noRunTool: (cmd) => `目标要求运行 \`${cmd}\`，但我的角色不能运行命令；请自己运行，或交给有权限的角色。`,
  noCommand: "目标要求运行命令，但我没有找到测试或构建命令（没有 package.json 脚本、Makefile 目标或 pytest 配置）。",
  answered: (who, answer) => `我请求澄清；${who}回答：“${answer}”——本汇报以此为重点。`,
  person: "你",
  unanswered: (error) => `我请求澄清但没有得到回答${error ? `（${error}）` : ""}；我按最宽泛的理解处理目标。`,
  message: (from, body) => `来自 ${from} 的消息：“${body}”——已记录并考虑在内。`,
  noWrites: "我没有修改任何文件：这份汇报是可据以行动的分析。",
  recAnswer: (answer) => `从你要求的内容开始——“${answer}”——以上面的文件为起点。`,
  recFix: (at, why) => `先修复 \`${at}\`（${why}）。`,
  recThen: (at, why) => `然后是 \`${at}\`（${why}）。`,
  recFailTests: (name, at) => `为 \`${name}\`（\`${at}\`）的失败路径补充测试：错误输入、缺失值、异常。`,
  recUnread: (files) => `用同样的方式审查还没读过的文件，从 ${files} 开始。`,
  recBoundaries: "在每个边界校验输入，把密钥放在环境变量里。",
  recColors: (n, some) => `把正在使用的 ${n} 种颜色（${some}）整理成具名 CSS 变量（背景、表面、文字、强调、危险），并确认正文对比度至少 4.5:1。`,
  recScheme: "用 CSS 变量定义配色方案，每种颜色有明确用途（背景、表面、文字、强调、危险），对比度至少 4.5:1。",
  recBreakpoint: (css) => `为 \`${css}\` 增加窄屏断点（例如 \`@media (max-width: 640px)\`）。`,
  recFocus: "为链接和按钮加上可见的 `:focus-visible` 样式。",
  recAlt: (files) => `为 ${files} 中的图片添加 \`alt\` 文本。`,
  recFindUi: "修改设计前，先找到页面的标记和样式表（所读文件中没有）。",
  recStartHot: (path, n) => `从 \`${path}\` 开始：记录的搜索命中中有 ${n} 处在这里。`,
  recTrace: (name, at) => `修改 \`${name}\`（\`${at}\`）之前，先追踪它在哪里被使用。`,
  recCore: (module, n) => `把 \`${module}\` 视为核心：${n} 个文件导入它，改动会影响它们全部——先为它写测试。`,
  recRecord: (readme) => `把项目结构记录到 \`${readme}\`，后来的人就不必再追踪一遍。`,
  recWriteReadme: "把这些发现写进 README；所读文件中没有 README。",
  recTestScript: "在 package.json 中添加 `test` 脚本，一条命令就能运行测试。",
  recCover: (items) => `为 ${items} 编写单元测试，包括失败的情况。`,
  recCoverMain: "为主模块编写单元测试，包括失败的情况。",
  recTestFolder: "在代码旁边建立测试文件夹；没有看到任何测试。",
  recFixFailing: (cmd) => `修复导致 \`${cmd}\` 失败的问题，然后再运行一次。`,
  recRunAgain: (cmd) => `每次改动后都再运行一次 \`${cmd}\`。`,
  recRunIt: (cmd) => `准备好后请运行 \`${cmd}\`；这次没有运行。`,
  recSections: (readme, missing) => `为 \`${readme}\` 补上缺少的章节：${missing}。`,
  recInStep: (readme) => `让 \`${readme}\` 与代码保持一致：检查其中提到的每条命令和选项是否仍然存在。`,
  recCreateReadme: "创建 README，说明项目是什么、如何安装运行以及如何配置。",
  recScripts: (names) => `为每个脚本（${names}）写明确切命令及其作用。`,
  recExample: (name, at) => `为 \`${name}\`（\`${at}\`）添加用法示例。`,
  recChangeIn: (path) => `在 \`${path}\` 中做改动，并保持改动小。`,
  recLocate: "先找到入口；所读文件中没有目标提到的代码。",
  recFailingTest: "添加一个改动前失败、改动后通过的测试。",
  recTodo: (at) => `顺便处理 \`${at}\` 处的待办注释。`,
  recLookFirst: (path, n) => `先看 \`${path}\`（${n} 处搜索命中）。`,
  recFollowUp: "把以上发现变成给团队的具体后续目标。",
  recUnreadable: (files) => `检查 ${files} 为什么无法读取。`,
  recSend: "如果需要据此行动，请发送后续目标。",
  sections: { install: "安装", usage: "使用", config: "配置", testing: "测试" },
};

/** A risk's reason in Chinese (./files.ts names them in English). */
const RISK_ZH: Record<string, string> = {
  "evaluates code from a string": "把字符串当代码执行",
  "writes raw HTML (XSS risk)": "写入原始 HTML（XSS 风险）",
  "hard-coded secret": "硬编码的密钥",
  "weak hash algorithm": "弱哈希算法",
  "SQL built by string concatenation (injection risk)": "拼接字符串构造 SQL（注入风险）",
  "shell command built from variables (injection risk)": "用变量拼接 shell 命令（注入风险）",
  "password compared directly (plain text or timing-unsafe)": "直接比较密码（明文或非恒定时间）",
  "Math.random is not a secure random source": "Math.random 不是安全的随机源",
  "logs a secret": "日志中输出了密钥",
  "swallows errors silently": "静默吞掉错误",
};

/** A risk's reason in `lang`. */
export function riskWhy(lang: Lang, why: string): string {
  return lang === "zh" ? (RISK_ZH[why] ?? why) : why;
}

/** The sub-agent's words in `lang`. */
export function agentText(lang: Lang): typeof en {
  return lang === "zh" ? zh : en;
}

/** The sub-agent's words, as one language's table. */
export type AgentText = typeof en;
