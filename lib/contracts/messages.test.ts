import { describe, expect, it } from "vitest";
import {
  formatAgentMessage,
  nextSeedId,
  parseAgentMessage,
  parseSeedId,
  roleAbbreviation,
  type AgentMessageKind,
  type SeedCounters,
} from "./messages";

/** The three message texts quoted in seed 000 (§5 and §7), JSON-unescaped. */
const SEED_TEXTS = {
  report: "来自 UI Operator_1 的任务完成汇报\nid: out_uio_001\n\n\n\n我完成了前端配色的设计...\n\n",
  task: "来自 Team Leader 的任务发布\nid: task_001\n\n\n\n请为项目设计前端配色方案...\n\n",
  message: "来自 Team Leader 的消息\nid: msg_tl_001\n\n\n\n先不要创建 API...\n\n",
};

describe("formatAgentMessage", () => {
  it("writes the seed's texts byte for byte", () => {
    expect(formatAgentMessage("report", "UI Operator_1", "out_uio_001", "我完成了前端配色的设计...")).toBe(SEED_TEXTS.report);
    expect(formatAgentMessage("task", "Team Leader", "task_001", "请为项目设计前端配色方案...")).toBe(SEED_TEXTS.task);
    expect(formatAgentMessage("message", "Team Leader", "msg_tl_001", "先不要创建 API...")).toBe(SEED_TEXTS.message);
  });

  it.each([
    ["empty sender", "", "task_001"],
    ["blank sender", "  ", "task_001"],
    ["sender over two lines", "Team\nLeader", "task_001"],
    ["sender with a carriage return", "Team\rLeader", "task_001"],
    ["sender with a line separator", "Team\u2028Leader", "task_001"],
    ["empty id", "Team Leader", ""],
    ["id over two lines", "Team Leader", "task\n001"],
  ])("refuses %s (it could not be read back)", (_name, sender, id) => {
    expect(() => formatAgentMessage("task", sender, id, "body")).toThrow(RangeError);
  });
});

describe("parseAgentMessage", () => {
  it("reads the seed's texts", () => {
    expect(parseAgentMessage(SEED_TEXTS.report)).toEqual({
      kind: "report",
      sender: "UI Operator_1",
      id: "out_uio_001",
      body: "我完成了前端配色的设计...",
    });
    expect(parseAgentMessage(SEED_TEXTS.task)).toEqual({
      kind: "task",
      sender: "Team Leader",
      id: "task_001",
      body: "请为项目设计前端配色方案...",
    });
    expect(parseAgentMessage(SEED_TEXTS.message)).toEqual({
      kind: "message",
      sender: "Team Leader",
      id: "msg_tl_001",
      body: "先不要创建 API...",
    });
  });

  const kinds: AgentMessageKind[] = ["task", "message", "report"];
  const senders = ["Team Leader", "UI Operator_1", "代码审查员_2", "A 的消息", "X 的任务完成汇报 的消息", " padded "];
  const bodies = [
    "",
    "one line",
    "\nstarts with a newline",
    "ends with blank lines\n\n",
    "contains the separator\n\n\n\nand more",
    "来自 Team Leader 的消息\nid: msg_tl_009\n\n\n\nnested header\n\n",
    "emoji 🎨 and\r\nCRLF",
    "\n\n",
    "# Markdown\n\n- list\n\n```ts\nconst x = 1;\n```",
  ];
  it("round-trips exactly for every kind, awkward senders and awkward bodies", () => {
    let n = 0;
    for (const kind of kinds) {
      for (const sender of senders) {
        for (const body of bodies) {
          const id = `msg_x_${String(++n).padStart(3, "0")}`;
          const text = formatAgentMessage(kind, sender, id, body);
          const parsed = parseAgentMessage(text);
          expect(parsed).toEqual({ kind, sender, id, body });
          if (!parsed) throw new Error("unreachable");
          expect(formatAgentMessage(parsed.kind, parsed.sender, parsed.id, parsed.body)).toBe(text);
        }
      }
    }
    expect(n).toBe(kinds.length * senders.length * bodies.length);
  });

  it.each([
    ["plain chat", "帮我设计一个前端页面"],
    ["empty text", ""],
    ["a header alone", "来自 Team Leader 的任务发布"],
    ["an unknown kind word", "来自 Team Leader 的通知\nid: x_001\n\n\n\nbody\n\n"],
    ["no space after 来自", "来自Team Leader 的消息\nid: x\n\n\n\nbody\n\n"],
    ["missing id line", "来自 Team Leader 的消息\n\n\n\nbody\n\n"],
    ["empty id", "来自 Team Leader 的消息\nid: \n\n\n\nbody\n\n"],
    ["two newlines instead of four", "来自 Team Leader 的消息\nid: msg_tl_001\n\nbody\n\n"],
    ["no trailer", "来自 Team Leader 的消息\nid: msg_tl_001\n\n\n\nbody"],
    ["one trailing newline", "来自 Team Leader 的消息\nid: msg_tl_001\n\n\n\nbody\n"],
    ["text before the header", "note\n来自 Team Leader 的消息\nid: msg_tl_001\n\n\n\nbody\n\n"],
    ["a blank sender", "来自   的消息\nid: msg_tl_001\n\n\n\nbody\n\n"],
  ])("returns null for %s", (_name, text) => {
    expect(parseAgentMessage(text)).toBeNull();
  });
});

