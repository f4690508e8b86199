import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CorruptFileError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { FileQueues } from "./atomic";
import { parseJsonText, readJsonFile, updateJsonFile, writeJsonAtomic } from "./files";
import { AgentMetadataSchema, StateFileSchema } from "@/lib/contracts/on-disk";

let dir: string;
const queues = new FileQueues();
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-files-"));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const CounterSchema = z.looseObject({ count: z.number().int(), seen: z.array(z.number()) });

async function catchError(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("parseJsonText", () => {
  it("names line, column and position of a syntax error", () => {
    const result = parseJsonText('{\n  "a": 1,\n  "b": ]\n}');
    expect(result).toEqual({
      ok: false,
      reason: 'not valid JSON: expected a JSON value but found "]" at line 3, column 8 (position 19)',
    });
    expect(parseJsonText('{"a": 1,}')).toMatchObject({ ok: false, reason: expect.stringContaining("position 8") });
    expect(parseJsonText('{"a": "x')).toMatchObject({
      ok: false,
      reason: expect.stringContaining("expected a closing quote but found end of file"),
    });
    expect(parseJsonText("{} x")).toMatchObject({ ok: false, reason: expect.stringContaining("position 3") });
    expect(parseJsonText("  \n")).toEqual({ ok: false, reason: "the file is empty" });
    expect(parseJsonText('{"a": [1, 2.5e3, "多"]}')).toEqual({ ok: true, value: { a: [1, 2500, "多"] } });
  });
});

describe("readJsonFile", () => {
  it("throws NotFoundError for a missing file or folder", async () => {
    expect(await catchError(readJsonFile(path.join(dir, "nope.json"), CounterSchema))).toBeInstanceOf(NotFoundError);
    expect(await catchError(readJsonFile(path.join(dir, "no", "such.json"), CounterSchema))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it("throws CorruptFileError naming the file and the JSON syntax error", async () => {
    const file = path.join(dir, "broken.json");
    await fs.writeFile(file, '{"count": 1,, "seen": []}');
    const error = await catchError(readJsonFile(file, CounterSchema));
    expect(error).toBeInstanceOf(CorruptFileError);
    expect((error as CorruptFileError).file).toBe(file);
    expect((error as CorruptFileError).message).toContain(file);
    expect((error as CorruptFileError).message).toContain("not valid JSON");
    expect((error as CorruptFileError).message).toContain("line 1, column 13 (position 12)");
  });

  it("throws CorruptFileError listing the schema issues with their paths", async () => {
    const file = path.join(dir, "agent.json");
    await fs.writeFile(file, JSON.stringify({ agent_id: 0, role_id: "x", display_name: "X_1", status: "busy" }));
    const error = (await catchError(readJsonFile(file, AgentMetadataSchema))) as CorruptFileError;
    expect(error).toBeInstanceOf(CorruptFileError);
    expect(error.message).toContain("does not match its schema");
    expect(error.message).toContain("agent_id:");
    expect(error.message).toContain("status:");
    expect(error.message).toContain("created_at:");
  });

  it("reports an empty file as corrupt and accepts a byte-order mark", async () => {
    const empty = path.join(dir, "empty.json");
    await fs.writeFile(empty, "");
    expect(((await catchError(readJsonFile(empty, CounterSchema))) as Error).message).toContain("the file is empty");
    const bom = path.join(dir, "bom.json");
    await fs.writeFile(bom, '\ufeff{"count": 2, "seen": []}');
    expect(await readJsonFile(bom, CounterSchema)).toEqual({ count: 2, seen: [] });
  });

  it("keeps unknown fields and the file's key order", async () => {
    const file = path.join(dir, "order.json");
    await fs.writeFile(file, '{"extra": {"z": 1, "a": 2}, "seen": [], "count": 1}');
    const value = await readJsonFile(file, CounterSchema);
    expect(Object.keys(value)).toEqual(["extra", "seen", "count"]);
    expect(value.extra).toEqual({ z: 1, a: 2 });
  });
});

describe("writeJsonAtomic", () => {
  it("writes Python-style JSON", async () => {
    const file = path.join(dir, "state.json");
    const state = {
      version: "1.0",
      last_conversation_id: null,
      agent_id_counter: 0,
      created_at: "2026-07-11T21:00:00",
      updated_at: "2026-07-11T21:00:00",
    };
    await writeJsonAtomic(queues, file, state, StateFileSchema);
    expect(await fs.readFile(file, "utf8")).toBe(
      '{\n  "version": "1.0",\n  "last_conversation_id": null,\n  "agent_id_counter": 0,\n' +
        '  "created_at": "2026-07-11T21:00:00",\n  "updated_at": "2026-07-11T21:00:00"\n}',
    );
  });

  it("refuses a value that does not fit the schema and leaves the file as it was", async () => {
    const file = path.join(dir, "guarded.json");
    await writeJsonAtomic(queues, file, { count: 1, seen: [] }, CounterSchema);
    const error = await catchError(
      writeJsonAtomic(queues, file, { count: 1.5, seen: "no" } as unknown as z.infer<typeof CounterSchema>, CounterSchema),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(JSON.parse(await fs.readFile(file, "utf8"))).toEqual({ count: 1, seen: [] });
  });
});

describe("updateJsonFile", () => {
  it("loses none of 100 concurrent read-modify-writes", async () => {
    const file = path.join(dir, "counter.json");
    await writeJsonAtomic(queues, file, { count: 0, seen: [] }, CounterSchema);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        updateJsonFile(queues, file, CounterSchema, async (c) => {
          // Yield in the middle, as real callers do, to invite interleaving.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          return { ...c, count: c.count + 1, seen: [...c.seen, i] };
        }),
      ),
    );
    const final = await readJsonFile(file, CounterSchema);
    expect(final.count).toBe(100);
    expect([...final.seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it("creates a missing file only when asked, and never replaces a corrupt one", async () => {
    const missing = path.join(dir, "fresh.json");
    expect(await catchError(updateJsonFile(queues, missing, CounterSchema, (c) => c))).toBeInstanceOf(NotFoundError);
    const created = await updateJsonFile(queues, missing, CounterSchema, (c) => ({ ...c, count: c.count + 1 }), {
      create: () => ({ count: 0, seen: [] }),
    });
    expect(created).toEqual({ count: 1, seen: [] });

    const corrupt = path.join(dir, "corrupt.json");
    await fs.writeFile(corrupt, "{ not json");
    const error = await catchError(
      updateJsonFile(queues, corrupt, CounterSchema, (c) => c, { create: () => ({ count: 0, seen: [] }) }),
    );
    expect(error).toBeInstanceOf(CorruptFileError);
    expect(await fs.readFile(corrupt, "utf8")).toBe("{ not json");
  });

  it("does not write when the function's result fails validation", async () => {
    const file = path.join(dir, "validated.json");
    await writeJsonAtomic(queues, file, { count: 5, seen: [] }, CounterSchema);
    const error = await catchError(
      updateJsonFile(queues, file, CounterSchema, (c) => ({ ...c, count: "six" }) as unknown as typeof c),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((await readJsonFile(file, CounterSchema)).count).toBe(5);
  });
});
