/**
 * Histories for tests and the bench, appended step by step as the runtime appends them:
 * deterministic pseudo-random mixes of person messages, runtime notes, inter-agent texts, tool
 * calls whose results (text or JSON) come at once or later (in any order, some never, some
 * twice), stray tool results, system messages, conclusions and huge texts. Not used by the app.
 */
import { formatAgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { rng } from "../rng";

export { rng };


/** A `search_files` result of about `n` words as JSON: many small matches, and a long line in one of them. */
export function searchResult(n: number): string {
  const matches = Array.from({ length: 1 + Math.floor(n / 8) }, (_, i) => ({ path: `src/m${i % 7}.ts`, line: i + 1, text: i === 3 ? words(n, "long") : words(6, `m${i}_`) }));
  return JSON.stringify({ matches, truncated: false, filesScanned: n });
}

/** `n` distinct words (`w0 w1 …`). */
export function words(n: number, tag = "w"): string {
  return Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
}

const TOOLS = ["read_file", "list_files", "search_files", "write_file", "create_sub_agent"];

/**
 * A random history of `kind`, as the batches of messages appended to it one step after another
 * (1 to 4 messages each) until it holds about `length` messages. An agent's starts with its
 * saved system message and a task.
 */
export function randomSteps(seed: number, kind: "leader" | "agent", length: number): Message[][] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const size = (small: number, huge: number) => Math.floor(rand() * (rand() < 0.04 ? huge : small));
  let n = 0;
  const id = (p: string) => `${p}_${seed}_${++n}`;
  const conclusion = () => (rand() < 0.25 ? `\nCONCLUSION: finding ${Math.floor(rand() * 6)}` : "");
  const pending: string[] = [];
  const steps: Message[][] = [kind === "agent" ? [{ role: "system", content: "You are Coder_1." }, task()] : [person()]];
  let total = steps[0]!.length;

  function person(): Message {
    return { role: "user", content: `Please ${words(1 + size(40, 4000), "p")}${conclusion()}`, message_id: id("msg_user"), metadata: { message_source: "user" } };
  }
  function task(): Message {
    return { role: "user", content: formatAgentMessage("task", "Team Leader", id("task"), words(1 + size(60, 600), "t")), message_id: id("msg_user"), metadata: { message_source: "leader" } };
  }
  function interAgent(): Message {
    const type = pick(["report", "message", "task"] as const);
    return { role: "user", content: formatAgentMessage(type, "Coder_2", id("out"), `${words(size(200, 2000), "r")}${conclusion()}`), message_id: id("msg_user"), metadata: { message_source: "sub_agent" } };
  }
  function calls(): Message {
    const count = 1 + Math.floor(rand() * 3);
    const tool_calls = Array.from({ length: count }, () => {
      const callId = rand() < 0.05 && pending.length ? pick(pending) : id("call");
      const name = pick(TOOLS);
      const args = name === "write_file" ? { path: `src/${size(20, 20)}.ts`, content: `${words(size(80, 3000), "c")}${conclusion()}` } : { path: `src/${size(20, 20)}.ts`, query: "needle" };
      return { id: callId, type: "function" as const, function: { name, arguments: JSON.stringify(args) } };
    });
    for (const c of tool_calls) pending.push(c.id);
    const content = pick([null, null, "", `Working on it. ${words(size(30, 300), "a")}${conclusion()}`]);
    return { role: "assistant", content, tool_calls, message_id: id("msg_assistant") };
  }
  function result(callId: string): Message {
    const n = size(300, 4000);
    // One result in three is JSON, as the workspace tools answer (no extra draw: the rest of the history is as before).
    const content = n % 3 === 0 ? searchResult(n) : words(n, "f");
    return { role: "tool", tool_call_id: callId, content, message_id: id("msg_tool") };
  }
  function other(): Message {
    const x = rand();
    if (x < 0.25) return { role: "assistant", content: `${words(size(120, 800), "s")}${conclusion()}`, message_id: id("msg_assistant") };
    if (x < 0.35) return { role: "assistant", content: "", message_id: id("msg_assistant") };
    if (x < 0.5) return { role: "user", content: "[Astrion] Every agent on the critical path has reported.", message_id: id("msg_user"), metadata: { message_source: "system" } };
    if (x < 0.6) return kind === "leader" ? person() : task();
    if (x < 0.65) return { role: "system", content: "A stray system line." };
    if (x < 0.72) return { role: "tool", tool_call_id: rand() < 0.5 ? "never_called" : "", content: "stray result" };
    if (x < 0.75) return { role: "user", content: "", metadata: { message_source: "user" } };
    return interAgent();
  }

  while (total < length) {
    const step: Message[] = [];
    const x = rand();
    if (x < 0.4) {
      const m = calls();
      step.push(m);
      // usually every result at once, in order; sometimes some now and the rest in later steps
      if (rand() < 0.8) {
        for (const c of m.tool_calls!) {
          step.push(result(c.id));
          pending.splice(pending.lastIndexOf(c.id), 1);
        }
      }
    } else if (x < 0.55 && pending.length) {
      // a late result, in any order; now and then one for a call already answered
      const at = Math.floor(rand() * pending.length);
      step.push(result(rand() < 0.9 ? pending.splice(at, 1)[0]! : pending[at]!));
    } else {
      step.push(other());
      if (rand() < 0.3) step.push(other());
    }
    steps.push(step);
    total += step.length;
  }
  return steps;
}
