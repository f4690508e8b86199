import { spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { follow, isCheckedEnvelope, replyTo, startTrace, type Envelope } from "@/lib/contracts/envelope";
import { JsonLineFiles, parseJsonLines } from "@/lib/store/jsonl";
import { appendTimeline, readTimeline, timelineFile, timelineLine } from "./timeline";
import { timelineRecord, TimelineRecordSchema, type TimelineRecord } from "@/lib/contracts/timeline-record";

let dir: string;
// The process's JSON Lines files, as the composition root makes them.
const jsonl = new JsonLineFiles();

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-timeline-"));
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function freshConversation(): Promise<string> {
  return fs.mkdtemp(path.join(dir, "conv-"));
}

function record(seq: number, traceRoot = startTrace("user", "leader", { content: "go" })): TimelineRecord {
  const env = follow(traceRoot, {
    type: "request",
    from: "leader",
    to: "agent:1",
    payload: { seq, text: "来自 Team Leader 的任务发布" },
    producer: "model",
  });
  return timelineRecord(env, { action: "task", resource: "agent:1" });
}

describe("timeline records", () => {
  it("copy the envelope's ids and parties", () => {
    const root = startTrace("user", "leader", { content: "hi" }, { now: new Date("2026-07-11T13:00:00Z") });
    const rec = timelineRecord(root, { action: "user_message", now: new Date("2026-07-11T13:00:01Z") });
    expect(rec).toEqual({
      turn_id: root.turn_id,
      parent_turn_id: null,
      from_agent: "user",
      to_agent: "leader",
      action: "user_message",
      resource: null,
      status: "ok",
      version: 0,
      timestamp: "2026-07-11T13:00:01.000Z",
      trace_id: root.trace_id,
      envelope: root,
    });
  });

  it("refuse ids that disagree with the envelope", () => {
    const a = startTrace("user", "leader", {});
    const b = startTrace("user", "leader", {});
    const rec = timelineRecord(a, { action: "x" });
    const result = TimelineRecordSchema.safeParse({ ...rec, trace_id: b.trace_id });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["trace_id"]);
    expect(TimelineRecordSchema.safeParse({ ...rec, parent_turn_id: b.turn_id }).success).toBe(false);
  });
});

describe("checked once", () => {
  /** `envelope` with its payload read through a getter that counts the reads (a check reads it). */
  function counted(envelope: Envelope): { envelope: Envelope; reads: () => number } {
    let reads = 0;
    const payload = envelope.payload;
    Object.defineProperty(envelope, "payload", { enumerable: true, get: () => (reads++, payload) });
    return { envelope, reads: () => reads };
  }

  it("makes the record of a built envelope without checking the envelope again, and checks any other envelope whole", () => {
    const built = counted(startTrace("user", "leader", { content: "hi" }));
    expect(isCheckedEnvelope(built.envelope)).toBe(true);
    expect(timelineRecord(built.envelope, { action: "x" }).envelope).toBe(built.envelope);
    expect(built.reads()).toBe(0);
    // A copy is not an envelope built here: it is checked whole, and refused when it is not one.
    const copy = counted({ ...startTrace("user", "leader", { content: "hi" }) });
    expect(isCheckedEnvelope(copy.envelope)).toBe(false);
    timelineRecord(copy.envelope, { action: "x" });
    expect(copy.reads()).toBeGreaterThan(0);
    expect(() => timelineRecord({ ...startTrace("user", "leader", {}), type: "gossip" } as never, { action: "x" })).toThrow();
  });
});

