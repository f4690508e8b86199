import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FileQueues } from "@/lib/store/atomic";
import { DistilledProgressLog, distilledProgressFile } from "./distilled-progress";

// One process's write queues; a "new process" in these tests is a new log over the same folder.
const queues = new FileQueues();

async function root(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), "astrion-distilled-"));
}
const at = (n: number) => ({ through: n, last_message_id: `msg_${n}`, at: new Date(1_700_000_000_000 + n).toISOString() });
const lines = async (dir: string) => (await fs.readFile(distilledProgressFile(dir), "utf8")).split("\n").filter(Boolean);

describe("the distilled progress of conversations", () => {
  it("appends one line per distillation (the latest wins) and a new process reads it back", async () => {
    const dir = await root();
    const log = new DistilledProgressLog(dir, queues);
    expect(await log.get("conv_a")).toBeUndefined();
    await log.record("conv_a", at(4));
    await log.record("conv_b", at(2));
    await log.record("conv_a", at(9));
    expect(await log.get("conv_a")).toEqual(at(9));
    // One small append each, whatever the number of conversations: nothing rewritten.
    expect(await lines(dir)).toHaveLength(3);
    const again = new DistilledProgressLog(dir, queues);
    expect(await again.get("conv_a")).toEqual(at(9));
    expect(await again.get("conv_b")).toEqual(at(2));
  });

  it("starts from the whole-map file of earlier versions, and never writes it", async () => {
    const dir = await root();
    await fs.mkdir(path.join(dir, "memory"));
    const legacy = JSON.stringify({ version: 1, conversations: { conv_old: at(7), conv_a: at(1) } });
    await fs.writeFile(path.join(dir, "memory", "distilled.json"), legacy);
    const log = new DistilledProgressLog(dir, queues);
    expect(await log.get("conv_old")).toEqual(at(7));
    await log.record("conv_a", at(3));
    expect(await new DistilledProgressLog(dir, queues).get("conv_a")).toEqual(at(3));
    expect(await new DistilledProgressLog(dir, queues).get("conv_old")).toEqual(at(7));
    expect(await fs.readFile(path.join(dir, "memory", "distilled.json"), "utf8")).toBe(legacy);
  });

  it("leaves out a line a crash cut short, and the next line starts on its own", async () => {
    const dir = await root();
    await new DistilledProgressLog(dir, queues).record("conv_a", at(2));
    await fs.appendFile(distilledProgressFile(dir), '{"conversation_id":"conv_b","thro');
    const log = new DistilledProgressLog(dir, queues);
    expect(await log.get("conv_b")).toBeUndefined();
    await log.record("conv_c", at(5));
    const read = new DistilledProgressLog(dir, queues);
    expect(await read.get("conv_a")).toEqual(at(2));
    expect(await read.get("conv_c")).toEqual(at(5));
    expect((await lines(dir)).map((l) => l.startsWith('{"conversation_id":"conv_c"'))).toEqual([false, false, true]);
  });

  it("compacts to one line per conversation once the lines outnumber them by the slack and twice over", async () => {
    const dir = await root();
    const log = new DistilledProgressLog(dir, queues, 10);
    for (let i = 1; i <= 12; i++) await log.record(i % 2 ? "conv_a" : "conv_b", at(i));
    // 12 lines for 2 conversations are not past 2 + 10 yet; the 13th line is.
    expect(log.lines).toBe(12);
    await log.record("conv_a", at(13));
    expect(log.lines).toBe(2);
    expect(await lines(dir)).toHaveLength(2);
    const read = new DistilledProgressLog(dir, queues);
    expect(await read.get("conv_a")).toEqual(at(13));
    expect(await read.get("conv_b")).toEqual(at(12));
  });
});
