import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import {
  agentMessagesFile,
  agentMetadataFile,
  conversationMetadataFile,
  indexFile,
  leaderMessagesFile,
  lockFile,
  parseAgentId,
  parseConversationId,
  resolveDataRoot,
  stateFile,
} from "./paths";
import { compactTimestamp, compareConversationIds, epochSeconds, localTimestamp, newConversationId } from "./time";

describe("resolveDataRoot", () => {
  it("defaults to ~/.astrion/astrion/host/mutiagents", () => {
    expect(resolveDataRoot({})).toBe(path.join(os.homedir(), ".astrion", "astrion", "host", "mutiagents"));
    expect(resolveDataRoot({ ASTRION_HOME: "   " })).toBe(
      path.join(os.homedir(), ".astrion", "astrion", "host", "mutiagents"),
    );
  });

  it("uses ASTRION_HOME, made absolute", () => {
    expect(resolveDataRoot({ ASTRION_HOME: "/srv/astrion" })).toBe("/srv/astrion");
    expect(resolveDataRoot({ ASTRION_HOME: "data/here" })).toBe(path.resolve("data/here"));
    expect(resolveDataRoot({ ASTRION_HOME: "~/team" })).toBe(path.join(os.homedir(), "team"));
  });
});

describe("path helpers", () => {
  const root = "/data/root";
  const id = "conv_20260711_210000_001";

  it("lay files out as the seed does", () => {
    expect(stateFile(root)).toBe("/data/root/state.json");
    expect(indexFile(root)).toBe("/data/root/conversations/index.json");
    expect(lockFile(root)).toBe("/data/root/.astrion.lock");
    expect(conversationMetadataFile(root, id)).toBe(`/data/root/conversations/${id}/metadata.json`);
    expect(leaderMessagesFile(root, id)).toBe(`/data/root/conversations/${id}/messages.json`);
    expect(agentMetadataFile(root, id, 1)).toBe(`/data/root/conversations/${id}/agents/1/metadata.json`);
    expect(agentMessagesFile(root, id, "12")).toBe(`/data/root/conversations/${id}/agents/12/messages.json`);
  });

  it.each([
    "..",
    "/",
    "%2e%2e",
    "conv_../x",
    "../conv_20260711_210000_001",
    "conv_20260711_210000_001/../../etc",
    "conv_20260711_210000_001\0",
    "conv_20260711_210000_001\n",
    "\0",
    "",
    "conv_2026071_210000_001",
    "conv_20260711_210000_01",
    "conv_20260711_210000_0000001",
    "CONV_20260711_210000_001",
    "conv_２０260711_210000_001",
  ])("rejects the conversation id %j", (bad) => {
    expect(() => parseConversationId(bad)).toThrow(ValidationError);
    expect(() => conversationMetadataFile(root, bad)).toThrow(ValidationError);
    try {
      parseConversationId(bad);
    } catch (error) {
      expect((error as ValidationError).details).toEqual([{ path: "id", message: expect.any(String) }]);
    }
  });

  it("rejects non-string conversation ids", () => {
    for (const bad of [undefined, null, 1, {}, ["conv_20260711_210000_001"]]) {
      expect(() => parseConversationId(bad)).toThrow(ValidationError);
    }
  });

  it("accepts well-formed conversation ids, including long sequence numbers", () => {
    expect(parseConversationId(id)).toBe(id);
    expect(parseConversationId("conv_20260711_210000_1000")).toBe("conv_20260711_210000_1000");
  });

  it.each([0, -1, 1.5, NaN, Infinity, "0", "01", "1.0", "1e3", " 1", "1 ", "..", "1/..", "%31", "", null, undefined])(
    "rejects the agent id %j",
    (bad) => {
      expect(() => parseAgentId(bad)).toThrow(ValidationError);
      expect(() => agentMetadataFile(root, id, bad)).toThrow(ValidationError);
    },
  );

  it("accepts positive integer agent ids as numbers or decimal text", () => {
    expect(parseAgentId(7)).toBe(7);
    expect(parseAgentId("42")).toBe(42);
  });
});

describe("time helpers", () => {
  const date = new Date(2026, 6, 11, 21, 5, 9);

  it("writes local time with seconds and no zone", () => {
    expect(localTimestamp(date)).toBe("2026-07-11T21:05:09");
    expect(localTimestamp()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(compactTimestamp(date)).toBe("20260711210509");
  });

  it("makes conversation ids in the seed's pattern", () => {
    expect(newConversationId(date)).toBe("conv_20260711_210509_001");
    expect(newConversationId(date, 12)).toBe("conv_20260711_210509_012");
    expect(newConversationId(date, 1234)).toBe("conv_20260711_210509_1234");
    expect(() => newConversationId(date, 0)).toThrow(RangeError);
  });

  it("orders ids by time, then numerically by sequence", () => {
    const ids = ["conv_20260711_210509_1000", "conv_20260711_210509_999", "conv_20260710_235959_002"];
    expect([...ids].sort(compareConversationIds)).toEqual([
      "conv_20260710_235959_002",
      "conv_20260711_210509_999",
      "conv_20260711_210509_1000",
    ]);
  });

  it("gives epoch seconds as a float", () => {
    expect(epochSeconds(new Date(1752251700500))).toBe(1752251700.5);
    expect(Math.abs(epochSeconds() - Date.now() / 1000)).toBeLessThan(5);
  });
});
