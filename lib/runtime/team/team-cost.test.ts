/**
 * Cost in a team run, without a server: each model call is counted under the model that answered
 * it (a fallback answering for the primary is its own model) at that model's prices for that
 * call, per agent, per model and in total, cached input tokens beside input; a call without
 * prices adds tokens only; the conversation's totals reach its metadata (for the list) in the
 * same change; the agent's view shows its share.
 */
import { afterAll, describe, expect, it } from "vitest";
import { callTool, hasCalled, reportsSeen, type ModelCall, type Reply } from "@/test/support/scripted-model";
import { filesOf, settled, TeamKit, teamEnvironment } from "@/test/support/team-kit";

const env = teamEnvironment();
afterAll(() => env.close());

const PRIMARY = { input: 2, cached_input: 0.5, output: 8 };
const FALLBACK = { input: 1, output: 4 };
const usage = (prompt: number, completion: number, cached = 0) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, cached_tokens: cached });

/** What the conversation's metadata said of its totals when the leader read the agent's report. */
let totalsAtReport: unknown;

function script(kit: () => TeamKit, call: ModelCall): Promise<Reply> | Reply {
  if (call.agentId === null) {
    if (reportsSeen(call) > 0 && totalsAtReport === undefined) {
      // Every call so far is in the list's copy already, the agent's (saved without a touch) included.
      return kit().process.storage.conversations.get(kit().convId).then((meta) => {
        totalsAtReport = meta.token_totals;
        return { content: "SUMMARY", usage: usage(300, 30), answered_by: { key: "offline", prices: null } };
      });
    }
    if (!hasCalled(call, "create_sub_agent")) {
      return { content: "Delegating.", tool_calls: [{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Map it" } }], usage: usage(1_000, 200, 400), answered_by: { key: "primary", prices: PRIMARY } };
    }
    // The last answer comes from the offline model, which has no prices.
    return { content: "SUMMARY", usage: usage(300, 30), answered_by: { key: "offline", prices: null } };
  }
  // The agent's model was down: its fallback answered, at the fallback's prices.
  return { ...callTool("report_to_leader", { summary: "mapped" }), usage: usage(2_000, 100, 1_000), answered_by: { key: "cheap", prices: FALLBACK } };
}

describe("cost per agent, per model and per conversation", () => {
  it("prices each call at the prices of the model that answered it, and keeps the totals in the conversation's metadata", async () => {
    const kit: TeamKit = new TeamKit(env, (call) => script(() => kit, call));
    const p = kit.start();
    await p.run.postUserMessage("Map the project");
    await settled(p);
    const { conversation, leader } = await filesOf(p, kit.convId);
    const stats = leader.token_statistics as Record<string, Record<string, Record<string, unknown>>>;
    // The leader's later calls (one before the report arrives, one after) are the offline model's.
    const offline = kit.model.callsOf(null).length - 1;
    expect(offline).toBeGreaterThanOrEqual(1);

    // Leader's first call: 600 × 2 + 400 × 0.5 + 200 × 8 = 3,000 per million = $0.003.
    // Agent's call at the fallback's prices: 2,000 × 1 + 100 × 4 = 2,400 per million = $0.0024.
    expect(stats.by_model).toMatchObject({
      primary: { prompt_tokens: 1_000, cached_tokens: 400, calls: 1, priced_calls: 1, cost_usd: 0.003 },
      cheap: { prompt_tokens: 2_000, cached_tokens: 1_000, calls: 1, priced_calls: 1, cost_usd: 0.0024 },
      offline: { prompt_tokens: 300 * offline, calls: offline, priced_calls: 0 },
    });
    expect(stats.by_model?.offline).not.toHaveProperty("cost_usd");
    expect(stats.by_agent).toMatchObject({ leader: { calls: 1 + offline, priced_calls: 1, cost_usd: 0.003 }, agent_1: { calls: 1, cost_usd: 0.0024, cached_tokens: 1_000 } });
    expect(stats.total).toMatchObject({ prompt_tokens: 3_000 + 300 * offline, cached_tokens: 1_400, calls: 2 + offline, priced_calls: 2, cost_usd: 0.0054 });

    // The list's copy in metadata.json, made with the same changes.
    const completion = 300 + 30 * offline;
    expect(conversation.token_totals).toEqual({ prompt_tokens: 3_000 + 300 * offline, cached_tokens: 1_400, completion_tokens: completion, total_tokens: 3_000 + 300 * offline + completion, calls: 2 + offline, priced_calls: 2, cost_usd: 0.0054 });

    expect(totalsAtReport).toMatchObject({ calls: kit.model.answered.length - 1, priced_calls: 2, cost_usd: 0.0054 });

    const snapshot = await p.run.snapshot();
    expect(snapshot.agents[0]?.tokens).toEqual({ prompt_tokens: 2_000, cached_tokens: 1_000, completion_tokens: 100, total_tokens: 2_100, calls: 1, priced_calls: 1, cost_usd: 0.0024 });
  });

  it("shows tokens only when no model had prices: null cost, no cost in the totals", async () => {
    const kit = new TeamKit(env, (call) => {
      if (call.agentId === null && !hasCalled(call, "create_sub_agent")) return { tool_calls: [{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Map it" } }] };
      if (call.agentId === null) return { content: "SUMMARY" };
      return callTool("report_to_leader", { summary: "mapped" });
    });
    const p = kit.start();
    await p.run.postUserMessage("Map the project");
    await settled(p);
    const { conversation } = await filesOf(p, kit.convId);
    const calls = kit.model.answered.length;
    expect(conversation.token_totals).toMatchObject({ calls, priced_calls: 0, total_tokens: 15 * calls });
    expect(conversation.token_totals).not.toHaveProperty("cost_usd");
    expect((await p.run.snapshot()).agents[0]?.tokens.cost_usd).toBeNull();
  });
});
