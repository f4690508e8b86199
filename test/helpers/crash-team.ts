/**
 * The team the crash tests and the takeover tests run against a fake model: a leader that
 * creates its sub-agents at once, each of which writes a file, reads one, writes another and
 * reports; the leader summarizes (`SUMMARY <title>`) once every report is in. Every answer carries
 * a marker `[r<call>]` and every request is fingerprinted, so a test can tell whether an answer
 * that was saved was asked for again. `watchWrites` counts the renames onto each written file (one
 * per completed `write_file`), so a test can tell whether a write ran twice.
 */
import { createHash } from "node:crypto";
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";
import { fakeText, fakeToolCalls, type FakeRequestBody, type Script } from "./fake-openai";

/** A chat message as the fake model receives it. */
export type Msg = { role: string; content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };

/** A scripted team's fake-model handler and what it recorded. */
export interface CrashTeam {
  handler(body: FakeRequestBody, callIndex: number): Script;
  /** Calls by fingerprint of what was asked: the answers' markers, in order. */
  asked: Map<string, string[]>;
  /** Calls asked per conversation title. */
  callsOf: Map<string, number>;
}

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const isLeader = (b: FakeRequestBody) => JSON.stringify(b.tools ?? []).includes("create_sub_agent");
const conversationOf = (b: FakeRequestBody) => /Conversation: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "?";
const me = (b: FakeRequestBody) => /You are: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "?";
const toolCalls = (b: FakeRequestBody) => msgs(b).flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
const reports = (b: FakeRequestBody) => msgs(b).filter((m) => m.role === "user" && String(m.content).includes("的任务完成汇报")).length;

/** The team of `roles`, each answer after `stepDelayMs`, its chunks `chunkDelayMs` apart. */
export function crashTeam(roles: readonly string[], { stepDelayMs, chunkDelayMs }: { stepDelayMs: number; chunkDelayMs: number }): CrashTeam {
  const asked = new Map<string, string[]>();
  const callsOf = new Map<string, number>();
  const handler = (body: FakeRequestBody, callIndex: number): Script => {
    const fingerprint = createHash("sha256").update(JSON.stringify(body.messages)).digest("hex");
    const marker = `[r${callIndex}]`;
    asked.set(fingerprint, [...(asked.get(fingerprint) ?? []), marker]);
    const title = conversationOf(body);
    callsOf.set(title, (callsOf.get(title) ?? 0) + 1);
    const slow = { delayMs: stepDelayMs, chunkDelayMs };
    if (isLeader(body)) {
      if (!toolCalls(body).some((c) => c.function.name === "create_sub_agent"))
        return fakeToolCalls(
          roles.map((role) => ({ name: "create_sub_agent", arguments: { role_id: role, task: `Do the ${role} part` } })),
          { content: `Assembling ${marker}`, ...slow },
        );
      return fakeText(reports(body) >= roles.length ? `SUMMARY ${title} ${marker}` : `waiting ${marker}`, slow);
    }
    const name = me(body);
    const file = (step: number) => `${title}-${name}-${step}.txt`;
    switch (toolCalls(body).length) {
      case 0:
        return fakeToolCalls([{ name: "write_file", arguments: { path: file(1), content: `first ${marker}` } }], { content: marker, ...slow });
      case 1:
        return fakeToolCalls([{ name: "read_file", arguments: { path: "README.md" } }], { content: marker, ...slow });
      case 2:
        return fakeToolCalls([{ name: "write_file", arguments: { path: file(2), content: `second ${marker}` } }], { content: marker, ...slow });
      default:
        return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `${name} done` } }], { content: marker, ...slow });
    }
  };
  return { handler, asked, callsOf };
}

/** Counts into `renames` every rename onto a `.txt` file of `project` (an atomic write landing). */
export function watchWrites(project: string, renames: Map<string, number>): FSWatcher {
  return watch(project, (event, name) => {
    if (event === "rename" && name && name.endsWith(".txt") && existsSync(path.join(project, name))) renames.set(name, (renames.get(name) ?? 0) + 1);
  });
}
