/**
 * Small text rules of the distiller: lines and list items, sentences (English and Chinese), open
 * markers, preference phrasing, a statement's subject. Pure.
 */
import { isFileReference } from "./trivia";
import { MAX_STATEMENT_CHARS, MAX_SUBJECT_CHARS } from "./types";

/** A list item's text (`- x`, `* x`, `• x`, `1. x`, `1) x`), or null for any other line. */
export function listItem(line: string): string | null {
  const m = /^\s*(?:[-*•]|\d+[.)])\s+(.*)$/.exec(line);
  return m ? m[1]!.trim() : null;
}

/** A Markdown heading or a line that introduces a list (`Open questions:`), or null. */
export function headingText(line: string): string | null {
  const t = line.trim();
  const h = /^#{1,6}\s+(.*)$/.exec(t);
  if (h) return h[1]!.replace(/[:：]\s*$/, "").trim();
  const b = /^(?:\*\*|__)(.+?)(?:\*\*|__)\s*[:：]?\s*$/.exec(t);
  if (b) return b[1]!.replace(/[:：]\s*$/, "").trim();
  if (listItem(t) === null && /[:：]$/.test(t) && t.length <= 80) return t.replace(/[:：]$/, "").trim();
  return null;
}

/** One line: whitespace collapsed, Markdown emphasis and a trailing colon dropped, cut to the statement limit. */
export function cleanStatement(text: string): string {
  const flat = text
    .replace(/\s+/g, " ")
    .replace(/^(?:\*\*|__)\s*|\s*(?:\*\*|__)$/g, "")
    .trim();
  if (flat.length <= MAX_STATEMENT_CHARS) return flat;
  let cut = flat.slice(0, MAX_STATEMENT_CHARS - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** The same statement written with other spacing, case or final punctuation: one key. */
export function statementKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_"'“”‘’]/g, "")
    .replace(/[\s.。!！?？;；,，:：]+/g, " ")
    .trim();
}

/** Sentences of a paragraph, English (`. `, `! `, `? ` before a capital, a digit or a Chinese character) and Chinese (`。！？`) endings. */
export function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, " ")
    .split(/(?<=[.!?])\s+(?=[A-Z0-9`"“(\u4e00-\u9fff])|(?<=[。！？])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A line marked open (`OPEN:`, `Open question:`, `待解决：`…): its text, or null. */
export function openMarked(line: string): string | null {
  const m = /^\s*(?:(?:[-*•]|\d+[.)])\s+)?(?:\*\*|__)?\s*(?:OPEN(?:\s+(?:QUESTION|ISSUE))?|待解决|未解决|开放问题|待确认|遗留问题)\s*(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i.exec(line);
  return m ? m[1]!.trim() || null : null;
}

/** A heading that introduces open questions or issues (`Open questions`, `Not yet covered`, `未解决问题`…). */
export function isOpenHeading(text: string): boolean {
  return /\bopen\s+(?:questions?|issues?|points?|items?)\b|\bunresolved\b|\bunanswered\b|\bnot\s+(?:yet\s+)?(?:covered|answered|resolved|done)\b|\bstill\s+open\b|未解决|待解决|开放问题|待确认|遗留问题|尚未解决/i.test(text);
}

/** A heading of advice, not findings (`Recommendations`, `Next steps`, `建议`, `后续步骤`). */
export function isAdviceHeading(text: string): boolean {
  return /^(?:recommendations?|next\s+steps?|suggestions?|建议|后续)/i.test(text.trim());
}

/** A finding phrased as not done yet (`… do not cover concurrency yet`, `TODO`, `尚未…`): an open issue. */
export function readsOpen(text: string): boolean {
  return /\b(?:not|no|never)\b[^.。]{0,80}\byet\b|\bTODO\b|\bFIXME\b|\bstill\s+(?:missing|open|unknown|unclear)\b|尚未|还没有|仍未|仍然没有|待(?:补充|完成|处理|确认)/i.test(text);
}

/** A person stating a preference about how they want things done (English or Chinese). */
export function readsPreference(text: string): boolean {
  return /\b(?:I|we)\s+(?:(?:really|always|usually)\s+)?(?:prefer|like|want|would\s+(?:like|rather)|need)\b|\bplease\s+(?:always|never|use|keep|answer|reply|write|respond|include|avoid)\b|\b(?:always|never)\s+(?:use|answer|reply|write|respond|include|add)\b|\b(?:user|person|they)\s+(?:prefers|wants|likes|would\s+like)\b|\bpreference\b|\b(?:remember|make\s+sure)\s+to\b|我们?(?:更|比较)?(?:希望|喜欢|偏好|习惯|想要)|请(?:始终|总是|一直|不要|务必|尽量)|以后(?:都|请)|用户(?:希望|偏好|喜欢|想要)|偏好/i.test(
    text,
  );
}

/** A statement about code or structure (paths, file names, identifiers, APIs, modules): a general technical fact. */
export function readsTechnical(text: string): boolean {
  return /`[^`]+`|\b[\w.-]+\/[\w./-]+|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|kt|rb|php|cs|cpp|c|h|json|ya?ml|toml|md|sql|sh|css|html)\b|\b[A-Za-z_]\w*\(\)|\b[a-z]+[A-Z]\w*\b|\b[a-z]+_[a-z_]+\b|\b(?:API|APIs|endpoint|module|function|class|interface|schema|library|package|dependency|config(?:uration)?|framework|database|table|column|field|type)\b|接口|模块|函数|类|配置|依赖|字段|数据库|框架/.test(
    text,
  );
}

const SUBJECT_VERB =
  /\s(?:is|are|was|were|has|have|had|should|must|does|do|did|uses|use|needs|need|cannot|can't|can|will|won't|lacks|returns|calls|covers|wants|prefers|likes|lives|holds|keeps|stores|runs|says|contains|exports|defines|reads|writes|handles|sends|compiles|converts|matches|depends|requires|supports|breaks|fails|works|takes|gives|makes|goes|stays|retries|throws|logs|expects|allows|checks|describes|documents|lists|explains|shows|mentions)\s/i;

/** What a decision opens with (`We decided to …`, `我们决定…`): the decision is about what follows. */
const DECIDED = /^(?:(?:we|I)(?:'ve|\s+(?:have|had))?(?:\s+(?:already|finally|all|just))*\s+(?:decided|agreed|concluded|chose|settled)(?:\s+(?:to|that|on|upon))?\s+|(?:我们?|大家)(?:已经?|最终|一致)?(?:决定|约定|商定|确定|同意)了?)/i;

/** Labels too general to name anything (`Note: …`). */
const GENERIC_LABEL = /^(?:notes?|findings?|conclusions?|important|update|fyi|summary|result|answer|注意|发现|结论|总结|说明)$/i;

/** A phrase as a title: parentheses, file references (while other words remain), code marks and a leading article dropped, trailing punctuation trimmed. */
function titlePhrase(text: string): string {
  const words = text.trim().replace(/\s*\([^()]+\)/g, "").split(/\s+/);
  const named = words.filter((w) => !isFileReference(w));
  return (named.length ? named : words)
    .join(" ")
    .replace(/`/g, "")
    .replace(/^(?:the|a|an)\s+/i, "")
    .replace(/[\s.。,，:：;；!?！？"“”'’]+$/g, "")
    .trim();
}

/** True when a title names something: a word that is not a bare file reference. */
function meaningful(title: string): boolean {
  return /[A-Za-z]{2}|[\u4e00-\u9fff]/.test(title) && !isFileReference(title);
}

/**
 * The subject of a statement, its title on the Memory page, so that statements about the same
 * thing share it (the service merges a duplicate or a contradiction by subject): a specific label
 * before a colon (`Test setup: …`), else the first code span that is an identifier, not a file
 * reference (`` `OrderService` ``), else — past a decision's opening (`We decided to`) — the words before its verb (English) or before
 * `是`/`，` (Chinese), else its first words up to a preposition. In the statement's own case,
 * at most {@link MAX_SUBJECT_CHARS} characters; never a bare file reference like `README.md:39`.
 */
export function subjectOf(statement: string): string {
  const text = statement
    .replace(/^(?:CONCLUSION|结论|OPEN(?:\s+(?:QUESTION|ISSUE))?)\s*[:：]\s*/i, "")
    .replace(DECIDED, "")
    .trim();
  const label = /^([^:：`]{2,60}?)\s*[:：]\s+\S/.exec(text)?.[1];
  const code = [...text.matchAll(/`([^`\n]{1,80})`/g)].map((m) => m[1]!.trim()).find((c) => meaningful(c));
  let subject = "";
  if (label && label.split(/\s+/).length <= 6 && !GENERIC_LABEL.test(label.trim()) && meaningful(titlePhrase(label))) subject = titlePhrase(label);
  else if (code) subject = code;
  else if (/[\u4e00-\u9fff]/.test(text.slice(0, 16))) {
    const end = text.search(/是|不|已|应|需要|没有|尚未|还|会|要|的|在|把|将|用|，|,|。|：|:/);
    subject = titlePhrase(text.slice(0, end > 1 ? Math.min(end, 16) : Math.min(text.length, 12)));
  } else {
    const verb = SUBJECT_VERB.exec(` ${text} `);
    const head = verb && verb.index > 0 ? ` ${text} `.slice(0, verb.index) : text.split(/\s+(?:in|of|for|from|at|on|with|by|to|into|under|after|before)\s+/i)[0]!;
    subject = titlePhrase(head).split(/\s+/).slice(0, 8).join(" ");
  }
  if (!meaningful(subject)) subject = titlePhrase(text.split(/\s+/).filter((w) => !isFileReference(w)).slice(0, 6).join(" "));
  return subject.slice(0, MAX_SUBJECT_CHARS);
}
