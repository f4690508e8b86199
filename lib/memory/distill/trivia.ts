/**
 * What memory never keeps (seed 003 §5.2: conclusions, preferences and decisions, never the flow
 * of the conversation), told by the shape of a sentence, not by one team's wording:
 *
 * - a tally of a tool's results (`Search for "x": 10 matches`, `(44 lines, truncated)`, `6 entries at the
 *   top level`, `搜索“x”：10 处匹配`);
 * - tool narration (`Read src/a.ts`, `Listed 12 files`, `Searching for …`, `读取了 …`);
 * - the speaker narrating their own work or document (`I changed no files: this report is …`,
 *   `I asked for clarification …`, `我没有修改任何文件`, `本报告…`), and the conversation's own
 *   traffic and progress (`Message from …`, `The team is working`, `2 reports came back`);
 * - repetitions (`Same findings as above.`, `See above`, `同上`, `与上文相同`);
 * - step and budget notes (`Step 3 of 12`, `token budget`, `第 3 步`, `预算用完`);
 * - fragments: a quotation cut off (`says "See the [library…`);
 * - bare references: once code spans, paths, `path:line`s, numbers and function words are taken
 *   out, fewer than two words remain (`The package is \`x\`.`, (`README.md:39`, `Defined in the files read: \`main\` (\`index.js:3\`)`).
 *
 * Pure.
 */

/** File extensions that make a name a file name (a reference, not an identifier). */
const EXT = "ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|rb|php|cs|cpp|c|h|json|ya?ml|toml|md|mdx|txt|sql|sh|css|scss|html?|vue|svelte|lock|ini|cfg|conf|xml|csv|env";

/** A path, a file name or a place in a file (`lib/`, `README.md`, `src/a.ts:12`, `a.ts:3-9`), nothing else. */
const FILE_REF = new RegExp(`^(?:\\.{0,2}/)?(?:[\\w@.+-]+/)*(?:[\\w@.+-]+\\.(?:${EXT})|[\\w@.+-]+/)(?::\\d+(?:[-:]\\d+)?)?$|^(?:[\\w@.+-]+/)*[\\w@.+-]+:\\d+(?:[-:]\\d+)?$|^(?:[\\w@.+-]+/)+[\\w@.+-]+$`, "i");

