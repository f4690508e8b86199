import { spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStepLog, StepLog, SYNC_APPEND_LIMIT } from "./step-log";

let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-step-log-"));
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("the step log", () => {
  it("commits every append of one tick with one sync, in call order, and reads them back", async () => {
    const file = path.join(dir, "group.jsonl");
    const { log, records } = await openStepLog(file);
    expect(records).toEqual([]);
    await Promise.all(Array.from({ length: 50 }, (_, i) => log.append({ seq: i, text: "多" })));
    expect(log.stats).toMatchObject({ records: 50, syncs: 1 });
    // Appends that arrive while a group is being written form the next group.
    const first = log.append({ seq: 50 });
    await new Promise((r) => setImmediate(r));
    const later = [log.append({ seq: 51 }), log.append({ seq: 52 })];
    await Promise.all([first, ...later]);
    expect(log.stats).toMatchObject({ records: 53, syncs: 3 });
    await log.close();
    const again = await openStepLog(file);
    expect(again.records.map((r) => (r as { seq: number }).seq)).toEqual(Array.from({ length: 53 }, (_, i) => i));
    expect(again.repairedBytes).toBe(0);
    await again.log.close();
  });

  it("writes a group past the synchronous limit too, whole and in order", async () => {
    const file = path.join(dir, "large.jsonl");
    const { log } = await openStepLog(file);
    const big = "x".repeat(SYNC_APPEND_LIMIT);
    await Promise.all([log.append({ seq: 0, big }), log.append({ seq: 1 })]);
    await log.append({ seq: 2 });
    expect(log.stats).toMatchObject({ records: 3, syncs: 2 });
    await log.close();
    const again = await openStepLog(file);
    expect(again.records.map((r) => (r as { seq: number }).seq)).toEqual([0, 1, 2]);
    expect((again.records[0] as { big: string }).big).toBe(big);
    await again.log.close();
  });

  it("cuts off a torn last line and appends after the last complete one", async () => {
    const file = path.join(dir, "torn.jsonl");
    await fs.writeFile(file, '{"a":1}\n{"a":2}\n{"a":');
    const { log, records, repairedBytes } = await openStepLog(file);
    expect(records).toEqual([{ a: 1 }, { a: 2 }]);
    expect(repairedBytes).toBe(5);
    await log.append({ a: 3 });
    await log.close();
    expect(await fs.readFile(file, "utf8")).toBe('{"a":1}\n{"a":2}\n{"a":3}\n');
  });

  it("refuses a log damaged before its last line instead of guessing", async () => {
    const file = path.join(dir, "damaged.jsonl");
    await fs.writeFile(file, '{"a":1}\nnot json\n{"a":3}\n');
    await expect(openStepLog(file)).rejects.toThrow(/line 2 is not JSON/);
  });

  it("is poisoned by a failed write: that group and every later append are refused", async () => {
    const file = path.join(dir, "poison.jsonl");
    await fs.writeFile(file, "");
    // A read-only handle: the write fails with EBADF, as a full or failing disk would fail it.
    const log = new StepLog(file, await fs.open(file, "r"), 0);
    const results = await Promise.allSettled([log.append({ a: 1 }), log.append({ a: 2 })]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    await expect(log.append({ a: 3 })).rejects.toThrow(/EBADF/);
    await log.close();
    await expect(log.append({ a: 4 })).rejects.toThrow(/closed|EBADF/);
  });

  it("marks positions: a mark is durable once every record appended before it is, in order", async () => {
    const { log } = await openStepLog(path.join(dir, "marks.jsonl"));
    expect(log.mark).toBe(0);
    expect(log.isDurable(0)).toBe(true);
    await log.whenDurable(); // nothing appended: at once
    const first = log.append({ a: 1 });
    const afterFirst = log.mark;
    expect(afterFirst).toBe(1);
    expect(log.isDurable(afterFirst)).toBe(false);
    const order: string[] = [];
    const waitFirst = log.whenDurable(afterFirst).then(() => order.push(`mark ${afterFirst}`));
    await first;
    expect(log.isDurable(afterFirst)).toBe(true);
    // A later group: its mark waits for it, an earlier mark asked for later does not.
    void log.append({ a: 2 });
    void log.append({ a: 3 });
    const afterThird = log.mark;
    expect(afterThird).toBe(3);
    expect(log.isDurable(afterThird)).toBe(false);
    const waitThird = log.whenDurable().then(() => order.push(`mark ${afterThird}`));
    await log.whenDurable(afterFirst);
    await Promise.all([waitFirst, waitThird]);
    expect(order).toEqual(["mark 1", "mark 3"]);
    expect(log.isDurable(afterThird)).toBe(true);
    expect(log.stats.records).toBe(3);
    await log.close();
  });

  it("rejects the waits of marks that a failed write leaves behind, and every later one", async () => {
    const file = path.join(dir, "poison-marks.jsonl");
    await fs.writeFile(file, "");
    const log = new StepLog(file, await fs.open(file, "r"), 0);
    void log.append({ a: 1 }).catch(() => undefined);
    const waiting = log.whenDurable();
    await expect(waiting).rejects.toThrow(/EBADF/);
    expect(log.failed?.message).toMatch(/EBADF/);
    expect(log.isDurable(log.mark)).toBe(false);
    await expect(log.whenDurable()).rejects.toThrow(/EBADF/);
    await log.close();
  });

  it("empties on truncate after committing what was queued", async () => {
    const file = path.join(dir, "trunc.jsonl");
    const { log } = await openStepLog(file);
    void log.append({ a: 1 });
    await log.truncate();
    expect(log.size).toBe(0);
    await log.append({ b: 2 });
    await log.close();
    expect(await fs.readFile(file, "utf8")).toBe('{"b":2}\n');
  });

  it("rejects a record with a line break", async () => {
    const { log } = await openStepLog(path.join(dir, "nl.jsonl"));
    await expect(log.appendLine('{"a":"x"}\n{"b":1}')).rejects.toThrow(RangeError);
    await log.close();
  });
});

/** The real lib/store/step-log.ts, transpiled to an ES module a plain `node` child can import. */
async function transpile(into: string): Promise<void> {
  const source = await fs.readFile(path.join(import.meta.dirname, "step-log.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }, fileName: "step-log.ts" });
  await fs.writeFile(path.join(into, "step-log.mjs"), outputText);
}

// Four writers append concurrently; each record is acknowledged on stdout only once its append
// resolved. Numbering goes on from the records the log already holds.
const CHILD = `
import { openStepLog } from "./step-log.mjs";
const { log, records } = await openStepLog(process.argv[2]);
let next = records.length;
process.stdout.write("ready " + records.length + "\\n");
const pad = "步".repeat(300);
async function writer() {
  for (;;) {
    const n = next++;
    await log.append({ n, pad });
    process.stdout.write("ack " + n + "\\n");
  }
}
writer(); writer(); writer(); writer();
`;

function collect(child: ChildProcess): { acks: Set<number>; ready: Promise<number> } {
  const acks = new Set<number>();
  let buffer = "";
  let onReady: (n: number) => void = () => undefined;
  const ready = new Promise<number>((resolve, reject) => {
    onReady = resolve;
    child.once("exit", (code, signal) => reject(new Error(`child exited early (${code ?? signal})`)));
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith("ready ")) onReady(Number(line.slice(6)));
      else if (line.startsWith("ack ")) acks.add(Number(line.slice(4)));
    }
  });
  return { acks, ready };
}

describe("the step log under SIGKILL", () => {
  it("keeps every acknowledged record, in order, with no gap or duplicate, across 25 random kills", async () => {
    const work = await fs.mkdtemp(path.join(dir, "crash-"));
    await transpile(work);
    await fs.writeFile(path.join(work, "child.mjs"), CHILD);
    const file = path.join(work, "steps.jsonl");
    for (let round = 0; round < 25; round++) {
      const child = spawn(process.execPath, [path.join(work, "child.mjs"), file], { stdio: ["ignore", "pipe", "inherit"] });
      const { acks, ready } = collect(child);
      const before = await ready;
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 40)));
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const { log, records } = await openStepLog(file);
      await log.close();
      const seen = (records as Array<{ n: number }>).map((r) => r.n);
      // Records are the numbers 0..k-1 exactly once each: nothing lost, nothing doubled.
      expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i));
      expect(seen.length).toBeGreaterThanOrEqual(before);
      for (const n of acks) expect(n).toBeLessThan(seen.length);
    }
  }, 120_000);
});
