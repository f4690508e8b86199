import { describe, expect, it } from "vitest";
import { isFileReference, isProcessHeading, readsTrivia, triviaShape } from "./trivia";

/** Each rule: sentences it drops (English and Chinese, in several wordings) and look-alikes it keeps. */
const CASES: Array<{ shape: string; dropped: string[]; kept: string[] }> = [
  {
    shape: "a tally of a tool's results",
    dropped: [
      'Search for "short": 10+ matches — `README.md:39`, `lib/parse.js:12`.',
      'Searched the project for "token": 3 hits in `src/auth.ts`.',
      "`package.json` (44 lines): package `picomatch` 4.0.7.",
      "`lib/scan.js` (58 lines, truncated): starts with \"const utils = require('./utils');\".",
      "Project layout: 6 entries at the top level; folders `lib/`.",
      "`lib/scan.js` (first 175 lines shown).",
      "`lib/` holds 5 entries: 5 .js files.",
      "Top level: 6 entries — folders `lib/`; files `README.md`.",
      "`lib/` 有 5 项：5 个 .js 文件。",
      "`lib/scan.js`（显示了前 175 行）。",
      "Looking for `eval` found 2 results.",
      "搜索“short”：10 处匹配。",
      "共 12 个文件，已全部列出。",
    ],
    kept: ["The search endpoint returns at most 50 results per page.", "Functions longer than 100 lines are hard to review in this codebase.", "`picomatch` returns an empty list when there is no match."],
  },
  {
    shape: "tool narration",
    dropped: ["Read src/auth.ts and src/store.ts.", "Listed 12 files under `lib/`.", "I searched the codebase for the login handler.", "Looked at the README first.", "Reading `index.js` to see the entry point.", "读取了 `src/auth.ts` 和 `src/store.ts`。", "我查看了 README 和 package.json。"],
    kept: ["Read replicas lag behind the primary by up to five seconds.", "Checked exceptions are not used anywhere in the Java client."],
  },
  {
    shape: "the speaker narrating their own work",
    dropped: [
      "I changed no files: this report is the analysis to act on.",
      "I did not modify anything in the project folder.",
      "I asked for clarification; the person answered: \"colors\" — this report focuses on that.",
      "I'll summarize their findings when the reports are in.",
      "我没有修改任何文件，本报告就是可执行的分析。",
    ],
    kept: ["I prefer concise answers with code examples.", "This message queue drops events older than one day.", "We use Postgres for the ledger tables."],
  },
  {
    shape: "the conversation's own traffic and progress",
    dropped: ['Message from Team Leader: "focus on colors" — noted and taken into account.', "The team is working: 1 of 2 reports in.", "2 reports came back from the team.", "来自 Researcher_1 的消息已经处理。", "团队共提交 2 份汇报。"],
    kept: ["Error messages from the API are localized into English and Chinese."],
  },
  {
    shape: "a repetition",
    dropped: ["Same findings as above.", "The same results as the first review.", "See above.", "As noted above, nothing else changed.", "Nothing new to add here.", "发现与上文相同。", "同上。"],
    kept: ["The cache keeps the same key format as the session store uses."],
  },
  {
    shape: "a step or budget note",
    dropped: ["Step 3: two files read so far; next, the tests.", "Stopped at step 12 of 12, the step budget is spent.", "The token budget ran out before the tests were read.", "第 3 步：已读两个文件。", "步数上限已到，预算用完。"],
    kept: ["The marketing budget for the landing page is approved by finance.", "Session tokens are random strings from `Math.random()`, which is not secure."],
  },
  {
    shape: "a fragment",
    dropped: ['The README (`README.md`) title "Why picomatch?", says "See the [library comparison](#library-comparisons….', '`lib/picomatch.js` starts with "Creates a matcher function from one or…"'],
    kept: ["The README says picomatch has no dependencies and supports every Bash glob feature."],
  },
  {
    shape: "a bare reference",
    dropped: ["`readme.md:39`", "See `README.md:39`.", "Defined in the files read: `picomatch` (`index.js:3`), `scan` (`lib/scan.js:12`).", "Inside `lib/`: `lib/picomatch.js`, `lib/parse.js`.", "`src/auth.ts:2`", "The package is `picomatch`.", "The code is in `lib/`."],
    kept: ["Test setup: test command `npm run lint && npm run mocha`; no test files in the package.", "支付回调测试尚未覆盖并发场景。", "`PaymentGateway.charge()` retries three times before failing.", "The cache is in memory only.", "The cache holds 500 entries at most."],
  },
];

describe("readsTrivia", () => {
  for (const c of CASES) {
    it(`drops ${c.shape} and keeps its look-alikes`, () => {
      for (const s of c.dropped) expect([s, triviaShape(s)]).toEqual([s, c.shape]);
      for (const s of c.kept) expect([s, readsTrivia(s)]).toEqual([s, false]);
    });
  }

  it("reads a list item's bullet and emphasis as the sentence they wrap", () => {
    expect(readsTrivia("- **Same findings as above.**")).toBe(true);
    expect(readsTrivia("1. Search for `eval`: no matches.")).toBe(true);
    expect(readsTrivia("- **The order API is deprecated in favour of `/v2/orders`.**")).toBe(false);
  });
});

describe("isFileReference", () => {
  it("is true for paths, file names and places in files only", () => {
    for (const r of ["readme.md:39", "README.md", "`lib/`", "src/a.ts:3-9", "lib/parse.js", "(index.js:3)"]) expect([r, isFileReference(r)]).toEqual([r, true]);
    for (const r of ["OrderService", "PaymentGateway.charge()", "POST /v1/orders", "README", "npm run lint"]) expect([r, isFileReference(r)]).toEqual([r, false]);
  });
});

describe("isProcessHeading", () => {
  it("knows headings of the work done from headings of findings", () => {
    for (const h of ["What I looked at", "Files read", "Steps taken", "Tools used", "我查看了", "已读文件"]) expect([h, isProcessHeading(h)]).toEqual([h, true]);
    for (const h of ["Findings", "Key findings", "Open questions", "主要发现"]) expect([h, isProcessHeading(h)]).toEqual([h, false]);
  });
});
