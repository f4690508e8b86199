import { describe, expect, it } from "vitest";
import { follow, startTrace } from "@/lib/contracts/envelope";
import { timelineRecord } from "@/lib/contracts/timeline-record";
import { applyRuntimeEvent, initialLiveState } from "./live-state";
import { mergeTimeline } from "./timeline";
import { emptySnapshot } from "@/test/helpers/snapshot";

const user = startTrace("user", "leader", { content: "Review the code" });
const first = timelineRecord(user, { action: "user_message" });
const second = timelineRecord(follow(user, { type: "request", from: "leader", to: "agent:1", payload: {}, producer: "model" }), { action: "create_sub_agent" });
const third = timelineRecord(follow(user, { type: "event", from: "system", to: "leader", payload: {}, producer: "code" }), { action: "cap_calls", status: "capped" });

const snapshot = emptySnapshot();

describe("mergeTimeline", () => {
  it("appends streamed records the fetched ones lack, once, keeping file order", () => {
    expect(mergeTimeline([first, second], [second, third, third])).toEqual([first, second, third]);
    expect(mergeTimeline([first], [])).toEqual([first]);
  });
});

describe("timeline events in the live state", () => {
  it("collects timeline records after a snapshot, drops repeats, and resets on the next snapshot", () => {
    const ignored = applyRuntimeEvent(initialLiveState, { type: "timeline", record: first });
    expect(ignored.timeline).toEqual([]);

    let state = applyRuntimeEvent(initialLiveState, { type: "snapshot", snapshot });
    for (const record of [first, second, second]) state = applyRuntimeEvent(state, { type: "timeline", record });
    expect(state.timeline).toEqual([first, second]);

    const next = applyRuntimeEvent(state, { type: "snapshot", snapshot });
    expect(next.timeline).toEqual([]);
    expect(next.epoch).toBe(state.epoch + 1);
  });
});