describe("seed-style ids", () => {
  it("numbers tasks, leader messages, reports and questions like the seed", () => {
    let counters: SeedCounters = {};
    const ids: string[] = [];
    const take = (kind: Parameters<typeof nextSeedId>[0], abbrev?: string) => {
      const next = nextSeedId(kind, counters, abbrev);
      counters = next.counters;
      ids.push(next.id);
    };
    take("task");
    take("message");
    take("report", "uio");
    take("question", "uio");
    take("task");
    take("message", "fse");
    take("report", "uio");
    take("report", "cr");
    expect(ids).toEqual([
      "task_001",
      "msg_tl_001",
      "out_uio_001",
      "ask_uio_001",
      "task_002",
      "msg_fse_001",
      "out_uio_002",
      "out_cr_001",
    ]);
    expect(counters).toEqual({ task: 2, msg_tl: 1, out_uio: 2, ask_uio: 1, msg_fse: 1, out_cr: 1 });
  });

  it("does not mutate the counters it is given (the caller persists the new ones)", () => {
    const before = Object.freeze({ task: 4 });
    const { id, counters } = nextSeedId("task", before);
    expect(id).toBe("task_005");
    expect(before).toEqual({ task: 4 });
    expect(counters).toEqual({ task: 5 });
  });

  it("keeps counting past 999", () => {
    expect(nextSeedId("task", { task: 999 }).id).toBe("task_1000");
  });

  it("needs a valid author abbreviation for reports and questions", () => {
    expect(() => nextSeedId("report", {})).toThrow(RangeError);
    expect(() => nextSeedId("question", {})).toThrow(RangeError);
    expect(() => nextSeedId("report", {}, "UIO")).toThrow(RangeError);
    expect(() => nextSeedId("report", {}, "u_o")).toThrow(RangeError);
    expect(() => nextSeedId("message", {}, "")).toThrow(RangeError);
  });

  it.each([
    ["ui-operator", "uio"],
    ["full-stack-engineer", "fse"],
    ["code-reviewer", "cr"],
    ["team-leader", "tl"],
    ["qa-engineer", "qae"],
    ["data_analyst", "da"],
    ["Security-Auditor", "sa"],
    ["backend", "b"],
    ["db-admin-2", "dba2"],
    ["设计师", "ag"],
  ])("abbreviates role %s as %s", (roleId, abbrev) => {
    expect(roleAbbreviation(roleId)).toBe(abbrev);
  });

  it("lets abbreviations be configured, ignoring unusable overrides", () => {
    expect(roleAbbreviation("ui-operator", { "ui-operator": "ui" })).toBe("ui");
    expect(roleAbbreviation("frontend-dev", { "frontend-dev": "fe" })).toBe("fe");
    expect(roleAbbreviation("frontend-dev", { "frontend-dev": "F E" })).toBe("fd");
    expect(roleAbbreviation("ui-operator", {})).toBe("uio");
  });

  it("parses ids back", () => {
    expect(parseSeedId("task_001")).toEqual({ kind: "task", abbrev: null, n: 1 });
    expect(parseSeedId("msg_tl_012")).toEqual({ kind: "message", abbrev: "tl", n: 12 });
    expect(parseSeedId("out_uio_001")).toEqual({ kind: "report", abbrev: "uio", n: 1 });
    expect(parseSeedId("ask_uio_1000")).toEqual({ kind: "question", abbrev: "uio", n: 1000 });
    expect(parseSeedId("msg_user_001")).toEqual({ kind: "message", abbrev: "user", n: 1 });
    expect(parseSeedId("msg_9f2c3a1e")).toBeNull();
    expect(parseSeedId("tc_ask_001")).toBeNull();
    expect(parseSeedId("task_")).toBeNull();
  });
});
