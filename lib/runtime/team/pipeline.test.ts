/**
 * The one dispatch pipeline, driven with a provider written here and nowhere else (the engine
 * knows nothing of it: it is handed to the run like the composition root hands the built-in
 * ones). Its tools pass every step in order — offered, token, the tool's own policy, approval,
 * journalled once, execute, shaped, recorded — and a crash inside one is never run again, or is
 * looked up, run again or cleaned up after as the tool's own journal options say. The
 * loops' tagged next steps are read on the way. Over the in-memory storage (test/support/team-kit.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@/lib/tools";
import { builtInToolProviders } from "@/lib/runtime/tool-providers";
import type { Message } from "@/lib/store";
import { callTool, hasCalled, lastResultOf, reportsSeen, type ModelCall, type Reply } from "@/test/support/scripted-model";
import { agentMessages, filesOf, journalOf, settled, TeamKit, teamEnvironment, timelineOf } from "@/test/support/team-kit";
import { toolFrom, type TeamTool, type ToolProvider, type ToolProviders } from "./tool-kit";
import { errorResult } from "./types";

const env = teamEnvironment();
afterAll(() => env.close());

/** A provider of three tools, counting what ran: `shout` (runs something: a person approves it), `tally` (internal), `launch` (needs project:execute). */
function throwawayProvider(hooks: { tally?: (key: string) => Promise<void>; tallyJournal?: TeamTool["journal"] } = {}) {
  const ran: string[] = [];
  const SHOUT = defineTool({ name: "shout", audience: "agent", readOnly: false, effect: "execute", description: "Shouts a text back, many times.", args: z.object({ text: z.string().min(1), times: z.number().int().min(1).max(10_000) }) });
  const TALLY = defineTool({ name: "tally", audience: "agent", readOnly: false, effect: "internal", description: "Counts one.", args: z.object({}) });
  const LAUNCH = defineTool({ name: "launch", audience: "agent", readOnly: false, effect: "execute", description: "Launches.", args: z.object({}) });
  const tools: TeamTool[] = [
    toolFrom(SHOUT, {
      scope: "project:read",
      approval: true,
      authorize: async ({ s, caller }, args) => {
        if (args.text !== "forbidden") return {};
        await s.emitNow({ type: "event", from: "system", to: `agent:${caller.agentId}`, payload: { tool: "shout", reason: "not that word" }, action: "shout", resource: null, status: "refused" });
        return { refused: errorResult("not that word") };
      },
      execute: async (_ctx, args) => {
        ran.push(`shout ${args.text}`);
        return JSON.stringify({ shouted: Array.from({ length: args.times }, () => args.text.toUpperCase()) });
      },
    }),
    toolFrom(TALLY, {
      scope: "message:leader",
      approval: true,
      ...(hooks.tallyJournal !== undefined ? { journal: hooks.tallyJournal } : {}),
      execute: async ({ key }) => {
        ran.push("tally");
        await hooks.tally?.(key);
        return JSON.stringify({ counted: ran.filter((r) => r === "tally").length });
      },
    }),
    toolFrom(LAUNCH, {
      scope: "project:execute",
      approval: true,
      execute: async () => {
        ran.push("launch");
        return "{}";
      },
    }),
  ];
  const provider: ToolProvider = {
    name: "throwaway",
    offer: async ({ caller }) => ({ tools: caller.agentId === null ? [] : tools, hint: caller.agentId === null ? "" : "\nYou can shout." }),
    resolve: async (name, { caller }) => (caller.agentId === null ? undefined : tools.find((t) => t.name === name)),
  };
  const built = builtInToolProviders();
  const providers: ToolProviders = { leader: built.leader, agent: [...built.agent, provider] };
  return { ran, providers };
}

const create = (task: string) => ({ name: "create_sub_agent", arguments: { role_id: "researcher", task } });
const resultsOf = (messages: readonly Message[]) => new Map(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, String(m.content)]));

/** The leader delegates once, waits for the report, and sums up. */
function leaderScript(call: ModelCall): Reply {
  if (!hasCalled(call, "create_sub_agent")) return { tool_calls: [create("Shout at things")] };
  return { content: reportsSeen(call) ? "SUMMARY: shouted" : "waiting" };
}

