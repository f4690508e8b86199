import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileQueues } from "@/lib/store/atomic";
import type { SharedContextTimelineEvent } from "./events";
import { readSharedContext, sharedContextFileChange } from "./store";
import { executeSharedContextTool, isSharedContextTool, sharedContextTools, SHARED_CONTEXT_READ_ONLY_TOOLS, type SharedContextActor } from "./tools";

let dir: string;
const queues = new FileQueues();
const events: SharedContextTimelineEvent[] = [];
const T0 = Date.parse("2026-07-11T10:00:00.000Z");
const agent1: SharedContextActor = { display_name: "研究员-1", role: "agent", party: "agent:1" };
const agent2: SharedContextActor = { display_name: "审查员-2", role: "agent", party: "agent:2" };
const leader: SharedContextActor = { display_name: "Team Leader", role: "leader", party: "leader" };

async function call(actor: SharedContextActor, name: string, args: unknown, ms = 0) {
  const raw = typeof args === "string" ? args : JSON.stringify(args);
  return JSON.parse(await executeSharedContextTool(name, raw, { read: () => readSharedContext(dir), change: sharedContextFileChange(queues, dir), actor, emit: (e) => events.push(e), requestedAt: new Date(T0 + ms), windowMs: 2000 }));
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-sctools-"));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("shared-context tools", () => {
  it("offers read_shared_context and update_shared_context in OpenAI function shape", () => {
    const specs = sharedContextTools();
    expect(specs.map((s) => s.function.name)).toEqual(["read_shared_context", "update_shared_context"]);
    for (const s of specs) expect(s).toMatchObject({ type: "function", function: { parameters: { type: "object" } } });
    expect(isSharedContextTool("update_shared_context")).toBe(true);
    expect(isSharedContextTool("write_file")).toBe(false);
    expect([...SHARED_CONTEXT_READ_ONLY_TOOLS]).toEqual(["read_shared_context"]);
  });

  it("invalid arguments come back as an error result the model can correct; nothing is written", async () => {
    expect(await call(agent1, "update_shared_context", "{nope")).toHaveProperty("error");
    expect((await call(agent1, "update_shared_context", { key: "k", value: "v", mode: "overwrite" })).error).toMatch(/expected_version/);
    expect((await call(agent1, "update_shared_context", { key: "", value: "v", mode: "append" })).error).toMatch(/key/);
    expect(await call(agent1, "delete_shared_context", {})).toEqual({ error: "unknown tool delete_shared_context" });
    expect((await readSharedContext(dir)).entries).toEqual({});
    expect(events).toEqual([]);
  });

  it("writes, reads, and arbitrates with the actor's role, emitting one timeline event per write", async () => {
    expect(await call(agent1, "update_shared_context", { key: "api", value: "keep /v1", mode: "overwrite", expected_version: 0 }, 0)).toMatchObject({ outcome: "applied", version: 1 });
    // A string version (as models sometimes send) is accepted.
    expect(await call(agent1, "update_shared_context", { key: "api", value: "deprecate /v1", mode: "overwrite", expected_version: "1" }, 10)).toMatchObject({ outcome: "applied", rule: "fresh", version: 2 });
    const pending = await call(agent2, "update_shared_context", { key: "api", value: "/v1 still used", mode: "overwrite", expected_version: 1 }, 20);
    expect(pending).toMatchObject({ outcome: "pending", rule: "awaiting_person", current: { value: "deprecate /v1", version: 2 } });
    expect(pending.conflict_id).toMatch(/^conflict_/);
    const led = await call(leader, "update_shared_context", { key: "api", value: "keep /v1 until Q3", mode: "overwrite", expected_version: 1 }, 30);
    expect(led).toMatchObject({ outcome: "applied", rule: "leader_wins", version: 3 });
    const lost = await call(agent1, "update_shared_context", { key: "api", value: "drop it", mode: "overwrite", expected_version: 2 }, 60_000);
    expect(lost).toMatchObject({ outcome: "rejected", rule: "leader_wins", current: { value: "keep /v1 until Q3", author: "Team Leader" } });
    expect(await call(agent2, "update_shared_context", { key: "notes", value: "checked a.ts", mode: "append" }, 61_000)).toMatchObject({ outcome: "applied", rule: "append", version: 1 });

    const read = await call(agent2, "read_shared_context", {});
    expect(read.entries).toEqual([
      expect.objectContaining({ key: "api", value: "keep /v1 until Q3", version: 3, author: "Team Leader", author_role: "leader" }),
      expect.objectContaining({ key: "notes", value: "checked a.ts", version: 1, author: "审查员-2" }),
    ]);
    expect(read.pending).toEqual([expect.objectContaining({ conflict_id: pending.conflict_id, key: "api", proposed_by: "审查员-2" })]);

    expect(events.map((e) => [e.action, e.status, e.from, e.to, e.version])).toEqual([
      ["conflict_resolution", "ok", "system", "agent:1", 1],
      ["conflict_resolution", "ok", "system", "agent:1", 2],
      ["conflict_resolution", "pending", "system", "agent:2", 2],
      ["conflict_resolution", "ok", "system", "leader", 3],
      ["conflict_resolution", "refused", "system", "agent:1", 3],
      ["shared_context_write", "ok", "agent:2", "system", 1],
    ]);
    expect(events[3]!.payload).toMatchObject({ rule: "leader_wins", current_value: "deprecate /v1", proposed_value: "keep /v1 until Q3", writer: "leader" });
    expect(events.every((e) => e.type === "event" && e.resource.startsWith("shared_context:"))).toBe(true);
  });
});
