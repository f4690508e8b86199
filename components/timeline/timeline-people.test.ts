/**
 * The timeline of a team (issue 32): each person who acted gets a lane named after them beside
 * the owner's, and the person filter keeps exactly the records one person's envelopes carry.
 */
import { describe, expect, it } from "vitest";
import { follow, startTrace, timelineRecord } from "@/lib/protocol";
import { buildLanes, filterByPerson, personOptions } from "./timeline-model";

const ada = { id: "u_ada", name: "Ada", via: "password" } as const;
const owner = { id: "owner", name: "Mei", via: "token" } as const;

const first = startTrace("person:u_ada", "leader", { content: "Review it" }, { author: ada });
const records = [
  timelineRecord(first, { action: "user_message" }),
  timelineRecord(follow(first, { type: "request", from: "leader", to: "agent:1", payload: {}, producer: "code" }), { action: "create_sub_agent" }),
  timelineRecord(startTrace("user", "system", {}, { author: owner }), { action: "stop" }),
  timelineRecord(startTrace("person:u_ada", "agent:1", { decision: "approve" }, { author: ada }), { action: "approval" }),
];

describe("people on the timeline", () => {
  it("gives each person a lane named after them, next to the owner's", () => {
    const lanes = buildLanes(records, []);
    expect(lanes.slice(0, 3).map((l) => [l.party, l.name])).toEqual([
      ["user", null],
      ["person:u_ada", "Ada"],
      ["leader", null],
    ]);
  });

  it("filters one person's actions", () => {
    expect(personOptions(records)).toEqual([
      { id: "u_ada", name: "Ada" },
      { id: "owner", name: "Mei" },
    ]);
    expect(filterByPerson(records, "u_ada").map((r) => r.action)).toEqual(["user_message", "approval"]);
    expect(filterByPerson(records, "owner").map((r) => r.action)).toEqual(["stop"]);
    expect(filterByPerson(records, null)).toHaveLength(4);
  });
});
