import { describe, expect, it } from "vitest";
import { AGENT_ACTION_KINDS, type AgentView } from "@/lib/contracts/events";
import { en, type MessageKey } from "@/lib/i18n/dictionaries/en";
import { zhCN } from "@/lib/i18n/dictionaries/zh-cn";
import { makeTranslator } from "@/lib/i18n/translate";
import { actionText, currentAction, currentActionText, elapsedOf, formatElapsed } from "./agent-actions";

const en_ = makeTranslator("en");
const zh = makeTranslator("zh-CN");

function agent(status: AgentView["metadata"]["status"], action: AgentView["action"], recent: AgentView["recent_actions"] = [], working_since: string | null = null): AgentView {
  return {
    metadata: { agent_id: 1, role_id: "coder", display_name: "Coder_1", status, created_at: "2026-07-11T21:05:00", updated_at: "2026-07-11T21:06:00" },
    last_activity: null,
    last_activity_at: null,
    action,
    recent_actions: recent,
    working_since,
    tokens: { prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0, priced_calls: 0, cost_usd: null },
    calls_this_task: 3,
  };
}
const at = "2026-07-11T13:06:00.000Z";

describe("what an agent card says it is doing", () => {
  it("words a running agent's action in the page's language", () => {
    const reading = agent("running", { kind: "read", target: "dist/pregel/loop.js", at });
    expect(currentActionText(currentAction(reading), en_)).toBe("reading dist/pregel/loop.js");
    expect(currentActionText(currentAction(reading), zh)).toBe("正在读取 dist/pregel/loop.js");
    expect(actionText({ kind: "search", target: "createGraph" }, en_)).toBe("searching for createGraph");
    expect(actionText({ kind: "run", target: "npm test" }, en_)).toBe("running npm test");
    expect(actionText({ kind: "await_approval", target: "npm test" }, en_)).toBe("waiting for your approval of npm test");
    expect(actionText({ kind: "ask_leader", target: "Which port?" }, en_)).toBe("asking the leader…");
    expect(actionText({ kind: "write", target: "src/x.ts" }, en_)).toBe("writing src/x.ts");
    expect(actionText({ kind: "report" }, en_)).toBe("reporting to the leader");
    expect(actionText({ kind: "from_a_newer_server", target: "x" }, en_)).toBe("busy (from_a_newer_server)");
  });

  it("never says 'thinking' once the agent is stopped, idle, finished or terminated", () => {
    const thinking = { kind: "think", at };
    expect(currentActionText(currentAction(agent("running", thinking)), en_)).toBe("thinking…");
    for (const [status, words] of [["idle", "not working"], ["completed", "finished"], ["terminated", "terminated"]] as const) {
      const text = currentActionText(currentAction(agent(status, thinking)), en_);
      expect(text).toBe(words);
      expect(text).not.toMatch(/thinking/i);
      expect(currentActionText(currentAction(agent(status, thinking)), zh)).not.toContain("思考");
    }
    // Waiting: on its question or approval, never "thinking".
    expect(currentActionText(currentAction(agent("waiting", thinking)), en_)).toBe("asking the leader…");
    expect(currentActionText(currentAction(agent("waiting", { kind: "await_approval", target: "npm test", at })), en_)).toBe("waiting for your approval of npm test");
  });

  it("shows elapsed time while at work only, from the start of its current work, not its creation", () => {
    expect(formatElapsed(45_000)).toBe("45s");
    expect(formatElapsed(185_000)).toBe("3m 05s");
    expect(formatElapsed(3_720_000)).toBe("1h 02m");
    // Created at 21:05 local time; its current task was delivered at 13:40 UTC.
    const task = "2026-07-11T13:40:00.000Z";
    const now = Date.parse(task) + 75_000;
    expect(elapsedOf(agent("running", null, [], task), now)).toBe("1m 15s");
    expect(elapsedOf(agent("waiting", null, [], task), now)).toBe("1m 15s");
    expect(elapsedOf(agent("idle", null, [], task), now)).toBeNull();
    // Not known (it has not worked since the server started): no time rather than one from its creation.
    expect(elapsedOf(agent("running", null), new Date("2026-07-11T21:05:00").getTime() + 75_000)).toBeNull();
  });

  it("has English and Chinese words for every action kind, with the same placeholders", () => {
    const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const kind of AGENT_ACTION_KINDS) {
      const key = `agentAction.${kind}` as MessageKey;
      expect(en[key], kind).toBeTypeOf("string");
      expect(zhCN[key], kind).not.toBe(en[key]);
      expect(holes(zhCN[key]), kind).toEqual(holes(en[key]));
    }
  });
});
