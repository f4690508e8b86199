import { describe, expect, it } from "vitest";
import { CreateMemoryBodySchema, MemoryCandidateSchema, MemoryEntriesFileSchema, MemoryListQuerySchema, PatchMemoryBodySchema } from "./schema";

describe("memory schemas", () => {
  it("fills a hand-made entry's defaults and refuses unknown fields and relative project folders", () => {
    expect(CreateMemoryBodySchema.parse({ kind: "fact", statement: " x " })).toMatchObject({ statement: "x", subject: "", project_path: null, level: "project", grant: [], confidence: 1 });
    expect(CreateMemoryBodySchema.safeParse({ kind: "fact", statement: "x", author: "distiller" }).success).toBe(false);
    expect(CreateMemoryBodySchema.safeParse({ kind: "fact", statement: "x", project_path: "rel/dir" }).success).toBe(false);
    expect(CreateMemoryBodySchema.safeParse({ kind: "fact", statement: "x", project_path: "C:\\work\\p" }).success).toBe(true);
  });

  it("needs something to change in a patch", () => {
    expect(PatchMemoryBodySchema.safeParse({}).success).toBe(false);
    expect(PatchMemoryBodySchema.safeParse({ level: "public" }).success).toBe(true);
    expect(PatchMemoryBodySchema.safeParse({ id: "mem_x" }).success).toBe(false);
  });

  it("bounds candidates and list queries", () => {
    const base = { kind: "fact", statement: "s", subject: "", project_path: null, level: "public", grant: [], source: { conversation_id: null, message_ids: [] } };
    expect(MemoryCandidateSchema.safeParse({ ...base, confidence: 1.5 }).success).toBe(false);
    expect(MemoryCandidateSchema.safeParse({ ...base, kind: "rumour", confidence: 1 }).success).toBe(false);
    expect(MemoryListQuerySchema.parse({ limit: "20", offset: "5" })).toMatchObject({ limit: 20, offset: 5 });
    expect(MemoryListQuerySchema.safeParse({ limit: "500" }).success).toBe(false);
  });

  it("reads the entries file only at version 1", () => {
    expect(MemoryEntriesFileSchema.safeParse({ version: 1, entries: [] }).success).toBe(true);
    expect(MemoryEntriesFileSchema.safeParse({ version: 2, entries: [] }).success).toBe(false);
  });
});
