/**
 * The team at work, without a server: a TeamRun over the in-memory storage and bus with a
 * scripted model (test/support/team-kit.ts). The leader delegates to two agents and sums up
 * their reports; an agent's `ask_master` is answered by the leader, then by a person through the
 * run's API; an agent messages a teammate. Each script waits on the engine's own signals (its
 * model calls, the bus's events), never on time, so every run takes the same path.
 */
import { existsSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError } from "@/lib/contracts/errors";
import type { RuntimeEvent } from "@/lib/contracts/events";
import type { Message } from "@/lib/store";
import { callTool, hasCalled, lastMessage, lastResultOf, reportsSeen, type ModelCall, type Reply } from "@/test/support/scripted-model";
import { agentMessages, agentReached, filesOf, settled, TeamKit, teamEnvironment, timelineOf } from "@/test/support/team-kit";

const env = teamEnvironment();
afterAll(() => env.close());

const create = (role_id: string, task: string) => ({ name: "create_sub_agent", arguments: { role_id, task } });
const report = (summary: string): Reply => callTool("report_to_leader", { summary });
const contents = (messages: readonly Message[]) => messages.map((m) => String(m.content ?? ""));

/** The id of the question the leader was just relayed, if its last message is one. */
function relayedQuestion(call: ModelCall): string | null {
  const last = lastMessage(call);
  return last.role === "user" ? (/^来自 Researcher_1 的消息\nid: (ask_\w+)\n/.exec(String(last.content))?.[1] ?? null) : null;
}

/** An agent that asks which theme to use, then reports the answer it got. */
function askingAgent(call: ModelCall): Reply {
  if (!hasCalled(call, "ask_master")) return callTool("ask_master", { question: "Which theme should I use?" });
  return report(`Chose: ${String(lastResultOf(call, "ask_master")?.answer)}`);
}

