/**
 * Interventions (issue 32) on a team run from in-memory parts (test/support/team-kit.ts): a
 * person's message to a running team steered, queued, interrupting the call in flight, or starting
 * a new task beside the running one; a queued message withdrawn, the queue reordered; an agent's
 * task withdrawn; two people's messages sent at once. Calls are held by gates the test opens, never
 * by sleeps.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Author } from "@/lib/contracts/people";
import type { InterventionMeta } from "@/lib/contracts/interventions";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import type { ChatMessage } from "@/lib/models/types";
import { callTool, hasCalled, lastMessage, type ModelCall, type Reply } from "@/test/support/scripted-model";
import { agentMessages, filesOf, settled, TeamKit, teamEnvironment, timelineOf, type TeamProcess } from "@/test/support/team-kit";
import { inboxTurn } from "./mail";
import { reorderQueue, type QueuedMessage } from "@/lib/contracts/interventions";

const env = teamEnvironment();
afterAll(() => env.close());

const ADA: Author = { id: "p_ada", name: "Ada", via: "password" };
const BO: Author = { id: "p_bo", name: "Bo", via: "password" };

/** A promise the test resolves when it wants the held call to answer. */
function gate(): { open: () => void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { open, wait };
}

const create = (role_id: string, task: string) => ({ name: "create_sub_agent", arguments: { role_id, task } });
const report = (summary: string): Reply => callTool("report_to_leader", { summary });
const text = (m: ChatMessage) => String(m.content ?? "");
const userTexts = (call: ModelCall) => call.messages.filter((m) => m.role === "user").map(text);
const interventions = (p: TeamProcess, convId: string): TimelineRecord[] => timelineOf(p, convId).filter((r) => r.action === "intervention");
const meta = (r: TimelineRecord) => (r.envelope.meta as { intervention: InterventionMeta }).intervention;

describe("steer", () => {
  it("delivers two people's messages sent at once to the leader's next call, in the order received, each with its author, in the running trace", async () => {
    const held = gate();
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId !== null) return { hang: true };
      if (!hasCalled(call, "create_sub_agent")) {
        await held.wait;
        return { tool_calls: [create("researcher", "Look around")] };
      }
      return { content: "Delegated." };
    });
    const p = kit.start();
    const first = await p.run.postUserMessage("Map the project", ADA);
    expect(first.intervention).toBeUndefined();
    await kit.model.waitFor((c) => c.agentId === null);
    // Both sent in the same instant, while the leader's first call is in flight.
    const [a, b] = await Promise.all([p.run.postUserMessage("Also check the tests", ADA), p.run.postUserMessage("And the docs", BO)]);
    expect([a.intervention?.strategy, b.intervention?.strategy]).toEqual(["steer", "steer"]);
    expect([a.trace_id, b.trace_id]).toEqual([first.trace_id, first.trace_id]);
    held.open();
    const next = await kit.model.waitFor((c) => c.agentId === null && hasCalled(c, "create_sub_agent"));
    expect(userTexts(next).slice(-2)).toEqual(["[Ada] Also check the tests", "[Bo] And the docs"]);
    await p.run.stop();
    await p.run.durable();
    const records = timelineOf(p, kit.convId);
    // The first message, with nothing running, is an ordinary message; the two are interventions.
    expect(records.filter((r) => r.action === "user_message")).toHaveLength(1);
    const steered = interventions(p, kit.convId);
    expect(steered.map((r) => [r.envelope.type, r.from_agent, r.to_agent, meta(r).strategy, meta(r).author.name, r.trace_id])).toEqual([
      ["request", "person:p_ada", "leader", "steer", "Ada", first.trace_id],
      ["request", "person:p_bo", "leader", "steer", "Bo", first.trace_id],
    ]);
    const { leader } = await filesOf(p, kit.convId);
    expect(leader.messages.filter((m) => m.metadata?.intervention).map((m) => (m.metadata?.author as Author).name)).toEqual(["Ada", "Bo"]);
  });

  it("delivers two messages sent at once to a sub-agent's next call, in order, each under its author's name", async () => {
    const held = gate();
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId === null) return hasCalled(call, "create_sub_agent") ? { content: "Delegated." } : { tool_calls: [create("researcher", "Survey")] };
      if (kit.model.callsOf(call.agentId).length === 1) {
        await held.wait;
        return { content: "Looking." };
      }
      return { hang: true };
    });
    const p = kit.start();
    await p.run.postUserMessage("Go", ADA);
    await kit.model.waitFor((c) => c.agentId === 1);
    const sent = await Promise.all([p.run.personToAgent(1, "left first", ADA), p.run.personToAgent(1, "right second", BO)]);
    expect(sent.map((s) => s.intervention?.strategy)).toEqual(["steer", "steer"]);
    held.open();
    const second = await kit.model.waitFor((c) => c.agentId === 1 && c.n > 2 && kit.model.callsOf(1).indexOf(c) === 1);
    const delivered = userTexts(second).filter((t) => t.includes("的消息"));
    expect(delivered).toHaveLength(2);
    expect(delivered[0]).toMatch(/^来自 Ada 的消息\nid: \S+\n[\s\S]*left first/);
    expect(delivered[1]).toMatch(/^来自 Bo 的消息\nid: \S+\n[\s\S]*right second/);
    await p.run.stop();
    await p.run.durable();
    expect(interventions(p, kit.convId).map((r) => [r.to_agent, meta(r).author.name, r.envelope.author?.name])).toEqual([
      ["agent:1", "Ada", "Ada"],
      ["agent:1", "Bo", "Bo"],
    ]);
  });
});

