/**
 * The model side of the provider tests, the same for every fake provider: a leader that creates
 * two agents in one turn (a researcher and a code reviewer), each of which lists the project's
 * files and reports; the leader sums up once both reports are in. What a turn says is decided
 * here; how it goes on the wire is each provider's (./<provider>.ts). The connection doctor's probes
 * get the answers of ./doctor-turns.ts.
 */
import type { FakeRequestBody } from "../helpers/fake-openai";
import { doctorTurn } from "./doctor-turns";

/** One answer, before a provider encodes it. */
export interface Turn {
  reasoning?: string;
  content?: string;
  calls?: Array<{ name: string; arguments: Record<string, unknown> }>;
}

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };

const msgs = (body: FakeRequestBody) => (body.messages ?? []) as Msg[];

/** True for the leader's calls (it is offered `create_sub_agent`). */
export function isLeader(body: FakeRequestBody): boolean {
  return JSON.stringify(body.tools ?? []).includes('"create_sub_agent"');
}

/** How many calls of `name` earlier assistant turns made. */
export function calledBefore(body: FakeRequestBody, name: string): number {
  return msgs(body).reduce((n, m) => n + (m.role === "assistant" ? (m.tool_calls ?? []).filter((c) => c.function.name === name).length : 0), 0);
}

/** Completion reports the leader has received. */
function reportsIn(body: FakeRequestBody): number {
  return msgs(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}

/** The scripted answer to `body`; `thinking` says whether the provider would think for this request. */
export function turnFor(body: FakeRequestBody, provider: string, thinking: boolean): Turn {
  // The connection doctor's probes are answered as a model would answer them (./doctor-turns.ts).
  const probe = doctorTurn(body, thinking);
  if (probe) return probe;
  const think = (text: string) => (thinking ? { reasoning: text } : {});
  if (isLeader(body)) {
    if (calledBefore(body, "create_sub_agent") === 0) {
      return {
        ...think("Two angles: the files, then a review."),
        calls: [
          { name: "create_sub_agent", arguments: { role_id: "researcher", task: "List the project's files" } },
          { name: "create_sub_agent", arguments: { role_id: "code-reviewer", task: "Review the project's files" } },
        ],
      };
    }
    const reports = reportsIn(body);
    return reports >= 2 ? { ...think("Both reported; summing up."), content: `SUMMARY ${provider}: both agents reported` } : { ...think("Waiting."), content: "waiting for reports" };
  }
  const system = String(msgs(body)[0]?.content ?? "");
  const me = /You are: (\S+)/.exec(system)?.[1] ?? "agent";
  if (calledBefore(body, "list_files") === 0) return { ...think("Look at the folder first."), calls: [{ name: "list_files", arguments: { path: "." } }] };
  return { ...think("Done; report."), calls: [{ name: "report_to_leader", arguments: { summary: `files listed by ${me}` } }] };
}
