import { describe, expect, it } from "vitest";
import type { Resolution } from "@/lib/shared-context/schema";
import { authorLabel, recentResolutions } from "./shared-context-view";

function resolution(key: string): Resolution {
  return {
    key,
    rule: "later_wins",
    outcome: "applied",
    winner: { side: "proposed", author: "A", author_role: "agent" },
    loser: { side: "current", author: "B", author_role: "agent" },
    current_value: "old",
    current_version: 1,
    proposed_value: "new",
    expected_version: 0,
    version: 2,
    conflict_id: null,
    decided_by: null,
    at: "2026-01-01T00:00:00.000Z",
  };
}

describe("authorLabel", () => {
  it("shows a person's writes in the UI's language and keeps agents' names", () => {
    expect(authorLabel("person", "person", "你")).toBe("你");
    expect(authorLabel("研究员-1", "agent", "你")).toBe("研究员-1");
    expect(authorLabel("Team Leader", "leader", "You")).toBe("Team Leader");
  });
});

describe("recentResolutions", () => {
  it("keeps the newest first, at most limit", () => {
    const history = ["a", "b", "c", "d"].map(resolution);
    expect(recentResolutions(history, 3).map((r) => r.key)).toEqual(["d", "c", "b"]);
    expect(recentResolutions(history, 10).map((r) => r.key)).toEqual(["d", "c", "b", "a"]);
    expect(recentResolutions(history, 0)).toEqual([]);
    expect(history.map((r) => r.key)).toEqual(["a", "b", "c", "d"]);
  });
});