describe("interrupt", () => {
  it("cancels the leader's call in flight, keeps its partial answer marked cancelled, and answers the message at once", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return { hang: true };
      if (lastMessage(call).content === "[Ada] Stop, do this instead") return { content: "Doing that instead." };
      return { hang: true, partial: "I was going to ramble" };
    });
    const p = kit.start();
    await p.run.postUserMessage("Write an essay", ADA);
    const inFlight = await kit.model.waitFor((c) => c.agentId === null);
    const sent = await p.run.postUserMessage("Stop, do this instead", ADA, "interrupt");
    expect(sent.intervention).toEqual({ strategy: "interrupt", cancelled_call: true });
    // The call's own signal (what the HTTP client is given) was aborted.
    expect(inFlight.signal?.aborted).toBe(true);
    await settled(p);
    const { leader } = await filesOf(p, kit.convId);
    const cancelled = leader.messages.filter((m) => m.metadata?.cancelled);
    expect(cancelled).toMatchObject([{ role: "assistant", content: "I was going to ramble", metadata: { interrupted: true, cancelled: true, cancelled_for: "interrupt", cancelled_by: { name: "Ada" } } }]);
    expect(String(leader.messages.at(-1)?.content)).toBe("Doing that instead.");
    // Not a Stop: the conversation was never stopped, no error was shown.
    const snapshot = await p.run.snapshot();
    expect(snapshot.notices.map((n) => n.code)).toEqual([]);
    const [rec] = interventions(p, kit.convId);
    expect([rec!.envelope.type, meta(rec!).strategy, rec!.envelope.author?.name]).toEqual(["control", "interrupt", "Ada"]);
  });

  it("cancels a sub-agent's call in flight, and the agent reads the message at its next call and keeps working", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId === null) return hasCalled(call, "create_sub_agent") ? { content: "Delegated." } : { tool_calls: [create("researcher", "Survey")] };
      if (userTexts(call).some((t) => t.includes("Look at src only"))) return report("Looked at src.");
      return { hang: true, partial: "scanning everything" };
    });
    const p = kit.start();
    await p.run.postUserMessage("Go", ADA);
    const inFlight = await kit.model.waitFor((c) => c.agentId === 1);
    const sent = await p.run.personToAgent(1, "Look at src only", BO, "interrupt");
    expect(sent.intervention?.cancelled_call).toBe(true);
    expect(inFlight.signal?.aborted).toBe(true);
    await settled(p);
    const messages = (await agentMessages(p, kit.convId, 1)).messages;
    expect(messages.filter((m) => m.metadata?.cancelled).map((m) => [m.content, m.metadata?.cancelled_for])).toEqual([["scanning everything", "interrupt"]]);
    const { agents } = await filesOf(p, kit.convId);
    expect(agents[0]!.status).toBe("completed");
  });
});

