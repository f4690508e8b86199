/**
 * The takeover scan's query and race (lib/pg/leases.ts `orphaned`, lib/server/takeover.ts), on a
 * throwaway cluster: only active conversations whose lease expired without being released are
 * found (not released, live, archived or open here ones); the query is a range scan of the
 * `leases_orphaned` index (migration 3), which holds no released lease; two instances scanning at
 * once take an orphaned run once, and the loser says nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createPgStorage, createPool, Leases, type PgEngineStorage } from "@/lib/pg";
import { startTakeover } from "@/lib/server/takeover";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();
let cleanup: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  cleanup = [];
});

async function storage(url: string, owner: string): Promise<PgEngineStorage> {
  const s = await createPgStorage({ url, owner, leaseMs: 60_000, log: () => undefined });
  cleanup.push(() => s.end());
  return s;
}

async function conversation(s: PgEngineStorage, title: string): Promise<string> {
  return (await s.createConversation({ title, project_path: "/nonexistent-takeover-project", model_key: "m", run_mode: "fast" })).id;
}

describe("the takeover scan", () => {
  it("finds only active conversations whose lease expired without being released, through the leases_orphaned index", async () => {
    const url = await pg.cluster.createDatabase();
    const reader = createPool(url, { max: 2 });
    cleanup.push(() => reader.end());
    const leases = new Leases(reader);
    const b = await storage(url, "instance-b");
    const [dead, released, live, archived, openHere] = (await Promise.all(["dead", "released", "live", "archived", "open-here", "never leased"].map((t) => conversation(b, t)))) as [string, string, string, string, string, string];
    // A dead instance's leases: taken, then expired with their finite time left behind.
    for (const id of [dead, released, live, archived]) await leases.acquire(id, "instance-a", 60_000);
    await reader.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE conversation_id = ANY ($1::text[])", [[dead, released, archived]]);
    const epoch = Number((await reader.query<{ epoch: string }>("SELECT epoch FROM leases WHERE conversation_id = $1", [released])).rows[0]!.epoch);
    await leases.release(released, "instance-a", epoch);
    // Archived while its instance was away (the list column, as the catalog writes it): not to be run.
    await reader.query("UPDATE conversations SET status = 'archived' WHERE id = $1", [archived]);
    // Open here (its lease ours) and expired meanwhile: not this instance's to take over.
    await b.open(openHere);
    await reader.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE conversation_id = $1", [openHere]);

    expect((await leases.orphaned(10)).map((l) => l.conversationId).sort()).toEqual([dead, openHere].sort());
    const found = await b.orphaned(10);
    expect(found.map((l) => l.id)).toEqual([dead]);
    expect(found[0]!.owner).toBe("instance-a");

    // The plan ranges over the partial index (sequential scans off: on a table this small the
    // planner would rather read it all, which it cannot do better than the index at scale).
    const client = await reader.connect();
    try {
      await client.query("SET enable_seqscan = off");
      const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN SELECT l.conversation_id FROM leases l JOIN conversations c ON c.id = l.conversation_id WHERE l.expires_at > '-infinity' AND l.expires_at <= now() AND c.status = 'active' ORDER BY l.expires_at LIMIT 50`)).rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan).toContain("leases_orphaned");
    } finally {
      client.release();
    }
  }, 60_000);

  it("two instances scanning at once take an orphaned run once; the loser says nothing", async () => {
    const url = await pg.cluster.createDatabase();
    const reader = createPool(url, { max: 2 });
    cleanup.push(() => reader.end());
    const b = await storage(url, "instance-b");
    const c = await storage(url, "instance-c");
    const id = await conversation(b, "orphaned");
    await new Leases(reader).acquire(id, "instance-a", 60_000);
    await reader.query("UPDATE leases SET expires_at = now() - interval '1 second' WHERE conversation_id = $1", [id]);

    const told: string[] = [];
    const log = { info: (m: string) => told.push(m), error: (m: string) => told.push(`error: ${m}`) };
    // The engine's resume opens the conversation (takes its lease) first; here that is all it does.
    const scans = [b, c].map((s) => startTakeover({ lifecycle: s, resume: (convId) => s.open(convId), everyMs: 60_000, log }));
    const taken = await Promise.all(scans.map((scan) => scan.scan()));
    await Promise.all(scans.map((scan) => scan.stop()));
    expect(taken.reduce((n, t) => n + t, 0)).toBe(1);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`took over ${id} from instance instance-a`);
    const owner = (await reader.query<{ owner: string; epoch: string }>("SELECT owner, epoch FROM leases WHERE conversation_id = $1", [id])).rows[0]!;
    expect([b.isOpen(id), c.isOpen(id)].filter(Boolean)).toHaveLength(1);
    expect(owner.owner).toBe(b.isOpen(id) ? "instance-b" : "instance-c");
    expect(Number(owner.epoch)).toBe(2);
  }, 60_000);
});
