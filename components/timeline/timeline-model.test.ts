import { describe, expect, it } from "vitest";
import { auditPayload } from "@/lib/governance/audit";
import { follow, replyTo, startTrace, type Envelope } from "@/lib/contracts/envelope";
import { timelineRecord, type TimelineRecord } from "@/lib/contracts/timeline-record";
import {
  arrowOf,
  buildLanes,
  filterByTrace,
  isConflict,
  linkedRows,
  preview,
  statusTone,
  traceOptions,
  viewItems,
} from "./timeline-model";

const agents = [
  { agent_id: 2, display_name: "Security Reviewer_2", role_id: "security-reviewer" },
  { agent_id: 1, display_name: "Code Reviewer_1", role_id: "code-reviewer" },
];

/** A small run: a goal, a delegation, the agent's report, the leader's answer, and a refused spawn. */
function run(goal = "Review the authentication code in src for security issues") {
  // As the runtime writes it: the person's text audited as a preview and a hash.
  const user = startTrace("user", "leader", auditPayload("request", { content: goal }));
  const task = follow(user, { type: "request", from: "leader", to: "agent:1", payload: { task: "review" }, producer: "model" });
  const report = replyTo(task, { summary: "done" });
  const answer = replyTo(user, { content: "All good" });
  const refused = follow(user, { type: "event", from: "system", to: "leader", payload: {}, producer: "code" });
  const records: TimelineRecord[] = [
    timelineRecord(user, { action: "user_message" }),
    timelineRecord(task, { action: "create_sub_agent", resource: "agent:1" }),
    timelineRecord(report, { action: "report" }),
    timelineRecord(refused, { action: "create_sub_agent", status: "refused" }),
    timelineRecord(answer, { action: "leader_reply" }),
  ];
  return { user, task, report, answer, records };
}

function broadcast(cause: Envelope, recipients?: number[]): TimelineRecord {
  const env = follow(cause, { type: "broadcast", from: "leader", to: "all", payload: recipients ? { recipients } : {}, producer: "code" });
  return timelineRecord(env, { action: "broadcast" });
}

describe("buildLanes", () => {
  it("orders person, leader, agents by id, other parties, system; names agents from the snapshot", () => {
    const { user, records } = run();
    const extra = timelineRecord(follow(user, { type: "request", from: "leader", to: "agent:5", payload: {}, producer: "model" }), { action: "message" });
    const other = timelineRecord(follow(user, { type: "event", from: "system", to: "capability:python", payload: {}, producer: "code" }), { action: "route" });
    const lanes = buildLanes([...records, extra, other, broadcast(user)], agents);
    expect(lanes.map((l) => l.party)).toEqual(["user", "leader", "agent:1", "agent:2", "agent:5", "capability:python", "system"]);
    expect(lanes[2]).toMatchObject({ kind: "agent", agentId: 1, name: "Code Reviewer_1", roleId: "code-reviewer" });
    // An agent the snapshot does not know yet still gets a lane, unnamed.
    expect(lanes[4]).toMatchObject({ kind: "agent", agentId: 5, name: null });
    expect(lanes[5]).toMatchObject({ kind: "other", name: "capability:python" });
  });

  it("always has the person, the leader and the system, even with no records", () => {
    expect(buildLanes([], []).map((l) => l.kind)).toEqual(["user", "leader", "system"]);
  });
});