describe("queue, withdraw and reorder", () => {
  it("holds queued messages until the work is over, then answers each as a request of its own, in the order people set, without the withdrawn one", async () => {
    const held = gate();
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId !== null) {
        await held.wait;
        return report("Done surveying.");
      }
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Survey")] };
      return { content: `answered: ${text(lastMessage(call)).slice(0, 40)}` };
    });
    const p = kit.start();
    await p.run.postUserMessage("Survey the project", ADA);
    await kit.model.waitFor((c) => c.agentId === 1);
    const q1 = await p.run.postUserMessage("first queued", ADA, "queue");
    const q2 = await p.run.postUserMessage("second queued", BO, "queue");
    const q3 = await p.run.postUserMessage("third queued", ADA, "queue");
    const ids = [q1, q2, q3].map((q) => q.intervention!.queue_id!);
    expect((await p.run.queued()).map((q) => q.content)).toEqual(["first queued", "second queued", "third queued"]);
    expect((await p.run.snapshot()).queued?.map((q) => q.id)).toEqual(ids);
    await expect(p.run.reorderQueued([ids[0]!, ids[1]!], BO)).rejects.toMatchObject({ code: "conflict" });
    await p.run.reorderQueued([ids[2]!, ids[1]!, ids[0]!], BO);
    await p.run.withdrawQueued(ids[1]!, ADA);
    await expect(p.run.withdrawQueued(ids[1]!, ADA)).rejects.toMatchObject({ code: "not_found" });
    // Nothing queued reached a model while the work went on.
    expect(kit.model.calls.some((c) => userTexts(c).some((t) => t.includes("queued")))).toBe(false);
    held.open();
    await settled(p);
    const leaderCalls = kit.model.callsOf(null).map((c) => text(lastMessage(c)));
    const after = leaderCalls.slice(leaderCalls.findIndex((t) => t.includes("的任务完成汇报")));
    expect(after.filter((t) => t.includes("queued"))).toEqual(["[Ada] third queued", "[Ada] first queued"]);
    expect(await p.run.queued()).toEqual([]);
    // Each released message answers in the trace its queue envelope started.
    const { leader } = await filesOf(p, kit.convId);
    const answerTo = (s: string) => leader.messages.find((m) => m.role === "assistant" && String(m.content).includes(s))?.metadata?.trace_id;
    expect([answerTo("third queued"), answerTo("first queued")]).toEqual([q3.trace_id, q1.trace_id]);
    const kinds = interventions(p, kit.convId).map((r) => [r.envelope.type, meta(r).kind, meta(r).strategy ?? null, r.envelope.author?.name, r.status]);
    expect(kinds).toEqual([
      ["request", "message", "queue", "Ada", "queued"],
      ["request", "message", "queue", "Bo", "queued"],
      ["request", "message", "queue", "Ada", "queued"],
      ["control", "reorder", null, "Bo", "ok"],
      ["control", "withdraw_queued", null, "Ada", "ok"],
    ]);
  });

  it("withdraws the task an agent works on: its call is cancelled, its words kept, it is told and stops, and the leader is told", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return { hang: true, partial: "half a draft" };
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("technical-writer", "Write the guide")] };
      return { content: "Noted." };
    });
    const p = kit.start();
    await p.run.postUserMessage("Write a guide", ADA);
    const inFlight = await kit.model.waitFor((c) => c.agentId === 1);
    const { task_id } = await p.run.withdrawTask(1, BO);
    expect(task_id).toBe("task_001");
    expect(inFlight.signal?.aborted).toBe(true);
    await settled(p);
    const { agents, leader } = await filesOf(p, kit.convId);
    expect(agents[0]!.status).toBe("idle");
    expect(kit.model.callsOf(1)).toHaveLength(1);
    const messages = (await agentMessages(p, kit.convId, 1)).messages;
    expect(messages.filter((m) => m.metadata?.cancelled).map((m) => [m.content, m.metadata?.cancelled_for])).toEqual([["half a draft", "withdraw"]]);
    expect(String(messages.at(-1)?.content)).toMatch(/^来自 Bo 的消息\nid: \S+\n[\s\S]*The task task_001 was withdrawn by Bo\./);
    expect(leader.messages.some((m) => String(m.content).includes("Bo withdrew task task_001 from"))).toBe(true);
    await expect(p.run.withdrawTask(1, BO)).rejects.toMatchObject({ code: "conflict" });
    const [rec] = interventions(p, kit.convId);
    expect([rec!.envelope.type, meta(rec!).kind, meta(rec!).task_id, rec!.envelope.author?.name]).toEqual(["control", "withdraw_task", "task_001", "Bo"]);
  });
});

