/**
 * Reads a conversation's conclusions from the Team Leader's history (messages.json), never its
 * message flow (seed 003 §5): the leader's final summary of each request, the sub-agents' reports
 * (`report_to_leader` summaries, one finding per list item or sentence), `CONCLUSION:` / `结论：`
 * lines, what a person said they prefer, the conclusions and decisions a person stated
 * (`Findings to keep: …`, `We decided …`; ./stated.ts), and open questions (asked with
 * `ask_master` and never answered, or listed as open). Pure.
 *
 * The team's text never gives trivia of the conversation's flow (./trivia.ts: tallies of a tool's
 * results, tool narration, self-references, repetitions, step notes, bare references), nor the
 * items under a heading of the work done (`What I looked at`).
 *
 * Conversation-local text is skipped: a statement naming one of this conversation's agents
 * (`Researcher_1`, the team line a leader promotes) says nothing that outlives the conversation.
 */
import { extractPromotions, isInterAgentText } from "@/lib/context/markers";
import { parseAgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { statedConclusions } from "./stated";
import { cleanStatement, headingText, isAdviceHeading, isOpenHeading, listItem, openMarked, readsPreference, sentences, statementKey } from "./text";
import { isProcessHeading, readsTrivia } from "./trivia";
import type { Conclusion, ConclusionSource } from "./types";

/** Options of {@link collectConclusions}. */
export interface CollectOptions {
  /** Index of the first message not distilled yet: only messages from here on are read. */
  from?: number;
  /** The conversation's agents, for a report's role and the names that make text conversation-local. */
  agents?: ReadonlyArray<{ agent_id: number; role_id: string; display_name: string }>;
  /**
   * The question ids still waiting for an answer (agents' `pending_tool_calls`). A person answers
   * in the agent's history, not the leader's, so when this is given a question is open exactly
   * when it is listed here; without it, when the leader never called `answer_question` for it.
   */
  pendingQuestions?: ReadonlySet<string>;
}

/** At most this many findings are taken from one report or summary. */
const FINDINGS_PER_TEXT = 8;
/** Findings shorter than this are labels, not statements. */
const MIN_STATEMENT_CHARS = 12;

interface Block {
  source: ConclusionSource;
  by: string;
  role_id?: string;
  status?: string;
}

/** Collects conclusions in reading order; a repeated one keeps its first place and gains the message id. */
class Collector {
  readonly out: Conclusion[] = [];
  readonly #byKey = new Map<string, Conclusion>();
  constructor(private readonly localNames: readonly string[]) {}

  add(block: Block, text: string, messageId: string | undefined, open = false): void {
    // A person's own words are theirs to keep; only the team's text is sifted for trivia.
    if (block.by !== "person" && readsTrivia(text)) return;
    const statement = cleanStatement(text);
    if (statement.length < MIN_STATEMENT_CHARS && !/[\u4e00-\u9fff]{4}/.test(statement)) return;
    if (this.localNames.some((n) => statement.includes(n))) return;
    const key = statementKey(statement);
    const seen = this.#byKey.get(key);
    if (seen) {
      if (messageId && !seen.message_ids.includes(messageId)) seen.message_ids.push(messageId);
      if (open) seen.open = true;
      return;
    }
    const c: Conclusion = { id: `c${this.out.length + 1}`, source: block.source, text: statement, message_ids: messageId ? [messageId] : [], by: block.by, ...(block.role_id ? { role_id: block.role_id } : {}), ...(block.status ? { status: block.status } : {}), ...(open ? { open: true } : {}) };
    this.#byKey.set(key, c);
    this.out.push(c);
  }
}

/**
 * The findings of a report or summary body: list items (those under an advice heading such as
 * `Next steps` or a heading of the work done such as `What I looked at` are left out; those under
 * an open heading are open), `OPEN:` lines, and when the body has no list, its sentences; trivia
 * never counts towards {@link FINDINGS_PER_TEXT}. `CONCLUSION:` lines are read separately.
 */
function findings(body: string): Array<{ text: string; open: boolean }> {
  const out: Array<{ text: string; open: boolean }> = [];
  let section: "plain" | "open" | "skip" = "plain";
  let items = 0;
  for (const line of body.split("\n")) {
    const marked = openMarked(line);
    if (marked) {
      out.push({ text: marked, open: true });
      continue;
    }
    if (/^\s*(?:[-*•]|\d+[.)])?\s*(?:\*\*|__)?\s*(?:CONCLUSION|结论)\s*[:：]/i.test(line)) continue;
    const heading = headingText(line);
    if (heading !== null) {
      section = isOpenHeading(heading) ? "open" : isAdviceHeading(heading) || isProcessHeading(heading) ? "skip" : "plain";
      continue;
    }
    const item = listItem(line);
    if (item === null) continue;
    items++;
    if (section !== "skip" && !readsTrivia(item)) out.push({ text: item, open: section === "open" });
  }
  if (items === 0) {
    const prose = body
      .split("\n")
      .filter((l) => headingText(l) === null && !/^\s*>/.test(l) && !/^\s*(?:CONCLUSION|结论)\s*[:：]/i.test(l) && !openMarked(l))
      .join(" ");
    for (const s of sentences(prose)) if (!/[:：]$/.test(s) && !readsTrivia(s)) out.push({ text: s, open: isOpenHeading(s) });
  }
  return out.slice(0, FINDINGS_PER_TEXT);
}