/** True for a bare reference to a file or a place in one: `readme.md:39`, `lib/`, `` `src/a.ts` ``. */
export function isFileReference(text: string): boolean {
  const t = text.trim().replace(/^[`"'“‘(]+|[`"'”’),.;:。，；：]+$/g, "");
  return t.length > 0 && !/\s/.test(t) && FILE_REF.test(t);
}

/** Words that carry no claim of their own (`The package is \`x\`.` says nothing past its reference). */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(["a", "an", "the", "is", "are", "was", "were", "be", "in", "on", "at", "of", "to", "for", "and", "or", "it", "its", "this", "that", "these", "those", "here", "there", "as", "by", "with"]);

/** How many words a text holds once code spans, paths, references and numbers are taken out (two Chinese characters count as one). */
function substanceWords(text: string): number {
  const plain = text
    .replace(/`[^`]*`/g, " ")
    .split(/\s+/)
    .filter((w) => !isFileReference(w) && !/^[#(]?[\d.,:+%-]+[)]?$/.test(w))
    .join(" ");
  const english = (plain.match(/[A-Za-z][A-Za-z'-]+/g) ?? []).filter((w) => !FUNCTION_WORDS.has(w.toLowerCase())).length;
  const chinese = (plain.match(/[\u4e00-\u9fff]{2,}/g) ?? []).reduce((n, run) => n + Math.floor(run.length / 2), 0);
  return english + chinese;
}

/** A label that opens a statement (`Test setup: …`): at most six words before a colon. */
const LABEL = /^([^:：`]{1,60})[:：]\s+(?=\S)/;

/** True when what the statement says, past its label, is only references (see the module comment). */
function isBareReference(text: string): boolean {
  const label = LABEL.exec(text);
  const body = label && label[1]!.trim().split(/\s+/).length <= 6 ? text.slice(label[0].length) : text;
  return substanceWords(body) < 2;
}

/** Verbs of using the workspace tools, as a report narrates them. */
const TOOL_VERB = "(?:read|re-read|listed|search(?:ed)?|grepped|scanned|opened|browsed|inspected|viewed|explored|checked|looked\\s+(?:at|through|into|over)|went\\s+(?:through|over))";
/** What those verbs narrate using: a count, the files, a path, a quoted query. */
const TOOL_OBJECT = `(?:\\d|(?:the|all|every|each|some|these|those)\\b|[\`"“'‘]|(?:files?|folders?|director(?:y|ies)|project|codebase|repo(?:sitory)?)\\b|(?:[\\w@.+-]+/)+|[\\w@.+-]+\\.(?:${EXT})\\b)`;

/** A sentence that opens with a tool verb and what it used (`Read src/a.ts`, `Listed 12 files`, `I searched the project`). */
const TOOL_NARRATION = new RegExp(`^(?:(?:I|we)\\s+(?:(?:have|had|then|also|first)\\s+)*)?${TOOL_VERB}\\s+(?:for\\s+)?${TOOL_OBJECT}`, "i");

const SEARCH_VERB = /\b(?:searched|searching|search(?:es)?\s+for|grep(?:ped)?|look(?:ed|ing)\s+for|scanned|found)\b|搜索|检索|查找/i;

/** Rules in the order of the module comment; each names the shape it drops. */
const RULES: ReadonlyArray<{ shape: string; test: (t: string) => boolean }> = [
  {
    shape: "a tally of a tool's results",
    test: (t) =>
      /\b\d[\d,]*\+?\s+match(?:es)?\b|[:：]\s*no\s+match(?:es)?\b|\(\s*\d[\d,]*\+?\s+(?:lines?|entries|items|files?|folders?|bytes|chars|characters)\b[^()]*\)|\(\s*first\s+\d[\d,]*\s+lines?\s+shown\s*\)|\b\d[\d,]*\+?\s+entries\s*[:—–]|\bholds\s+\d[\d,]*\+?\s+entries\s*\.?$|有\s*\d+\+?\s*项|[:：]\s*\d+\+?\s*项——|[(（]\s*显示了前\s*\d+\s*行\s*[)）]|\b\d[\d,]*\+?\s+entries\s+(?:at|in)\s+the\s+top\s+level\b|\d+\s*(?:处|个|条)?\s*(?:匹配|命中)|没有匹配|无匹配|共\s*\d+\s*(?:个|条)(?:条目|文件|结果)/i.test(t) ||
      (SEARCH_VERB.test(t) && /\b\d[\d,]*\+?\s+(?:hits?|results?|occurrences?|files?)\b|\bno\s+(?:matches|hits|results|occurrences)\b|\d+\s*(?:个|条)\s*结果/i.test(t)),
  },
  {
    shape: "tool narration",
    test: (t) =>
      TOOL_NARRATION.test(t) ||
      /^(?:searching|reading|listing|scanning|opening|browsing|looking\s+(?:at|for|through|into))\b/i.test(t) ||
      /^search\b[^.]{0,80}\bfailed\b|^(?:could\s+not|couldn't|cannot|can't)\s+(?:read|list|open|search)\b|^reporting\s+(?:my|the|our)\s+findings\b|^asking\s+the\s+/i.test(t) ||
      /^(?:我们?)?(?:已经?|先|又)?(?:读取|阅读|查看|浏览|列出|搜索|检索|扫描|打开)(?:了|过)/.test(t),
  },
  {
    shape: "the speaker narrating their own work",
    test: (t) =>
      /^(?:I|we)\s+(?:(?:have|had|did|do|will|would|also|then|now|just|only|first|still)\s+)*(?:not\s+|never\s+)?(?:chang(?:e|ed)|edit(?:ed)?|modif(?:y|ied)|touch(?:ed)?|wr(?:ite|ote)|made|make|read|list(?:ed)?|search(?:ed)?|look(?:ed)?|check(?:ed)?|open(?:ed)?|ask(?:ed)?|t(?:ake|ook)|focus(?:ed)?|start(?:ed)?|finish(?:ed)?|stop(?:ped)?|r[au]n|review(?:ed)?|tr(?:y|ied)|could(?:\s+not|n't)?|couldn't|didn't|haven't|hadn't|can(?:not|'t)|am|was|were)\b/i.test(t) ||
      /^(?:I|we)(?:'ll|'ve|'m|'d)\b/i.test(t) ||
      /\b(?:this|my|our|the\s+above)\s+(?:report|analysis|summary|review|answer|reply|message|task|turn)\s+(?:is|are|was|focuses|covers|says|lists|holds|contains|shows|will|only|does)\b|\b(?:in|from|see)\s+(?:this|my|the\s+above)\s+(?:report|analysis|summary|answer|reply)\b/i.test(t) ||
      /^我们?(?:没有|没|未|已经?|先|会|将|只|也)?(?:修改|改动|更改|改了|读取|阅读|查看|搜索|列出|询问|问了|检查|浏览|打开|汇报|总结|尝试)/.test(t) ||
      /本(?:报告|汇报|次分析|次总结)|这份(?:报告|汇报|分析)|以上(?:分析|内容)/.test(t),
  },
  {
    shape: "the conversation's own traffic and progress",
    test: (t) =>
      /^messages?\s+from\s+\S|\btaken\s+into\s+account\b|\bthe\s+team\s+(?:is|was|has\s+been)\s+(?:working|assembled|busy)\b|^team\s+assembled\b|\breports?\s+(?:came|come|are|is)\s+(?:back|in)\b|\b\d+\s+of\s+\d+\s+reports?\b|\bwaiting\s+for\s+(?:the\s+)?(?:reports?|agents?|team|answers?)\b/i.test(t) ||
      /来自\s*\S+\s*的消息|团队(?:正在|已组建|共提交)|\d+\s*份汇报|等待\S{0,10}汇报/.test(t),
  },
  {
    shape: "a repetition",
    test: (t) =>
      /^(?:the\s+)?same\s+(?:findings?|results?|points?|conclusions?|as\s+(?:above|before|earlier))\b|^(?:see|refer\s+to)\s+(?:above|earlier|the\s+(?:report|findings?|summary)\s+above)\b|^as\s+(?:noted|mentioned|said|reported|stated)\s+(?:above|before|earlier)\b|^(?:nothing\s+(?:new|else)|no\s+new\s+(?:findings?|information|results?))\b|^(?:ditto|likewise)\b/i.test(t) ||
      /同上|与上文相同|与上面相同|与前面相同|同前|见上文|参见上文|没有新(?:的)?(?:发现|内容)/.test(t),
  },
  {
    shape: "a step or budget note",
    test: (t) =>
      /^step\s+\d+\b|\bsteps?\s+\d+\s+of\s+\d+\b|\b\d+\s+steps?\s+(?:left|used|remaining|taken)\b|\b(?:step|token|time|call|tool)\s+budget\b|\bbudget\s+(?:left|used|remaining|exhausted|ran\s+out)\b|\bout\s+of\s+(?:steps|budget)\b|\btokens?\s+(?:left|used|remaining|spent)\b|\bmax(?:imum)?\s+(?:number\s+of\s+)?steps\b/i.test(t) ||
      /第\s*\d+\s*步|剩余(?:步数|预算)|步数(?:上限|用完|已用)|预算(?:已)?用(?:完|尽)|(?:令牌|token)\s*预算/i.test(t),
  },
  { shape: "a fragment", test: (t) => /…\s*["”'’」)]|\.\.\.\s*["”'’」]|…[.。]?$/.test(t) },
  { shape: "a bare reference", test: (t) => isBareReference(t) },
];

/** A statement with its list bullet and Markdown emphasis taken off, as the rules read it. */
function bare(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^(?:(?:[-*•]|\d+[.)])\s+)?(?:\*\*|__)?\s*/, "")
    .replace(/(?:\*\*|__)\s*$/, "")
    .trim();
}

/**
 * The shape of trivia `text` has (see the module comment), or null when it may be a conclusion.
 * Exposed for tests and for {@link readsTrivia}.
 */
export function triviaShape(text: string): string | null {
  const t = bare(text);
  return RULES.find((r) => r.test(t))?.shape ?? null;
}

/** True when `text` is trivia of the conversation's flow, never a memory (see the module comment). */
export function readsTrivia(text: string): boolean {
  return triviaShape(text) !== null;
}

/** A heading of the work done, not of findings (`What I looked at`, `Files read`, `Steps taken`, `我查看了`). */
export function isProcessHeading(text: string): boolean {
  return /^(?:what\s+(?:I|we)\s+(?:looked\s+at|read|checked|did|searched|listed|opened)|(?:files?|folders?|sources?)\s+(?:I\s+)?(?:read|listed|opened|looked\s+at|checked|consulted|seen)|(?:steps?|actions?)(?:\s+taken)?|tools?\s+(?:used|calls?)|searches(?:\s+run)?|how\s+I\s+worked|work\s+log|process)\s*$|^我们?(?:查看|阅读|检查|搜索)了|^(?:已读|查看过?的)文件|^(?:步骤|过程|操作记录|工作记录)$/i.test(text.trim());
}