describe("a team run from in-memory parts", () => {
  it("delegates to two agents whose reports wake the leader, which sums up: seed-format files, statuses, timeline and bus events", async () => {
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId === null) {
        if (!hasCalled(call, "create_sub_agent")) return { content: "Assembling a team.", tool_calls: [create("researcher", "Map the project"), create("code-reviewer", "Review src")] };
        // The leader's turn after delegating lasts until both agents have reported (and
        // completed), so both reports reach it together in its next turn.
        if (reportsSeen(call) === 0) {
          await kit.process.when(agentReached(1, "completed"));
          await kit.process.when(agentReached(2, "completed"));
          return { content: "waiting for reports" };
        }
        return { content: "SUMMARY: both reported", reasoning: "counting reports" };
      }
      // The agents report only once the leader's second turn has begun.
      await kit.model.waitFor((c) => c.agentId === null && hasCalled(c, "create_sub_agent"));
      return report(`done by agent ${call.agentId}`);
    });
    const p = kit.start();
    const { trace_id } = await p.run.postUserMessage("Look at the project from two angles");
    await settled(p);

    // Model calls: the leader three times (seeing 0, 0 and 2 reports), each agent once, with its own tools.
    expect(kit.model.callsOf(null).map(reportsSeen)).toEqual([0, 0, 2]);
    expect(kit.model.callsOf(1)).toHaveLength(1);
    expect(kit.model.callsOf(2)).toHaveLength(1);
    expect(kit.model.callsOf(null)[0]!.tools).toEqual(expect.arrayContaining(["create_sub_agent", "send_message_to_agent", "answer_question"]));
    expect(kit.model.callsOf(1)[0]!.tools).toEqual(expect.arrayContaining(["report_to_leader", "ask_master", "read_file"]));
    expect(kit.model.callsOf(1)[0]!.tools).not.toContain("create_sub_agent");

    const { conversation, leader, agents } = await filesOf(p, kit.convId);
    expect(conversation).toMatchObject({ agent_count: 2, agent_ids: [1, 2], phase: "IDLE" });
    expect(agents.map((a) => [a.agent_id, a.display_name, a.status, a.pending_messages, a.pending_tool_calls])).toEqual([
      [1, "Researcher_1", "completed", [], []],
      [2, "Code Reviewer_2", "completed", [], []],
    ]);
    // The leader's messages.json: the request, the delegation and its results, the reports in the seed's format, the summary.
    expect(leader.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant", "user", "user", "assistant"]);
    expect(leader.messages[0]).toMatchObject({ content: "Look at the project from two angles", metadata: { message_source: "user", starts_work: true, trace_id } });
    expect(leader.messages[1]!.tool_calls?.map((c) => c.function.name)).toEqual(["create_sub_agent", "create_sub_agent"]);
    expect(JSON.parse(String(leader.messages[2]!.content))).toEqual({ agent_id: 1, display_name: "Researcher_1", task_id: "task_001" });
    expect(JSON.parse(String(leader.messages[3]!.content))).toEqual({ agent_id: 2, display_name: "Code Reviewer_2", task_id: "task_002" });
    expect(leader.messages[5]!.content).toBe("来自 Researcher_1 的任务完成汇报\nid: out_r_001\n\n\n\ndone by agent 1\n\n");
    expect(leader.messages[6]!.content).toBe("来自 Code Reviewer_2 的任务完成汇报\nid: out_cr_001\n\n\n\ndone by agent 2\n\n");
    for (const [i, agentId] of [[5, 1], [6, 2]] as const) {
      expect(leader.messages[i]!.metadata).toMatchObject({ message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: agentId, trace_id });
    }
    expect(leader.messages[7]).toMatchObject({ content: "SUMMARY: both reported", reasoning_content: "counting reports" });
    // Each agent's messages.json: its system prompt, its task in the seed's format, its report and the report's result.
    const researcher = (await agentMessages(p, kit.convId, 1)).messages;
    expect(researcher.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(researcher[1]).toMatchObject({ content: "来自 Team Leader 的任务发布\nid: task_001\n\n\n\nMap the project\n\n", metadata: { message_source: "leader" } });
    expect(JSON.parse(String(researcher[3]!.content))).toEqual({ delivered: true, report_id: "out_r_001" });
    expect((await agentMessages(p, kit.convId, 2)).messages[1]!.content).toBe("来自 Team Leader 的任务发布\nid: task_002\n\n\n\nReview src\n\n");
    // Usage per party: the leader's three calls, one per agent.
    const stats = leader.token_statistics as { by_agent: Record<string, { calls: number }> };
    expect([stats.by_agent.leader?.calls, stats.by_agent.agent_1?.calls, stats.by_agent.agent_2?.calls]).toEqual([3, 1, 1]);

    // The timeline: one trace; each report a reply to its task; every record in the schema.
    const timeline = timelineOf(p, kit.convId);
    expect(new Set(timeline.map((r) => r.trace_id))).toEqual(new Set([trace_id]));
    const flow = timeline.filter((r) => ["user_message", "create_sub_agent", "report", "leader_reply"].includes(r.action));
    expect(flow.map((r) => [r.action, r.envelope.type, r.from_agent, r.to_agent])).toEqual([
      ["user_message", "request", "user", "leader"],
      ["create_sub_agent", "request", "leader", "agent:1"],
      ["create_sub_agent", "request", "leader", "agent:2"],
      ["report", "reply", "agent:1", "leader"],
      ["report", "reply", "agent:2", "leader"],
      ["leader_reply", "reply", "leader", "user"],
      ["leader_reply", "reply", "leader", "user"],
    ]);
    const [, task1, task2, report1, report2] = flow;
    expect([report1!.parent_turn_id, report2!.parent_turn_id]).toEqual([task1!.turn_id, task2!.turn_id]);
    expect(report1!.envelope.payload).toMatchObject({ report_id: "out_r_001", status: "completed" });

    // The bus: every timeline record (in order), each saved message, the agents' statuses, the
    // streamed summary, and the phase back to IDLE.
    const of = <T extends RuntimeEvent["type"]>(type: T) => p.events.filter((e): e is Extract<RuntimeEvent, { type: T }> => e.type === type);
    expect(of("timeline").map((e) => e.record)).toEqual(timeline);
    expect(of("message").filter((e) => e.agent_id === null).map((e) => e.message.message_id)).toEqual(leader.messages.map((m) => m.message_id));
    expect(of("agent").filter((e) => e.agent.metadata.agent_id === 1).map((e) => e.agent.metadata.status).at(-1)).toBe("completed");
    expect(of("delta")).toContainEqual({ type: "delta", agent_id: null, kind: "content", text: "SUMMARY: both reported" });
    expect(of("leader_busy").map((e) => e.busy).at(-1)).toBe(false);
    expect(of("phase").map((e) => e.phase).at(-1)).toBe("IDLE");
    // Nothing went to disk: the data folder the engine was given was never made.
    expect(existsSync(env.dataRoot)).toBe(false);
  });

  it("an agent's ask_master is answered by the leader, and the agent goes on with the answer", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return askingAgent(call);
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Pick a theme")] };
      const question = relayedQuestion(call);
      if (question) return callTool("answer_question", { question_id: question, answer: "Use the blue theme" });
      return { content: reportsSeen(call) ? "SUMMARY: the researcher chose" : "ok" };
    });
    const p = kit.start();
    await p.run.postUserMessage("Pick a theme");
    await settled(p);

    const { leader, agents } = await filesOf(p, kit.convId);
    expect(agents[0]).toMatchObject({ status: "completed", pending_tool_calls: [] });
    // The question reached the leader in the seed's format; its answer reached the agent as the tool's result.
    const question = leader.messages.find((m) => String(m.content).startsWith("来自 Researcher_1 的消息"));
    expect(question).toMatchObject({ role: "user", content: "来自 Researcher_1 的消息\nid: ask_r_001\n\n\n\nWhich theme should I use?\n\n", metadata: { message_source: "sub_agent", agent_id: 1 } });
    const answered = leader.messages.find((m) => m.role === "tool" && String(m.content).includes("answered"));
    expect(JSON.parse(String(answered!.content))).toEqual({ answered: true, agent_id: 1 });
    const agent = (await agentMessages(p, kit.convId, 1)).messages;
    expect(agent.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)))).toEqual([{ answer: "Use the blue theme", answered_by: "Team Leader" }, { delivered: true, report_id: "out_r_001" }]);
    expect(contents(leader.messages)).toContain("来自 Researcher_1 的任务完成汇报\nid: out_r_001\n\n\n\nChose: Use the blue theme\n\n");
    expect(contents(leader.messages).at(-1)).toBe("SUMMARY: the researcher chose");
    // Asked once, answered once: two calls of the agent.
    expect(kit.model.callsOf(1)).toHaveLength(2);
    const timeline = timelineOf(p, kit.convId);
    expect(timeline.filter((r) => r.action === "ask_master").map((r) => [r.envelope.type, r.from_agent, r.to_agent, r.resource])).toEqual([["request", "agent:1", "leader", "question:ask_r_001"]]);
    expect(timeline.filter((r) => r.action === "answer_question").map((r) => [r.envelope.type, r.from_agent, r.to_agent])).toEqual([["reply", "leader", "agent:1"]]);
    expect(p.events.filter((e) => e.type === "question" || e.type === "question_answered")).toMatchObject([
      { type: "question", question: { question_id: "ask_r_001", agent_id: 1, question: "Which theme should I use?" } },
      { type: "question_answered", question_id: "ask_r_001", answered_by: "Team Leader" },
    ]);
  });

  it("an agent's ask_master waits for a person, who answers through the run", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId !== null) return askingAgent(call);
      if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("researcher", "Pick a theme")] };
      if (relayedQuestion(call)) return { content: "Only the person can answer that; please answer in the agent's panel." };
      return { content: reportsSeen(call) ? "SUMMARY: the person chose" : "ok" };
    });
    const p = kit.start();
    await p.run.postUserMessage("Pick a theme");
    // Nothing runs while the question waits: the agent waits, the leader has answered what it could.
    await settled(p);
    const waiting = await p.run.snapshot();
    expect(waiting.questions).toMatchObject([{ question_id: "ask_r_001", agent_id: 1, display_name: "Researcher_1", question: "Which theme should I use?" }]);
    expect(waiting.agents[0]!.metadata).toMatchObject({ status: "waiting", pending_tool_calls: [{ tool_name: "ask_master", question_id: "ask_r_001" }] });
    expect(waiting.conversation.phase).toBe("WAITING");
    expect(kit.model.callsOf(1)).toHaveLength(1);

    await expect(p.run.answerQuestion("ask_r_999", "x", "User", 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(p.run.answerQuestion("ask_r_001", "x", "User", 2)).rejects.toBeInstanceOf(NotFoundError);
    expect(await p.run.answerQuestion("ask_r_001", "Green, please", "User", 1)).toEqual({ agent_id: 1 });
    await expect(p.run.answerQuestion("ask_r_001", "Red", "User", 1)).rejects.toBeInstanceOf(ConflictError);
    await settled(p);

    const { leader, agents } = await filesOf(p, kit.convId);
    expect(agents[0]).toMatchObject({ status: "completed", pending_tool_calls: [] });
    const answers = (await agentMessages(p, kit.convId, 1)).messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)));
    expect(answers[0]).toEqual({ answer: "Green, please", answered_by: "User" });
    expect(contents(leader.messages)).toContain("来自 Researcher_1 的任务完成汇报\nid: out_r_001\n\n\n\nChose: Green, please\n\n");
    expect(contents(leader.messages).at(-1)).toBe("SUMMARY: the person chose");
    // The leader never answered it.
    expect(kit.model.callsOf(null).some((c) => hasCalled(c, "answer_question"))).toBe(false);
    expect(timelineOf(p, kit.convId).filter((r) => r.action === "answer_question").map((r) => [r.from_agent, r.to_agent, r.envelope.payload.answer])).toEqual([["user", "agent:1", expect.anything()]]);
    expect((await p.run.snapshot()).questions).toEqual([]);
  });

  it("an agent messages a teammate, who reads it before its next step", async () => {
    const kit = new TeamKit(env, async (call) => {
      if (call.agentId === null) {
        // The reviewer is created first, so it exists when the researcher greets it.
        if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("code-reviewer", "Wait for the researcher"), create("researcher", "Tell the reviewer hello")] };
        return { content: reportsSeen(call) >= 2 ? "SUMMARY: they talked" : "waiting" };
      }
      if (call.agentId === 2) return hasCalled(call, "send_message") ? report("sent hello") : callTool("send_message", { agent_id: 1, content: "hello teammate" });
      const greeted = call.messages.some((m) => m.role === "user" && String(m.content).startsWith("来自 Researcher_2 的消息"));
      if (greeted) return report("got the hello");
      // The reviewer's first step lasts until the hello waits in its inbox.
      await kit.process.when((e) => e.type === "timeline" && e.record.action === "message");
      return callTool("list_files", { path: "." });
    });
    const p = kit.start();
    await p.run.postUserMessage("Say hello to each other");
    await settled(p);

    const reviewer = (await agentMessages(p, kit.convId, 1)).messages;
    const hello = reviewer.filter((m) => m.role === "user" && String(m.content).startsWith("来自 Researcher_2"));
    expect(hello).toMatchObject([{ content: "来自 Researcher_2 的消息\nid: msg_r_001\n\n\n\nhello teammate\n\n", metadata: { message_source: "sub_agent" } }]);
    // Delivered between its two steps: after its first step's tool result, before its second call.
    expect(reviewer.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user", "assistant", "tool"]);
    expect(kit.model.callsOf(1)).toHaveLength(2);
    const sent = (await agentMessages(p, kit.convId, 2)).messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(sent!.content))).toEqual({ delivered: true, message_id: "msg_r_001" });
    const { leader, agents } = await filesOf(p, kit.convId);
    expect(agents.map((a) => a.status)).toEqual(["completed", "completed"]);
    expect(contents(leader.messages)).toEqual(expect.arrayContaining(["来自 Code Reviewer_1 的任务完成汇报\nid: out_cr_001\n\n\n\ngot the hello\n\n", "来自 Researcher_2 的任务完成汇报\nid: out_r_001\n\n\n\nsent hello\n\n"]));
    expect(contents(leader.messages).at(-1)).toBe("SUMMARY: they talked");
    expect(timelineOf(p, kit.convId).filter((r) => r.action === "message").map((r) => [r.envelope.type, r.from_agent, r.to_agent, r.resource])).toEqual([["request", "agent:2", "agent:1", "agent:1"]]);
  });
});
