/**
 * A team run interrupted, without a server (test/support/team-kit.ts: in-memory storage and bus,
 * a scripted model): Stop in mid-call; a crash, then a new process over what the storage kept,
 * with an answer saved but not yet applied (the leader's `create_sub_agent`, a person's answer
 * to `ask_master`), applied once on resume; tool faults (an error result, a thrown fault) and a
 * fault that ends an agent's step; the hard caps. Faults are injected at the engine's failpoints
 * (./failpoints.ts), armed for this file by markers no other call carries.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Message } from "@/lib/store";
import { callTool, hasCalled, lastMessage, lastResultOf, reportsSeen, type Reply } from "@/test/support/scripted-model";
import { agentMessages, filesOf, journalOf, settled, TeamKit, teamEnvironment, timelineOf } from "@/test/support/team-kit";

const FAULT = "__unit_fault__";
const CRASH = "__unit_crash__";
// Read once, at the first failpoint this file's engine reaches.
vi.stubEnv("ASTRION_FAILPOINTS", `tool.*@${FAULT},agent.step@${CRASH}`);

const env = teamEnvironment();
afterAll(() => {
  env.close();
  vi.unstubAllEnvs();
});
// A fault is logged for the operator: kept out of the test's output, and read by the tests.
const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
beforeAll(() => logged.mockClear());
afterEach(() => logged.mockClear());

const create = (role_id: string, task: string) => ({ name: "create_sub_agent", arguments: { role_id, task } });
const report = (summary: string): Reply => callTool("report_to_leader", { summary });
const contents = (messages: readonly Message[]) => messages.map((m) => String(m.content ?? ""));
const toolResults = (messages: readonly Message[]) => new Map(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, JSON.parse(String(m.content)) as Record<string, unknown>]));

describe("Stop", () => {
  it("aborts the leader's and the agent's calls in mid-stream, keeps their partial words, and leaves nothing running", async () => {
    let stopped = false;
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return { hang: true, partial: "agent working slowly" };
      if (stopped) return { content: "back at work" };
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Work slowly")] };
      return { hang: true, partial: "I am thinking very slowly" };
    });
    const p = kit.start();
    await p.run.postUserMessage("Take your time");
    const agentCall = await kit.model.waitFor((c) => c.agentId === 1);
    const leaderCall = await kit.model.waitFor((c) => c.agentId === null && hasCalled(c, "create_sub_agent"));
    expect(p.run.working).toBe(true);

    await p.run.stop();
    expect(p.run.working).toBe(false);
    expect([agentCall.signal?.aborted, leaderCall.signal?.aborted]).toEqual([true, true]);
    await p.run.durable();
    const { conversation, leader, agents } = await filesOf(p, kit.convId);
    expect(agents.map((a) => a.status)).toEqual(["idle"]);
    expect(conversation.phase).toBe("IDLE");
    // The partial words are saved as interrupted; an abort is no failure: no report, no error notice.
    const interrupted = leader.messages.filter((m) => m.metadata?.interrupted);
    expect(interrupted).toMatchObject([{ role: "assistant", content: "I am thinking very slowly", metadata: { interrupted_reason: "aborted" } }]);
    expect((await agentMessages(p, kit.convId, 1)).messages.filter((m) => m.metadata?.interrupted).map((m) => m.content)).toEqual(["agent working slowly"]);
    expect(contents(leader.messages).some((c) => c.includes("的任务完成汇报"))).toBe(false);
    const snapshot = await p.run.snapshot();
    expect(snapshot.notices.map((n) => n.code)).toEqual(["stopped"]);
    expect(snapshot.leader.busy).toBe(false);
    expect(timelineOf(p, kit.convId).filter((r) => r.action === "stop").map((r) => [r.envelope.type, r.from_agent, r.to_agent])).toEqual([["control", "user", "system"]]);
    const calls = kit.model.calls.length;
    await settled(p);
    expect(kit.model.calls).toHaveLength(calls);

    // The run is not wedged: the next message is answered.
    stopped = true;
    await p.run.postUserMessage("Carry on");
    await settled(p);
    expect(contents((await filesOf(p, kit.convId)).leader.messages).at(-1)).toBe("back at work");
  });
});

describe("a crash and a new process over what the storage kept", () => {
  it("finds the leader's create_sub_agent saved but not run, and runs it once without asking the model again", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return report("mapped");
      if (!hasCalled(call, "create_sub_agent")) return { content: "Delegating.", tool_calls: [create("researcher", "Map the project")] };
      return { content: reportsSeen(call) ? "SUMMARY: mapped" : "waiting" };
    });
    const roles = env.heldRoles();
    const first = kit.start(roles);
    // The process dies inside create_sub_agent: after the answer and the journal's `started`
    // line were made and made durable, before the agent exists.
    const inside = roles.holdNext("researcher");
    await first.run.postUserMessage("Map the project");
    await inside;
    await first.storage.durability(kit.convId)!.whenDurable();
    first.storage.crash();
    first.run.release();

    const second = kit.start();
    const before = await filesOf(second, kit.convId);
    const asked = before.leader.messages.at(-1)!;
    const callId = asked.tool_calls?.[0]?.id;
    expect(asked).toMatchObject({ role: "assistant", content: "Delegating.", tool_calls: [{ function: { name: "create_sub_agent" } }] });
    expect(before.conversation.agent_ids).toEqual([]);
    expect(journalOf(second, kit.convId).map((l) => [l.key, l.status])).toEqual([[`leader:${callId}`, "started"]]);

    await second.run.resume();
    await settled(second);
    const { conversation, leader, agents } = await filesOf(second, kit.convId);
    // Applied once: one agent, one result for the call, one task, one report, one summary.
    expect(conversation.agent_ids).toEqual([1]);
    expect(agents.map((a) => [a.display_name, a.status])).toEqual([["Researcher_1", "completed"]]);
    expect(leader.messages.filter((m) => m.tool_call_id === callId).map((m) => JSON.parse(String(m.content)))).toEqual([{ agent_id: 1, display_name: "Researcher_1", task_id: "task_001" }]);
    expect(journalOf(second, kit.convId).filter((l) => l.key === `leader:${callId}`).map((l) => l.status)).toEqual(["started", "done"]);
    expect(timelineOf(second, kit.convId).filter((r) => r.action === "create_sub_agent")).toHaveLength(1);
    expect(contents(leader.messages).filter((c) => c.includes("的任务完成汇报"))).toEqual(["来自 Researcher_1 的任务完成汇报\nid: out_r_001\n\n\n\nmapped\n\n"]);
    expect(contents(leader.messages).at(-1)).toBe("SUMMARY: mapped");
    // The model was asked for the delegation once, and no answered call was asked again.
    expect(kit.model.callsOf(null).filter((c) => !hasCalled(c, "create_sub_agent"))).toHaveLength(1);
    const asks = kit.model.answered.map((c) => JSON.stringify(c.messages));
    expect(new Set(asks).size).toBe(asks.length);
  });

  it("finds a person's answer saved but not yet used by the agent, and the agent goes on from it once", async () => {
    let crashed = false;
    const kit = new TeamKit(env, (call) => {
      if (call.agentId === null) {
        if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Pick a theme")] };
        return { content: reportsSeen(call) ? "SUMMARY: picked" : "waiting for the person" };
      }
      if (!hasCalled(call, "ask_master")) return callTool("ask_master", { question: "Which theme?" });
      // Before the crash, the call that would use the answer is still streaming when the process dies.
      return crashed ? report(`Chose: ${String(lastResultOf(call, "ask_master")?.answer)}`) : { hang: true };
    });
    const first = kit.start();
    await first.run.postUserMessage("Pick a theme");
    await settled(first);
    await first.run.answerQuestion("ask_r_001", "Green", "User", 1);
    // A person's request is acknowledged once durable: from here the answer survives a crash.
    await first.run.durable();
    await kit.model.waitFor((c) => c.agentId === 1 && lastMessage(c).role === "tool");
    first.storage.crash();
    first.run.release();
    crashed = true;

    const second = kit.start();
    expect((await filesOf(second, kit.convId)).agents[0]).toMatchObject({ status: "running", pending_tool_calls: [] });
    await second.run.resume();
    await settled(second);
    const { leader, agents } = await filesOf(second, kit.convId);
    expect(agents[0]).toMatchObject({ status: "completed", pending_tool_calls: [] });
    const messages = (await agentMessages(second, kit.convId, 1)).messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    expect([...toolResults(messages).values()][0]).toEqual({ answer: "Green", answered_by: "User" });
    expect(contents(leader.messages).filter((c) => c.includes("的任务完成汇报"))).toEqual(["来自 Researcher_1 的任务完成汇报\nid: out_r_001\n\n\n\nChose: Green\n\n"]);
    // Asked once; the call cut short was the only one made again; each answered call asked once.
    expect(kit.model.callsOf(1).filter((c) => !hasCalled(c, "ask_master"))).toHaveLength(1);
    expect(kit.model.callsOf(1).filter((c) => lastMessage(c).role === "tool").map((c) => kit.model.answered.includes(c))).toEqual([false, true]);
    const asks = kit.model.answered.map((c) => JSON.stringify(c.messages));
    expect(new Set(asks).size).toBe(asks.length);
    expect(timelineOf(second, kit.convId).filter((r) => r.action === "answer_question")).toHaveLength(1);
  });
});

describe("faults", () => {
  it("gives the agent a tool error for a tool that fails or throws, and it goes on; a fault in a step ends that agent visibly", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId === null) {
        if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Use your tools"), create("code-reviewer", "Stop on your first step")] };
        return { content: reportsSeen(call) >= 2 ? "SUMMARY: one survived, one failed" : "waiting" };
      }
      if (call.agentId === 2) return { content: `I will ${CRASH} now` };
      if (hasCalled(call, "list_files")) return report(`saw: ${String(lastResultOf(call, "read_file")?.error)} / ${String(lastResultOf(call, "list_files")?.error)}`);
      return {
        tool_calls: [
          { id: "r_missing", name: "read_file", arguments: { path: "missing.txt" } },
          { id: "r_fault", name: "list_files", arguments: { path: FAULT } },
        ],
      };
    });
    const p = kit.start();
    await p.run.postUserMessage("Exercise the tools");
    await settled(p);

    const missing = 'File not found: "missing.txt"';
    const fault = "list_files failed: an internal error on the server (it is in the server's log).";
    const results = toolResults((await agentMessages(p, kit.convId, 1)).messages);
    expect([results.get("r_missing"), results.get("r_fault")]).toEqual([{ error: missing }, { error: fault }]);
    // The model read both errors and went on to report.
    const { leader, agents } = await filesOf(p, kit.convId);
    expect(contents(leader.messages)).toContain(`来自 Researcher_1 的任务完成汇报\nid: out_r_001\n\n\n\nsaw: ${missing} / ${fault}\n\n`);
    expect(agents[0]).toMatchObject({ status: "completed" });
    expect(agents[0]!.failure).toBeUndefined();
    // A thrown fault is on the timeline and in the log; an error result is neither.
    const timeline = timelineOf(p, kit.convId);
    expect(timeline.filter((r) => r.status === "failed" && r.to_agent === "agent:1").map((r) => [r.action, r.resource, r.envelope.payload.fault])).toEqual([["list_files", "tool_call:r_fault", "InjectedFault"]]);
    expect(logged.mock.calls.map((c) => String(c[0]))).toEqual(expect.arrayContaining([expect.stringMatching(/agent 1 tool list_files failed$/)]));
    expect(logged.mock.calls.some((c) => String(c[0]).includes("read_file"))).toBe(false);

    // The step that threw: the agent ends idle with its failure, and the leader hears of it.
    expect(agents[1]).toMatchObject({ status: "idle", failure: { code: "internal_error", fault: "InjectedFault" } });
    expect(contents(leader.messages)).toContain("来自 Code Reviewer_2 的任务完成汇报\nid: out_cr_001\n\n\n\n[failed] I stopped on an internal error (InjectedFault) and could not finish my task.\n\n");
    expect(timeline.filter((r) => r.action === "agent_failed").map((r) => [r.status, r.to_agent, r.envelope.payload.fault])).toEqual([["failed", "agent:2", "InjectedFault"]]);
    expect((await p.run.snapshot()).notices.map((n) => [n.code, n.agent_id])).toEqual([["agent_failed", 2]]);
    expect(contents(leader.messages).at(-1)).toBe("SUMMARY: one survived, one failed");
  });
});

describe("caps", () => {
  it("refuses an agent over the conversation's cap and a sub-agent's spawn, and stops an agent at its cap of calls", async () => {
    const kit = new TeamKit(
      env,
      (call) => {
        if (call.agentId === null) {
          if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Try to spawn"), create("code-reviewer", "Loop forever"), create("ui-operator", "One too many")] };
          return { content: reportsSeen(call) >= 2 ? "SUMMARY: capped" : "waiting" };
        }
        if (call.agentId === 1) return hasCalled(call, "create_sub_agent") ? report("could not spawn") : callTool("create_sub_agent", { role_id: "researcher", task: "spawned" });
        return callTool("list_files", { path: "." });
      },
      { limits: { maxAgents: 2, maxCallsPerTask: 4 } },
    );
    const p = kit.start();
    await p.run.postUserMessage("Test the caps");
    await settled(p);

    const { conversation, leader, agents } = await filesOf(p, kit.convId);
    expect(conversation.agent_ids).toEqual([1, 2]);
    const created = leader.messages[1]!.tool_calls!.map((c) => toolResults(leader.messages).get(c.id));
    expect(created[2]).toEqual({ error: "cap reached: this conversation already has 2 sub-agents (the maximum). Reuse one with send_message_to_agent." });
    // The looping agent made exactly its 4 calls, then reported the cap and stopped.
    expect(kit.model.callsOf(2)).toHaveLength(4);
    expect(agents[1]).toMatchObject({ status: "idle", calls_this_task: 4 });
    expect(contents(leader.messages)).toContain("来自 Code Reviewer_2 的任务完成汇报\nid: out_cr_001\n\n\n\n[failed] I reached the limit of 4 model calls for this task and had to stop before finishing.\n\n");
    // A sub-agent cannot create one: a tool error, and it goes on.
    const spawn = toolResults((await agentMessages(p, kit.convId, 1)).messages);
    expect([...spawn.values()][0]).toEqual({ error: "sub-agents cannot create sub-agents; ask the Team Leader with ask_master if you need help" });
    expect(agents[0]).toMatchObject({ status: "completed" });
    const timeline = timelineOf(p, kit.convId);
    expect(timeline.filter((r) => r.status === "capped").map((r) => [r.action, r.to_agent, r.resource])).toEqual(
      expect.arrayContaining([
        ["create_sub_agent", "leader", "role:ui-operator"],
        ["cap_calls", "agent:2", "agent:2"],
      ]),
    );
    expect(timeline.filter((r) => r.status === "refused").map((r) => [r.action, r.to_agent])).toEqual([["create_sub_agent", "agent:1"]]);
    expect(new Set((await p.run.snapshot()).notices.map((n) => n.code))).toEqual(new Set(["cap_agents", "cap_calls", "cap_spawn"]));
    expect(contents(leader.messages).at(-1)).toBe("SUMMARY: capped");
  });
});