describe("appendTimeline / readTimeline", () => {
  it("writes one line per record, non-ASCII unescaped, and reads them back", async () => {
    const file = timelineFile(await freshConversation());
    const root = startTrace("user", "leader", { content: "帮我设计一个前端页面" });
    const reply = replyTo(root, { content: "好的" });
    await appendTimeline(jsonl, file, timelineRecord(root, { action: "user_message" }));
    await appendTimeline(jsonl, file, timelineRecord(reply, { action: "reply" }));
    const text = await fs.readFile(file, "utf8");
    expect(text.split("\n")).toHaveLength(3);
    expect(text.endsWith("\n")).toBe(true);
    expect(text).toContain("帮我设计一个前端页面");
    const { records, bad, tornTail } = await readTimeline(file);
    expect(records.map((r) => r.envelope)).toEqual([root, reply]);
    expect(bad).toEqual([]);
    expect(tornTail).toBe(false);
  });

  it("keeps 1000 concurrent appends, in the order they completed", async () => {
    const file = timelineFile(await freshConversation());
    const root = startTrace("user", "leader", {});
    const completed: number[] = [];
    await Promise.all(
      Array.from({ length: 1000 }, (_, seq) => appendTimeline(jsonl, file, record(seq, root)).then(() => completed.push(seq))),
    );
    const text = await fs.readFile(file, "utf8");
    const lines = text.split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(1000);
    const seqs = lines.map((line) => TimelineRecordSchema.parse(JSON.parse(line)).envelope.payload.seq);
    expect(seqs).toEqual(completed);
    const { records, bad } = await readTimeline(file);
    expect(records).toHaveLength(1000);
    expect(bad).toEqual([]);
  });

  it("drops a torn last line and keeps every complete one", async () => {
    const file = timelineFile(await freshConversation());
    const lines = [record(1), record(2), record(3)].map((r) => JSON.stringify(r));
    const torn = JSON.stringify(record(4)).slice(0, 57);
    await fs.writeFile(file, `${lines.join("\n")}\n${torn}`);
    const { records, bad, tornTail } = await readTimeline(file);
    expect(records.map((r) => r.envelope.payload.seq)).toEqual([1, 2, 3]);
    expect(bad).toEqual([]);
    expect(tornTail).toBe(true);
  });

  it("treats an unparsable last line as torn even with its newline", async () => {
    const file = timelineFile(await freshConversation());
    await fs.writeFile(file, `${JSON.stringify(record(1))}\n{"turn_id": "turn_\n`);
    const { records, bad, tornTail } = await readTimeline(file);
    expect(records).toHaveLength(1);
    expect(bad).toEqual([]);
    expect(tornTail).toBe(true);
  });

  it("reports a bad line in the middle instead of throwing, and loads the rest", async () => {
    const file = timelineFile(await freshConversation());
    const good = [record(1), record(2), record(3)].map((r) => JSON.stringify(r));
    await fs.writeFile(file, `${good[0]}\nnot json at all\n${good[1]}\n{"turn_id":"turn_x"}\n\n${good[2]}\n`);
    const { records, bad, tornTail } = await readTimeline(file);
    expect(records.map((r) => r.envelope.payload.seq)).toEqual([1, 2, 3]);
    expect(tornTail).toBe(false);
    expect(bad.map((b) => b.line)).toEqual([2, 4]);
    expect(bad[0]?.reason).toMatch(/^not JSON/);
    expect(bad[1]?.reason).toMatch(/^not a timeline record/);
    expect(bad[1]?.excerpt).toBe('{"turn_id":"turn_x"}');
  });

  it("an append after a crash seals the torn line so the new record is intact", async () => {
    const file = timelineFile(await freshConversation());
    await fs.writeFile(file, `${JSON.stringify(record(1))}\n${JSON.stringify(record(2)).slice(0, 80)}`);
    await appendTimeline(jsonl, file, record(3));
    const { records, bad, tornTail } = await readTimeline(file);
    expect(records.map((r) => r.envelope.payload.seq)).toEqual([1, 3]);
    expect(tornTail).toBe(false);
    expect(bad).toHaveLength(1);
    expect(bad[0]?.line).toBe(2);
    // The next append on a clean file does not add blank lines.
    expect(await jsonl.append(file, JSON.stringify(record(4)))).toEqual({ sealedTornLine: false });
    expect((await readTimeline(file)).records).toHaveLength(3);
  });

  it("filters by trace_id", async () => {
    const file = timelineFile(await freshConversation());
    const a = startTrace("user", "leader", { content: "a" });
    const b = startTrace("user", "leader", { content: "b" });
    for (let i = 0; i < 6; i++) await appendTimeline(jsonl, file, record(i, i % 2 ? b : a));
    const onlyA = await readTimeline(file, { trace_id: a.trace_id });
    expect(onlyA.records.map((r) => r.envelope.payload.seq)).toEqual([0, 2, 4]);
    expect(onlyA.records.every((r) => r.trace_id === a.trace_id)).toBe(true);
    expect((await readTimeline(file, { trace_id: "trace_none" })).records).toEqual([]);
    expect((await readTimeline(file)).records).toHaveLength(6);
  });

  it("reads a missing timeline as empty", async () => {
    expect(await readTimeline(path.join(dir, "nope", "timeline.jsonl"))).toEqual({ records: [], bad: [], tornTail: false });
  });

  it("refuses an invalid record without writing anything", async () => {
    const file = timelineFile(await freshConversation());
    const bad = { ...record(1), action: "" };
    await expect(appendTimeline(jsonl, file, bad)).rejects.toBeInstanceOf(ValidationError);
    await expect(fs.stat(file)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("serializes a record timelineRecord made without checking it again, and checks any other", () => {
    const made = record(1);
    const parse = vi.spyOn(TimelineRecordSchema, "safeParse");
    try {
      expect(JSON.parse(timelineLine(made))).toEqual(made);
      expect(parse).not.toHaveBeenCalled();
      // A copy (or a record changed from it) is not one it made: it is checked.
      expect(timelineLine({ ...made })).toBe(timelineLine(made));
      expect(parse).toHaveBeenCalledTimes(1);
      expect(() => timelineLine({ ...made, status: "" })).toThrow(ValidationError);
    } finally {
      parse.mockRestore();
    }
  });

  it("does not recreate a deleted conversation folder", async () => {
    const conv = await freshConversation();
    await fs.rm(conv, { recursive: true });
    await expect(appendTimeline(jsonl, timelineFile(conv), record(1))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.stat(conv)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("commits every line appended to a file in one tick with one fsync, in call order", async () => {
    const file = path.join(await freshConversation(), "group.jsonl");
    await jsonl.append(file, "0");
    const before = { ...jsonl.stats };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => jsonl.append(file, String(i + 1))));
    expect(results.every((r) => !r.sealedTornLine)).toBe(true);
    expect(jsonl.stats.syncs - before.syncs).toBe(1);
    expect(jsonl.stats.lines - before.lines).toBe(40);
    expect(await fs.readFile(file, "utf8")).toBe(`${Array.from({ length: 41 }, (_, i) => i).join("\n")}\n`);
  });

  it("closes the files of a folder on request, and a later append opens its file again", async () => {
    const conv = await freshConversation();
    const file = path.join(conv, "a.jsonl");
    await jsonl.append(file, "1");
    await jsonl.close(conv);
    // Out of band, the file gains a torn line: the reopened file is sealed before the next record.
    await fs.appendFile(file, '{"torn');
    expect(await jsonl.append(file, "2")).toEqual({ sealedTornLine: true });
    expect(await fs.readFile(file, "utf8")).toBe('1\n{"torn\n2\n');
  });

  it("writes a non-durable append without an fsync; JsonLineFiles.sync, a durable append or closing the file syncs it", async () => {
    const conv = await freshConversation();
    const file = path.join(conv, "lazy.jsonl");
    await jsonl.append(file, "0");
    let syncs = jsonl.stats.syncs;
    await Promise.all([jsonl.append(file, "1", { durable: false }), jsonl.append(file, "2", { durable: false })]);
    expect(jsonl.stats.syncs).toBe(syncs);
    expect(await fs.readFile(file, "utf8")).toBe("0\n1\n2\n");
    await jsonl.sync(file);
    expect(jsonl.stats.syncs).toBe(syncs + 1);
    await jsonl.sync(file); // nothing left unsynced
    expect(jsonl.stats.syncs).toBe(syncs + 1);
    // a durable append in the same tick as a non-durable one syncs both with one fsync
    syncs = jsonl.stats.syncs;
    await Promise.all([jsonl.append(file, "3", { durable: false }), jsonl.append(file, "4")]);
    expect(jsonl.stats.syncs).toBe(syncs + 1);
    await jsonl.sync(file);
    expect(jsonl.stats.syncs).toBe(syncs + 1);
    // closing a file that holds unsynced lines syncs them first
    await jsonl.append(file, "5", { durable: false });
    await jsonl.close(conv);
    expect(jsonl.stats.syncs).toBe(syncs + 2);
  });

  it("appendJsonLine refuses a line with a line break", async () => {
    await expect(jsonl.append(path.join(dir, "x.jsonl"), '{"a":\n1}')).rejects.toBeInstanceOf(RangeError);
  });
});

describe("parseJsonLines", () => {
  const parse = (v: unknown) => (typeof v === "number" ? { ok: true as const, value: v } : { ok: false as const, reason: "nan" });
  it.each([
    ["", [], [], false],
    ["1\n2\n", [1, 2], [], false],
    ["1\n2", [1], [], true],
    ["1\n\"x\"\n", [1], [], true],
    ["1\n\"x\"\n2\n", [1, 2], [2], false],
    ["1\n\"x\"\n2", [1], [2], true],
    ["\n\n1\n\n", [1], [], false],
    ["1\n\"x\"\n\n  \n", [1], [], true],
  ])("%j → records %j, bad lines %j, torn %s", (text, records, badLines, torn) => {
    const result = parseJsonLines(text, parse);
    expect(result.records).toEqual(records);
    expect(result.bad.map((b) => b.line)).toEqual(badLines);
    expect(result.tornTail).toBe(torn);
  });
});

/** The real jsonl.ts and atomic.ts, transpiled to ES modules that a plain `node` child can import. */
async function transpileForChild(into: string): Promise<void> {
  const sources: Array<[string, string]> = [
    [path.join(import.meta.dirname, "..", "store", "jsonl.ts"), "jsonl.mjs"],
    [path.join(import.meta.dirname, "..", "store", "atomic.ts"), "atomic.mjs"],
  ];
  for (const [from, to] of sources) {
    const source = await fs.readFile(from, "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: path.basename(from),
    });
    const rewired = outputText
      .replace(/^import "server-only";\s*$/m, "")
      .replace('from "./atomic"', 'from "./atomic.mjs"');
    expect(rewired).not.toContain("@/");
    await fs.writeFile(path.join(into, to), rewired);
  }
}

// The child appends valid timeline records with growing `seq` (from argv) and a large payload, so
// a kill often lands inside a write; it prints "acked <seq>" only after an append has resolved.
const CHILD = `
import { JsonLineFiles } from "./jsonl.mjs";
const [file, firstSeq] = process.argv.slice(2);
// A process of its own: its own JSON Lines files.
const jsonl = new JsonLineFiles();
const pad = "记".repeat(40 * 1024);
const hex = (n) => n.toString(16).padStart(8, "0");
for (let seq = Number(firstSeq); ; seq++) {
  const envelope = {
    message_id: "msg_" + hex(seq), trace_id: "trace_00000001", turn_id: "turn_" + hex(seq), parent_turn_id: null,
    type: "event", from: "system", to: "all", priority: "normal", created_at: new Date().toISOString(),
    payload: { seq, pad }, meta: {},
  };
  const record = {
    turn_id: envelope.turn_id, parent_turn_id: null, from_agent: "system", to_agent: "all", action: "tick",
    resource: null, status: "ok", version: seq, timestamp: envelope.created_at, trace_id: envelope.trace_id, envelope,
  };
  await jsonl.append(file, JSON.stringify(record));
  process.stdout.write("acked " + seq + "\\n");
}
`;

describe("appendTimeline under SIGKILL", () => {
  it("leaves a file that loads, with every acknowledged record, after 25 kills mid-append", async () => {
    const work = await fs.mkdtemp(path.join(dir, "crash-"));
    await transpileForChild(work);
    const childFile = path.join(work, "child.mjs");
    await fs.writeFile(childFile, CHILD);
    const file = path.join(work, "timeline.jsonl");

    const acked = new Set<number>();
    let nextSeq = 1;
    let tornSeen = 0;
    for (let round = 0; round < 25; round++) {
      const child: ChildProcess = spawn(process.execPath, [childFile, file, String(nextSeq)], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let ackedThisRound = 0;
      let buffered = "";
      const enough = new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split("\n");
          buffered = lines.pop() ?? "";
          for (const line of lines) {
            acked.add(Number(line.slice("acked ".length)));
            ackedThisRound++;
          }
          if (ackedThisRound >= 3) resolve();
        });
        child.once("exit", (code, signal) => reject(new Error(`child exited early (${code ?? signal})`)));
      });
      await enough;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 15)));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGKILL");
      await exited;
      expect(child.signalCode).toBe("SIGKILL");

      const { records, bad, tornTail } = await readTimeline(file);
      if (tornTail) tornSeen++;
      const seqs = records.map((r) => r.envelope.payload.seq as number);
      // Every acknowledged record is there, in order, once.
      for (const seq of acked) expect(seqs).toContain(seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      // A bad line can only be a record torn by an earlier kill and sealed by the next append.
      expect(bad.length).toBeLessThanOrEqual(tornSeen);
      for (const b of bad) expect(b.excerpt.startsWith('{"turn_id":"turn_')).toBe(true);
      nextSeq = Math.max(...seqs) + 1;
    }
    expect(acked.size).toBeGreaterThanOrEqual(75);
  }, 120_000);
});
