import { describe, expect, it } from "vitest";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import { isSharedContextRecord, sharedContextRevision } from "./shared-context";

function record(id: string, resource: string | null): TimelineRecord {
  return { resource, envelope: { message_id: id } } as unknown as TimelineRecord;
}

describe("isSharedContextRecord", () => {
  it("matches shared_context:<key> resources only", () => {
    expect(isSharedContextRecord({ resource: "shared_context:plan" })).toBe(true);
    expect(isSharedContextRecord({ resource: "agent:2" })).toBe(false);
    expect(isSharedContextRecord({ resource: null })).toBe(false);
  });
});

describe("sharedContextRevision", () => {
  it("is the id of the latest shared-context record, so it changes when one arrives", () => {
    expect(sharedContextRevision([])).toBe("");
    const a = [record("m1", "agent:1"), record("m2", "shared_context:plan"), record("m3", "file:x")];
    expect(sharedContextRevision(a)).toBe("m2");
    expect(sharedContextRevision([...a, record("m4", "shared_context:notes")])).toBe("m4");
  });
});
