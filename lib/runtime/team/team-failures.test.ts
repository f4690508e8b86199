/**
 * Failed work and what agents are doing, without a server (test/support/team-kit.ts): a model
 * failure's notice names its cause by code and the message it failed on, and Retry takes the work
 * up again without re-sending anything; a sub-agent's view says what it is doing from its tool
 * calls, keeps its last actions, and nothing says "thinking" once it is stopped. A loop that
 * crashed (a fault injected at the engine's failpoints, ./failpoints.ts) marks the message it
 * failed on like a model failure, with Retry when the loop can take the work up again.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { currentFailure, noticeText } from "@/lib/client/notices";
import { ConflictError } from "@/lib/contracts/errors";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { makeTranslator } from "@/lib/i18n/translate";
import { ModelCallError } from "@/lib/models/types";
import { callTool, hasCalled } from "@/test/support/scripted-model";
import { agentMessages, agentReached, filesOf, settled, TeamKit, teamEnvironment } from "@/test/support/team-kit";

const AGENT_CRASH = "__failures_agent_crash__";
const LEADER_CRASH = "__failures_leader_crash__";
// Read once, at the first failpoint this file's engine reaches.
vi.stubEnv("ASTRION_FAILPOINTS", `agent.step@${AGENT_CRASH},leader.step@${LEADER_CRASH}`);

const env = teamEnvironment();
afterAll(() => {
  env.close();
  vi.unstubAllEnvs();
});

describe("a model failure", () => {
  it("names its cause by code and the message it failed on; Retry calls the model again without re-sending", async () => {
    let failing = true;
    const kit = new TeamKit(env, () => {
      if (failing) throw new ModelCallError("network", 'Could not reach http://127.0.0.1:9/v1 for model "scripted" (ECONNREFUSED).', { modelKey: "scripted" });
      return { content: "Hello again" };
    });
    const p = kit.start();
    const sent = await p.run.postUserMessage("Say hello");
    await settled(p);
    const failure = (await p.run.snapshot()).notices.find((n) => n.code === "model_error");
    const before = (await filesOf(p, kit.convId)).leader.messages;
    expect(failure).toMatchObject({
      level: "error",
      key: "notice.msg.leaderModelFailed",
      params: { reason: "network", cause: "nothing answers at its address" },
      trace_id: sent.trace_id,
      message_id: sent.message_id,
      after_message_id: before.at(-1)!.message_id,
    });
    expect(failure!.message).not.toContain("ECONNREFUSED");

    failing = false;
    expect(await p.run.retry(null)).toEqual({ retried: "leader" });
    await settled(p);
    const after = (await filesOf(p, kit.convId)).leader.messages;
    // The person's message is there once; the answer came after it.
    expect(after.filter((m) => m.role === "user" && m.content === "Say hello")).toHaveLength(1);
    expect(after.at(-1)).toMatchObject({ role: "assistant", content: "Hello again" });
    // Nothing is left to retry.
    await expect(p.run.retry(null)).rejects.toBeInstanceOf(ConflictError);
  });

  it("retries an idle agent's failed task, and refuses an agent with nothing to retry", async () => {
    let agentFails = true;
    const kit = new TeamKit(env, (call) => {
      if (call.agentId === null) {
        if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Look around" } }] };
        return { content: "noted" };
      }
      if (agentFails) throw new ModelCallError("timeout", "did not answer", { modelKey: "scripted" });
      return callTool("report_to_leader", { summary: "Looked around." });
    });
    const p = kit.start();
    const posted = Date.now();
    await p.run.postUserMessage("Look around");
    await p.when(agentReached(1, "idle"));
    await settled(p);
    const failure = (await p.run.snapshot()).notices.find((n) => n.code === "model_error" && n.agent_id === 1);
    expect(failure).toMatchObject({ params: { reason: "timeout" }, message_id: expect.stringMatching(/./) });
    // Its work is timed from its task's delivery, then from the retry.
    const task = (await p.run.snapshot()).agents[0]!.working_since;
    expect(Date.parse(task!)).toBeGreaterThanOrEqual(posted);
    agentFails = false;
    const retried = Date.now();
    const running = p.when((e) => e.type === "agent" && e.agent.metadata.status === "running" && e.agent.working_since !== null && e.agent.working_since !== task);
    expect(await p.run.retry(1)).toEqual({ retried: 1 });
    const view = ((await running) as Extract<RuntimeEvent, { type: "agent" }>).agent;
    expect(Date.parse(view.working_since!)).toBeGreaterThanOrEqual(retried);
    await p.when(agentReached(1, "completed"));
    await settled(p);
    await expect(p.run.retry(1)).rejects.toBeInstanceOf(ConflictError);
  });
});

describe("a loop that crashed", () => {
  it("marks the agent's task it failed on, words the fault by code, and Retry runs the answer's tool calls once", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    writeFileSync(path.join(env.project, "crash.md"), "# Crash\n");
    const kit = new TeamKit(env, (call) => {
      if (call.agentId === null) {
        if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Read crash.md" } }] };
        return { content: "noted" };
      }
      if (!hasCalled(call, "read_file")) return { content: AGENT_CRASH, tool_calls: [{ name: "read_file", arguments: { path: "crash.md" } }] };
      return callTool("report_to_leader", { summary: "Read it." });
    });
    const p = kit.start();
    await p.run.postUserMessage("Read crash.md");
    await p.when((e) => e.type === "notice" && e.notice.code === "agent_failed");
    await p.when(agentReached(1, "idle"));
    await settled(p);
    const snap = await p.run.snapshot();
    const crash = snap.notices.find((n) => n.code === "agent_failed")!;
    const task = (await agentMessages(p, kit.convId, 1)).messages;
    expect(crash).toMatchObject({ agent_id: 1, params: { agent: 1, reason: "fault_internal" }, detail: "InjectedFault", retryable: true, message_id: task.find((m) => m.role === "user")!.message_id, after_message_id: task.at(-1)!.message_id });
    // The page marks the task and words the fault in its language, never the server's English.
    expect(currentFailure(snap.notices, 1, task)?.message_id).toBe(crash.message_id);
    expect(noticeText(crash, makeTranslator("zh-CN"))).toBe("智能体 1 已停止：内部错误。详情见服务器日志。");

    expect(await p.run.retry(1)).toEqual({ retried: 1 });
    await p.when(agentReached(1, "completed"));
    await settled(p);
    const after = (await agentMessages(p, kit.convId, 1)).messages;
    // The answer's read_file ran once, on Retry; no new answer was asked for it.
    expect(after.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)) as unknown)).toHaveLength(2);
    expect(after.filter((m) => m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.function.name === "read_file"))).toHaveLength(1);
    expect(currentFailure((await p.run.snapshot()).notices, 1, after)).toBeNull();
    logged.mockRestore();
  });

  it("marks the person's message the leader crashed on, and offers no Retry when nothing is left to take up", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const kit = new TeamKit(env, () => ({ content: `Hello ${LEADER_CRASH}` }));
    const p = kit.start();
    const sent = await p.run.postUserMessage("Say hello");
    await p.when((e) => e.type === "notice" && e.notice.code === "leader_failed");
    await settled(p);
    const snap = await p.run.snapshot();
    const crash = snap.notices.find((n) => n.code === "leader_failed")!;
    const messages = (await filesOf(p, kit.convId)).leader.messages;
    expect(crash).toMatchObject({ agent_id: null, params: { reason: "fault_internal" }, message_id: sent.message_id, after_message_id: messages.at(-1)!.message_id, retryable: false });
    expect(currentFailure(snap.notices, null, messages)?.message_id).toBe(sent.message_id);
    // Its answer was saved: the retry route has nothing to take up, as the notice said.
    await expect(p.run.retry(null)).rejects.toBeInstanceOf(ConflictError);
    logged.mockRestore();
  });
});

describe("what an agent is doing", () => {
  it("says it from its tool calls, keeps its last actions without model calls, and is not 'thinking' after Stop", async () => {
    writeFileSync(path.join(env.project, "notes.md"), "# Notes\n");
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId === null) {
        if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Read the notes" } }] };
        return { content: "ok" };
      }
      if (!hasCalled(call, "read_file")) return callTool("read_file", { path: "notes.md" });
      if (!hasCalled(call, "search_files")) return callTool("search_files", { query: "Notes" });
      await held;
      return { hang: true };
    });
    const p = kit.start();
    await p.run.postUserMessage("Read the notes");
    await kit.model.waitFor((c) => c.agentId === 1 && hasCalled(c, "search_files"));
    const view = (await p.run.snapshot()).agents[0]!;
    expect(view.action).toMatchObject({ kind: "think" });
    expect(view.recent_actions.map((a) => [a.kind, a.target])).toEqual([
      ["created", "task_001"],
      ["read_inbox", "task_001"],
      ["read", "notes.md"],
      ["search", "Notes"],
    ]);
    expect(view.last_activity).toBe("thinking…");
    // Each tool call was shown as it started.
    expect(p.events.some((e) => e.type === "agent" && e.agent.action?.kind === "read" && e.agent.action.target === "notes.md")).toBe(true);
    release();
    await p.run.stop();
    const stopped = (await p.run.snapshot()).agents[0]!;
    expect(stopped.metadata.status).toBe("idle");
    expect(stopped.recent_actions.some((a) => a.kind === "think")).toBe(false);
  });
});
