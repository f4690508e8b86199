/**
 * The PostgreSQL catalog's conversation list (lib/pg/catalog-rows.ts, migration 2) at 10,000
 * conversations, on a throwaway cluster: every page, filter and search gives what the file store's
 * in-memory index gives for the same conversations (lib/store ConversationIndex, the reference),
 * case-insensitively beyond ASCII; the list runs as a database role that may not read messages; a
 * page is read through the migration's indexes in order (no sort of the table); rows written
 * before migration 2 get their search columns when a catalog starts.
 */
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pool } from "pg";
import type { ConversationMetadata } from "@/lib/contracts/on-disk";
import { createPgBackend, createPool, listColumns, listPage, listStatement, migrate, MIGRATIONS, type ListQuery, type PgBackend } from "@/lib/pg";
import { ConversationIndex, listItemOf } from "@/lib/store";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();
const COUNT = 10_000;

let url: string;
let pool: Pool;
let backend: PgBackend;
let metas: ConversationMetadata[];
const reference = new ConversationIndex();

const TITLES = ["Réunion d'équipe", "ÉTÉ planning", "Landing page review", "Straße bauen", "数据 迁移", "Alpha REVIEW"];
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** Conversation `i`: ids over a few seconds with sequences past 999 (ordered as numbers), updated_at with many ties. */
function meta(i: number): ConversationMetadata {
  const second = i % 7;
  const id = `conv_20260711_2100${pad(second)}_${pad(Math.floor(i / 7) + 1, 3)}`;
  const updated = `2026-07-${pad(11 + (i % 5))}T09:00:${pad(i % 3)}`;
  return {
    id,
    title: `${TITLES[i % TITLES.length]} ${i}`,
    created_at: "2026-07-11T21:00:00",
    updated_at: updated,
    project_path: i % 4 === 0 ? `/srv/Projets/Équipe-${i % 9}` : `/srv/projects/app-${i % 9}`,
    model_key: "offline",
    thinking_mode: false,
    run_mode: "fast",
    status: i % 5 === 0 ? "archived" : "active",
    agent_count: 0,
    agent_ids: [],
    phase: "IDLE",
  };
}

beforeAll(async () => {
  url = await pg.cluster.createDatabase();
  pool = createPool(url, { max: 3 });
  await migrate(pool);
  metas = Array.from({ length: COUNT }, (_, i) => meta(i));
  // Rows as the store writes them (its list columns), in one statement.
  const list = metas.map(listColumns);
  await pool.query(
    `INSERT INTO conversations (id, meta, leader_head, status, list_key, title_lower, path_lower)
     SELECT t.id, t.meta::json, '{"messages": null}'::json, t.st, t.lk, t.tl, t.pl FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t (id, meta, st, lk, tl, pl)`,
    [metas.map((m) => m.id), metas.map((m) => JSON.stringify(m)), list.map((c) => c.status), list.map((c) => c.key), list.map((c) => c.title), list.map((c) => c.path)],
  );
  // Messages the list must never read.
  await pool.query("INSERT INTO messages (conversation_id, agent_id, idx, message) SELECT id, 0, 0, '{\"role\": \"user\", \"content\": \"secret\"}'::json FROM conversations");
  await pool.query("ANALYZE");
  reference.load(metas, new Map());
  backend = await createPgBackend({ url, owner: "lister", checkProjectFolder: async (v) => String(v), log: () => undefined });
});

afterAll(async () => {
  await backend?.close();
  await pool?.end();
});

/** A node of an `EXPLAIN (FORMAT JSON)` plan. */
interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

const QUERIES: ListQuery[] = [
  { status: "all", offset: 0, limit: 100 },
  { status: "active", offset: 0, limit: 20 },
  { status: "archived", offset: 40, limit: 20 },
  { status: "all", offset: 9_950, limit: 100 },
  { status: "active", offset: 7_990, limit: 20 },
  { q: "réunion", status: "all", offset: 0, limit: 50 },
  { q: "ÉTÉ", status: "active", offset: 10, limit: 20 },
  { q: "été", status: "all", offset: 0, limit: 20 },
  { q: "STRASSE", status: "all", offset: 0, limit: 20 },
  { q: "straße", status: "archived", offset: 0, limit: 20 },
  { q: "数据", status: "all", offset: 100, limit: 20 },
  { q: "équipe-3", status: "all", offset: 0, limit: 100 },
  { q: "APP-7", status: "active", offset: 0, limit: 100 },
  { q: "review 99", status: "all", offset: 0, limit: 100 },
  { q: "nothing matches this", status: "all", offset: 0, limit: 20 },
];