describe("withdrawing the task of a waiting agent", () => {
  it("answers what it waits for as withdrawn, tells it, and stops it without another model call", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return callTool("ask_master", { question: "Which folder?" });
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Survey")] };
      return { content: "Noted." };
    });
    const p = kit.start();
    await p.run.postUserMessage("Survey", ADA);
    await p.when((e) => e.type === "agent" && e.agent.metadata.status === "waiting");
    await p.run.withdrawTask(1, ADA);
    await settled(p);
    const { agents } = await filesOf(p, kit.convId);
    expect([agents[0]!.status, agents[0]!.pending_tool_calls]).toEqual(["idle", []]);
    expect(kit.model.callsOf(1)).toHaveLength(1);
    const messages = (await agentMessages(p, kit.convId, 1)).messages;
    expect(messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)))).toEqual([{ error: "withdrawn: Ada withdrew the task" }]);
    expect((await p.run.snapshot()).questions).toEqual([]);
  });
});

describe("after a restart", () => {
  it("keeps the queue through a crash and takes it up once the work is over", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return { hang: true };
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Survey")] };
      return { content: `answered: ${text(lastMessage(call))}` };
    });
    const first = kit.start();
    await first.run.postUserMessage("Survey", ADA);
    await kit.model.waitFor((c) => c.agentId === 1);
    await first.run.postUserMessage("after the survey", BO, "queue");
    await first.run.durable();
    first.storage.crash();
    // The new process: the agent's task is withdrawn, so nothing runs but the queue.
    kit.model.script = (call) => (call.agentId !== null ? { content: "stopping" } : { content: `answered: ${text(lastMessage(call))}` });
    const second = kit.start();
    expect((await second.run.queued()).map((q) => q.content)).toEqual(["after the survey"]);
    await second.run.resume();
    await second.run.withdrawTask(1, ADA);
    await settled(second);
    expect(await second.run.queued()).toEqual([]);
    expect(kit.model.callsOf(null).some((c) => text(lastMessage(c)) === "[Bo] after the survey")).toBe(true);
  });
});