describe("arrowOf", () => {
  it("points from the sender's lane to the receiver's lane", () => {
    const { records } = run();
    const lanes = buildLanes(records, agents);
    expect(arrowOf(records[0]!, lanes)).toEqual({ from: 0, to: [1] });
    expect(arrowOf(records[1]!, lanes)).toEqual({ from: 1, to: [2] });
    expect(arrowOf(records[2]!, lanes)).toEqual({ from: 2, to: [1] });
    expect(arrowOf(records[3]!, lanes)).toEqual({ from: 4, to: [1] });
  });

  it("sends a broadcast to its named recipients, or else to the leader and every agent but the sender", () => {
    const { user, records } = run();
    const lanes = buildLanes(records, agents);
    expect(arrowOf(broadcast(user, [2]), lanes)).toEqual({ from: 1, to: [3] });
    expect(arrowOf(broadcast(user), lanes)).toEqual({ from: 1, to: [2, 3] });
  });

  it("has no receiving lane for a message to oneself", () => {
    const { user } = run();
    const self = timelineRecord(follow(user, { type: "event", from: "agent:1", to: "agent:1", payload: {}, producer: "code" }), { action: "note" });
    const lanes = buildLanes([self], agents);
    expect(arrowOf(self, lanes)).toEqual({ from: 2, to: [] });
  });
});

describe("traces", () => {
  it("lists traces in start order, named by their first user message, and filters by one", () => {
    const first = run("Review the authentication code in src for security issues");
    const second = run(`Now ${"write the tests ".repeat(10)}`);
    const all = [...first.records, ...second.records];
    const options = traceOptions(all);
    expect(options.map((o) => o.trace_id)).toEqual([first.user.trace_id, second.user.trace_id]);
    expect(options[0]).toMatchObject({ preview: "Review the authentication code in src for security issues", count: 5 });
    expect(options[1]!.preview!.length).toBeLessThanOrEqual(60);
    expect(options[1]!.preview!.endsWith("…")).toBe(true);

    expect(filterByTrace(all, first.user.trace_id)).toEqual(first.records);
    expect(filterByTrace(all, null)).toEqual(all);
  });

  it("puts a divider where the trace changes, only when asked", () => {
    const first = run();
    const second = run("again");
    const all = [...first.records, ...second.records];
    const options = traceOptions(all);
    const items = viewItems(all, options, true);
    expect(items.filter((i) => i.kind === "trace")).toHaveLength(2);
    expect(items[0]).toMatchObject({ kind: "trace", trace: { trace_id: first.user.trace_id } });
    expect(items[6]).toMatchObject({ kind: "trace", trace: { trace_id: second.user.trace_id } });
    expect(viewItems(all, options, false).every((i) => i.kind === "record")).toBe(true);
  });

  it("cuts previews on one line", () => {
    expect(preview("a\n\n b   c")).toBe("a b c");
    expect(preview("abcdef", 4)).toBe("abc…");
  });
});

describe("linkedRows", () => {
  it("links a reply to its request and a request to its replies and follow-ups", () => {
    const { task, report, user, records } = run();
    const reportRecord = records[2]!;
    expect(linkedRows(records, reportRecord)).toEqual(new Map([[task.message_id, "parent"]]));

    const taskRecord = records[1]!;
    const fromTask = linkedRows(records, taskRecord);
    expect(fromTask.get(report.message_id)).toBe("child");
    expect(fromTask.get(user.message_id)).toBe("parent");

    const fromUser = linkedRows(records, records[0]!);
    expect([...fromUser.values()].every((k) => k === "child")).toBe(true);
    expect(fromUser.size).toBe(3);
    expect(linkedRows(records, null).size).toBe(0);
  });
});

describe("marks", () => {
  it("marks refusals and failures red, holds amber, normal delivery not at all", () => {
    expect(statusTone("refused")).toBe("danger");
    expect(statusTone("failed")).toBe("danger");
    expect(statusTone("capped")).toBe("warning");
    expect(statusTone("interrupted")).toBe("warning");
    expect(statusTone("something_new")).toBe("warning");
    expect(statusTone("ok")).toBeNull();
    expect(statusTone("delivered")).toBeNull();
  });

  it("recognizes conflict resolutions", () => {
    const { user, records } = run();
    const conflict = timelineRecord(follow(user, { type: "event", from: "system", to: "all", payload: {}, producer: "code" }), { action: "conflict_resolution", resource: "shared_context:plan", version: 3 });
    expect(isConflict(conflict)).toBe(true);
    expect(isConflict(records[0]!)).toBe(false);
  });
});