describe("the conversation list at 10,000 conversations", () => {
  it("every page, filter and search gives what the file store's index gives (order, items, totals)", async () => {
    for (const query of QUERIES) {
      const expected = reference.query(query);
      const got = await backend.catalog.list(query);
      expect({ query, total: got.total, ids: got.items.map((i) => i.id) }).toEqual({ query, total: expected.total, ids: expected.items.map((i) => i.id) });
      expect(got.items).toEqual(expected.items);
    }
    expect(backend.catalog.indexReport().conversations).toBe(COUNT);
  });

  it("reads no message: it runs as a database role that may not read them", async () => {
    await pool.query("CREATE ROLE lister LOGIN");
    await pool.query("GRANT SELECT ON conversations TO lister");
    const lister = createPool(url.replace("postgres@", "lister@"), { max: 1 });
    try {
      await expect(lister.query("SELECT count(*) FROM messages")).rejects.toThrow(/permission denied/);
      const page = await listPage(lister, { q: "review", status: "all", offset: 0, limit: 20 });
      expect(page.metas.map(listItemOf)).toEqual(reference.query({ q: "review", status: "all", offset: 0, limit: 20 }).items);
    } finally {
      await lister.end();
    }
  });

  it("a page is read through the migration's indexes in order: no sort below its limit, no other table", async () => {
    // The first pages (a page deep in the list reads as many rows as a sort would, and the planner may pick either).
    for (const query of [QUERIES[0]!, QUERIES[1]!, QUERIES[2]!, QUERIES[5]!, QUERIES[6]!]) {
      const { text, values } = listStatement(query);
      const explained = (await pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]!["QUERY PLAN"];
      const root = explained[0]!.Plan;
      const limit = nodes(root).find((n) => n["Node Type"] === "Limit");
      expect(limit?.Plans?.[0], JSON.stringify(query)).toMatchObject({ "Node Type": "Index Scan", "Index Name": expect.stringMatching(/^conversations_list(_by_status)?$/) });
      expect(nodes(limit!).some((n) => n["Node Type"] === "Sort")).toBe(false);
      expect(new Set(nodes(root).flatMap((n) => (n["Relation Name"] ? [n["Relation Name"]] : [])))).toEqual(new Set(["conversations"]));
    }
  });
});

describe("a title holding a NUL character", () => {
  it("is created, renamed, listed and searched (no column is computed from the metadata by PostgreSQL, whose ->> refuses a \\u0000 escape)", async () => {
    const m = await backend.catalog.create({ title: "Null\u0000Title", project_path: os.tmpdir(), model_key: "offline" });
    expect((await backend.catalog.get(m.id)).title).toBe("Null\u0000Title");
    expect((await backend.catalog.update(m.id, { title: "Still\u0000NUL" })).title).toBe("Still\u0000NUL");
    expect((await backend.catalog.list({ q: "stillnul", status: "all" })).items.map((i) => [i.id, i.title])).toEqual([[m.id, "Still\u0000NUL"]]);
    expect((await backend.catalog.readLeaderMessages(m.id)).title).toBe("Still\u0000NUL");
    await backend.catalog.remove(m.id);
  });
});

describe("rows written before migration 2", () => {
  it("get their search columns when a catalog starts, lower-cased beyond ASCII", async () => {
    const old = await pg.cluster.createDatabase();
    const p = createPool(old, { max: 2 });
    try {
      await migrate(p, MIGRATIONS.slice(0, 1));
      const m = { ...meta(1), id: "conv_20260711_210000_001", title: "ÉTÉ À Paris", project_path: "/srv/Équipe" };
      await p.query("INSERT INTO conversations (id, meta, leader_head) VALUES ($1, $2::json, '{\"messages\": null}'::json)", [m.id, JSON.stringify(m)]);
      const b = await createPgBackend({ url: old, owner: "upgraded", checkProjectFolder: async (v) => String(v), log: () => undefined });
      try {
        expect((await b.catalog.list({ q: "été à", status: "all" })).items.map((i) => i.id)).toEqual([m.id]);
        expect((await b.catalog.list({ q: "ÉQUIPE", status: "all" })).items.map((i) => i.id)).toEqual([m.id]);
        expect((await p.query("SELECT title_lower, path_lower FROM conversations")).rows).toEqual([{ title_lower: "été à paris", path_lower: "/srv/équipe" }]);
      } finally {
        await b.close();
      }
    } finally {
      await p.end();
    }
  });
});