describe("the dispatch pipeline", () => {
  it("runs a new provider's tools through offered → token → policy → approval → journal → execute → shape → record", async () => {
    const { ran, providers } = throwawayProvider();
    const kit = new TeamKit(
      env,
      (call) => {
        if (call.agentId === null) return leaderScript(call);
        if (!hasCalled(call, "shout")) {
          return {
            tool_calls: [
              { id: "c_unknown", name: "constructor", arguments: {} },
              { id: "c_badargs", name: "shout", arguments: { text: "" } },
              { id: "c_launch", name: "launch", arguments: {} },
              { id: "c_forbidden", name: "shout", arguments: { text: "forbidden", times: 1 } },
              { id: "c_shout", name: "shout", arguments: { text: "hello", times: 2000 } },
            ],
          };
        }
        return callTool("report_to_leader", { summary: `shouted ${String((lastResultOf(call, "shout")?.shouted as unknown[] | undefined)?.length ?? 0)}` });
      },
      { tools: providers, limits: { toolOutputMax: 4000 } },
    );
    const p = kit.start();
    await p.run.postUserMessage("Shout");
    await settled(p);

    // 1. Offered: the agent is shown the provider's tools (their JSON Schema generated from zod) and its hint; the leader is not.
    const agentCall = kit.model.callsOf(1)[0]!;
    expect(agentCall.tools).toEqual(expect.arrayContaining(["report_to_leader", "read_file", "shout", "tally", "launch"]));
    expect(String(agentCall.messages[0]!.content)).toContain("You can shout.");
    expect(kit.model.callsOf(null)[0]!.tools).not.toContain("shout");

    // Waiting for a person: the approval asked for `shout hello`, after the refusals; nothing ran yet.
    let agent = (await filesOf(p, kit.convId)).agents[0]!;
    expect(agent.status).toBe("waiting");
    expect(agent.pending_tool_calls).toEqual([expect.objectContaining({ tool_call_id: "c_shout", tool_name: "shout", kind: "approval", effect: "execute" })]);
    expect(ran).toEqual([]);
    expect(p.run.lastSteps().agent(1)).toEqual({ type: "wait_for_answer" });
    expect(p.run.lastSteps().leader).toEqual({ type: "wait_for_reports" });
    let results = resultsOf((await agentMessages(p, kit.convId, 1)).messages);
    expect(JSON.parse(results.get("c_unknown")!)).toEqual({ error: "unknown tool constructor" });
    expect(JSON.parse(results.get("c_badargs")!).error).toMatch(/text/);
    expect(JSON.parse(results.get("c_launch")!).error).toMatch(/^permission denied: launch needs project:execute/);
    expect(JSON.parse(results.get("c_forbidden")!)).toEqual({ error: "not that word" });
    expect(results.has("c_shout")).toBe(false);

    await p.run.decideApproval(1, { tool_call_id: "c_shout", decision: "approve", by: "User" });
    await settled(p);

    // Executed once, journalled under its key; its big result shaped to the size limit as valid JSON; recorded and reported.
    expect(ran).toEqual(["shout hello"]);
    expect(journalOf(p, kit.convId).filter((l) => l.key === "agent:1:c_shout").map((l) => l.status)).toEqual(["started", "done"]);
    // Only what is not a read and was not refused is journalled.
    const keys = journalOf(p, kit.convId).map((l) => l.key);
    for (const refused of ["agent:1:c_unknown", "agent:1:c_badargs", "agent:1:c_launch", "agent:1:c_forbidden"]) expect(keys).not.toContain(refused);
    results = resultsOf((await agentMessages(p, kit.convId, 1)).messages);
    const shouted = results.get("c_shout")!;
    expect(shouted.length).toBeLessThanOrEqual(4000);
    const parsed = JSON.parse(shouted) as { shouted: string[] };
    expect(parsed.shouted[0]).toBe("HELLO");
    expect(parsed.shouted.length).toBeLessThan(2000);
    const { leader } = await filesOf(p, kit.convId);
    expect(String(leader.messages.at(-1)!.content)).toBe("SUMMARY: shouted");
    expect(p.run.lastSteps().agent(1)).toEqual({ type: "done" });
    expect(p.run.lastSteps().leader).toEqual({ type: "done" });

    // The timeline: the token's refusal, the tool's own, the approval asked and given, in that order.
    const records = timelineOf(p, kit.convId).filter((r) => ["launch", "shout", "approval"].includes(r.action));
    expect(records.map((r) => [r.action, r.status, r.envelope.type])).toEqual([
      ["launch", "refused", "event"],
      ["shout", "refused", "event"],
      ["approval", "ok", "request"],
      ["approval", "ok", "reply"],
    ]);
    expect(records[0]!.envelope.payload).toMatchObject({ code: "missing_scope", scope: "project:execute" });
    agent = (await filesOf(p, kit.convId)).agents[0]!;
    expect(agent.status).toBe("completed");
  });

  it("never runs a journalled call of a new provider again after a crash inside it", async () => {
    const after = await crashInsideTally({});
    expect(after.journalAtCrash).toEqual(["started"]);
    expect(after.ran).toEqual(["tally"]);
    expect((JSON.parse(after.result) as { error: string }).error).toMatch(/^interrupted: the server stopped while tally was running; it was not run again/);
    expect(after.timeline).toEqual(["interrupted"]);
    expect(after.leaderLast).toBe("SUMMARY: shouted");
  });

  /** Runs the tally script, crashes inside the first `tally` call, restarts; what the second process sees. */
  async function crashInsideTally(hooks: { tallyJournal?: TeamTool["journal"]; beforeCrash?: (key: string) => void }) {
    let reached: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (reached = resolve));
    let crashed = false;
    const { ran, providers } = throwawayProvider({
      tallyJournal: hooks.tallyJournal,
      tally: (key) => {
        if (crashed) return Promise.resolve();
        crashed = true;
        hooks.beforeCrash?.(key);
        reached();
        return new Promise(() => undefined);
      },
    });
    const script = (call: ModelCall): Reply => {
      if (call.agentId === null) return leaderScript(call);
      if (!hasCalled(call, "tally")) return callTool("tally", {}, "c_tally");
      return callTool("report_to_leader", { summary: `tally said ${JSON.stringify(lastResultOf(call, "tally"))}` });
    };
    const kit = new TeamKit(env, script, { tools: providers });
    const first = kit.start();
    await first.run.postUserMessage("Count");
    await inside;
    await first.storage.durability(kit.convId)!.whenDurable();
    first.storage.crash();
    first.run.release();
    const journalAtCrash = journalOf(first, kit.convId).filter((l) => l.key === "agent:1:c_tally").map((l) => l.status);
    const second = kit.start();
    await second.run.resume();
    await settled(second);
    const result = resultsOf((await agentMessages(second, kit.convId, 1)).messages).get("c_tally")!;
    return {
      ran,
      result,
      journalAtCrash,
      timeline: timelineOf(second, kit.convId).filter((r) => r.action === "tally").map((r) => r.status),
      journal: journalOf(second, kit.convId).filter((l) => l.key === "agent:1:c_tally").map((l) => l.status),
      leaderLast: String((await filesOf(second, kit.convId)).leader.messages.at(-1)!.content),
    };
  }

  it("after a crash inside a call, cleans up with the tool's own `interrupted` before reporting it interrupted", async () => {
    const cleaned: string[] = [];
    const after = await crashInsideTally({ tallyJournal: { interrupted: async (key) => void cleaned.push(key) } });
    expect(cleaned).toEqual(["agent:1:c_tally"]);
    expect(after.ran).toEqual(["tally"]);
    expect((JSON.parse(after.result) as { error: string }).error).toMatch(/^interrupted: the server stopped while tally was running/);
    expect(after.timeline).toEqual(["interrupted"]);
  });

  it("after a crash inside an internal call, gives back what the tool's own `outcome` finds, and runs it again when it finds nothing", async () => {
    /** The tool's own record of what took effect (as an agent's key on the change it made), fresh per run. */
    const lookedUp = (happened: Set<string>): TeamTool["journal"] => ({ internal: true, outcome: async (key) => (happened.has(key) ? JSON.stringify({ counted: 1, found: true }) : null) });
    const happened = new Set<string>();
    const found = await crashInsideTally({ tallyJournal: lookedUp(happened), beforeCrash: (key) => happened.add(key) });
    expect(found.ran).toEqual(["tally"]);
    expect(JSON.parse(found.result)).toEqual({ counted: 1, found: true });
    expect(found.timeline).not.toContain("interrupted");
    expect(found.journal).toEqual(["started", "done"]);

    const lost = await crashInsideTally({ tallyJournal: lookedUp(new Set()) });
    expect(lost.ran).toEqual(["tally", "tally"]);
    expect(JSON.parse(lost.result)).toEqual({ counted: 2 });
    expect(lost.timeline).not.toContain("interrupted");
  });
});