/** The question ids the leader answered (`answer_question` calls) in `messages`. */
function answeredQuestions(messages: readonly Message[]): Set<string> {
  const out = new Set<string>();
  for (const m of messages) {
    for (const call of m.tool_calls ?? []) {
      if (call.function.name !== "answer_question") continue;
      const id = /"question_id"\s*:\s*"([^"]+)"/.exec(call.function.arguments)?.[1];
      if (id) out.add(id);
    }
  }
  return out;
}

/** True for the leader's plain answer that ends a request (no tool calls, followed by no other answer of it). */
function isFinalAnswer(messages: readonly Message[], i: number): boolean {
  const m = messages[i]!;
  if (m.role !== "assistant" || m.tool_calls?.length || !m.content?.trim()) return false;
  for (let j = i + 1; j < messages.length; j++) {
    const n = messages[j]!;
    if (n.role === "user" && n.metadata?.message_source === "user") return true;
    if (n.role === "assistant") return false;
  }
  return true;
}

/**
 * The conclusions of the leader's history from `options.from` on, in reading order, each with
 * the `message_id`s of the messages it came from.
 */
export function collectConclusions(messages: readonly Message[], options: CollectOptions = {}): Conclusion[] {
  const from = Math.max(0, Math.min(options.from ?? 0, messages.length));
  const agents = options.agents ?? [];
  const senders = new Set(agents.map((a) => a.display_name));
  for (const m of messages) {
    const parsed = typeof m.content === "string" && isInterAgentText(m.content) ? parseAgentMessage(m.content) : null;
    if (parsed) senders.add(parsed.sender);
  }
  const c = new Collector([...senders].filter((n) => /_\d+$/.test(n)));
  const range = messages.slice(from);
  const answered = answeredQuestions(range);
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    const id = m.message_id;
    const text = typeof m.content === "string" ? m.content : "";
    if (m.role === "user") {
      const parsed = isInterAgentText(text) ? parseAgentMessage(text) : null;
      if (parsed?.kind === "report") {
        const agent = agents.find((a) => a.agent_id === m.metadata?.agent_id) ?? agents.find((a) => a.display_name === parsed.sender);
        const failed = /^\[([a-z_]+)\]\s*/.exec(parsed.body);
        const body = failed ? parsed.body.slice(failed[0].length) : parsed.body;
        const block: Block = { source: "report", by: parsed.sender, ...(agent ? { role_id: agent.role_id } : {}), ...(failed ? { status: failed[1] } : {}) };
        for (const p of extractPromotions(body)) c.add({ ...block, source: "marker" }, p, id);
        for (const f of findings(body)) c.add(f.open ? { ...block, source: "question" } : block, f.text, id, f.open);
      } else if (parsed?.kind === "message" && parsed.id.startsWith("ask_")) {
        const open = options.pendingQuestions ? options.pendingQuestions.has(parsed.id) : !answered.has(parsed.id);
        if (open) c.add({ source: "question", by: parsed.sender }, parsed.body, id, true);
      } else if (!parsed && m.metadata?.message_source === "user") {
        // A person's `CONCLUSION:` / `结论：` is one of their lead-ins: read sentence by sentence
        // with the others, so that a line of several statements is not also kept whole.
        const stated = statedConclusions(text);
        for (const s of stated) c.add({ source: "stated", by: "person" }, s, id);
        // A preference already read as stated (`Remember that I prefer …`) is not read twice.
        for (const s of sentences(text)) if (readsPreference(s) && !stated.some((t) => s.includes(t))) c.add({ source: "person", by: "person" }, s, id);
      }
    } else if (m.role === "assistant" && m.metadata?.message_source !== "sub_agent") {
      for (const p of extractPromotions(text)) c.add({ source: "marker", by: "leader" }, p, id);
      if (isFinalAnswer(messages, i)) for (const f of findings(text)) c.add(f.open ? { source: "question", by: "leader" } : { source: "summary", by: "leader" }, f.text, id, f.open);
    }
  }
  return c.out;
}