describe("new task", () => {
  it("starts a new trace beside the running one: the leader answers it apart, and its agents and reports stay in it", async () => {
    const held = gate();
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId === 1 && !hasCalled(call, "list_files")) {
        // Ada's agent reads the project only once Bo's request has its agent: its audit must stay in Ada's trace.
        await kit.model.waitFor((c) => c.agentId === 2);
        return callTool("list_files", { path: "." });
      }
      if (call.agentId !== null) return report(`report of agent ${call.agentId}`);
      const last = text(lastMessage(call));
      if (last === "[Ada] Review the code") {
        await held.wait;
        return { tool_calls: [create("code-reviewer", "Review src")] };
      }
      if (last === "[Bo] Write release notes") return { tool_calls: [create("technical-writer", "Draft the notes")] };
      return { content: "OK." };
    });
    const p = kit.start();
    const one = await p.run.postUserMessage("Review the code", ADA);
    await kit.model.waitFor((c) => c.agentId === null);
    const two = await p.run.postUserMessage("Write release notes", BO, "new_task");
    expect(two.intervention?.strategy).toBe("new_task");
    expect(two.trace_id).not.toBe(one.trace_id);
    held.open();
    await settled(p);
    const { agents } = await filesOf(p, kit.convId);
    const traceOf = (role: string) => (agents.find((a) => a.role_id === role) as { trace_id?: string }).trace_id;
    expect([traceOf("code-reviewer"), traceOf("technical-writer")]).toEqual([one.trace_id, two.trace_id]);
    // Bo's request never rode in the same model call as Ada's first one.
    const mixed = kit.model.callsOf(null).filter((c) => text(lastMessage(c)) === "[Bo] Write release notes");
    expect(mixed).toHaveLength(1);
    const records = timelineOf(p, kit.convId);
    const inTrace = (trace: string) => records.filter((r) => r.trace_id === trace);
    const partiesOf = (trace: string) => new Set(inTrace(trace).flatMap((r) => [r.from_agent, r.to_agent]).filter((x) => x.startsWith("agent:")));
    expect([...partiesOf(one.trace_id)]).toEqual(["agent:1"]);
    expect([...partiesOf(two.trace_id)]).toEqual(["agent:2"]);
    expect(inTrace(two.trace_id).filter((r) => r.action === "report").map((r) => r.from_agent)).toEqual(["agent:2"]);
    expect(records.filter((r) => r.from_agent === "agent:1" && r.action !== "report").map((r) => r.trace_id)).toContain(one.trace_id);
    const started = inTrace(two.trace_id).find((r) => r.action === "intervention")!;
    expect([started.envelope.type, started.parent_turn_id, meta(started).strategy, meta(started).beside_trace_id, started.envelope.author?.name]).toEqual(["request", null, "new_task", one.trace_id, "Bo"]);
    await expect(p.run.personToAgent(1, "x", BO, "new_task")).rejects.toMatchObject({ code: "validation_failed" });
  });
});

describe("the pure rules", () => {
  const msg = (content: string, trace?: string, strategy?: string) => ({ role: "user" as const, content, metadata: { ...(trace ? { trace_id: trace } : {}), ...(strategy ? { intervention: { strategy } } : {}) } });
  it("takes one request's inbox per turn, with steers and untraced messages always", () => {
    const inbox = [msg("r1", "trace_a"), msg("new", "trace_b", "new_task"), msg("steer", "trace_a", "steer"), msg("old")];
    const atRest = inboxTurn(inbox, undefined);
    expect([atRest.take.map((m) => m.content), atRest.keep.map((m) => m.content), atRest.trace]).toEqual([["r1", "steer", "old"], ["new"], "trace_a"]);
    const midB = inboxTurn(inbox, "trace_b");
    expect([midB.take.map((m) => m.content), midB.keep.map((m) => m.content)]).toEqual([["new", "steer", "old"], ["r1"]]);
  });
  it("reorders the queue only by an order naming each queued id once", () => {
    const q = (id: string): QueuedMessage => ({ id, content: id, agent_id: null, created_at: "", trace_id: "trace_x", turn_id: "turn_x" });
    const queued = [q("q_aaaa"), q("q_bbbb")];
    expect(reorderQueue(queued, ["q_bbbb", "q_aaaa"])).toMatchObject({ ok: true, queued: [{ id: "q_bbbb" }, { id: "q_aaaa" }] });
    expect(reorderQueue(queued, ["q_bbbb"]).ok).toBe(false);
    expect(reorderQueue(queued, ["q_bbbb", "q_bbbb"]).ok).toBe(false);
    expect(reorderQueue(queued, ["q_bbbb", "q_cccc"]).ok).toBe(false);
  });
});
