/** The search query's `agent` filter takes the leader as a person types it, in English or Chinese. */
import { describe, expect, it } from "vitest";
import { SearchAgentSchema } from "./search";

describe("SearchAgentSchema", () => {
  it("reads leader, 负责人 and 团队负责人 as the leader, a number as a sub-agent", () => {
    expect(["leader", "负责人", " 团队负责人 ", "3"].map((v) => SearchAgentSchema.parse(v))).toEqual(["leader", "leader", "leader", 3]);
  });

  it("refuses anything else", () => {
    for (const v of ["", "0", "lead", "agent 3", "1".repeat(14)]) expect(SearchAgentSchema.safeParse(v).success).toBe(false);
  });
});
